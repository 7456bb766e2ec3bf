/**
 * Markdown for agent answers. The text comes from a language model, which anything it read can
 * steer, so: raw HTML is escaped, links are kept only for http, https and mailto (never `command:`,
 * `javascript:`, `data:` or relative URLs), bare URLs are linkified only with an explicit scheme,
 * and images are not loaded (a remote image would be a tracking beacon; the CSP blocks it anyway).
 * Output never carries `style` attributes, which the view's CSP would refuse.
 * An inline code span that looks like a file path becomes a button, never a link: the view asks the
 * host to open it, and the host checks it against the workspace the way OpenFile does.
 */
import markdownIt, { type MarkdownIt } from 'markdown-it';
import { filePathIn } from './filePaths';

const ALLOWED_LINK = /^(?:https?:|mailto:)/i;

export function isAllowedLink(url: string): boolean {
  return ALLOWED_LINK.test(url.trim());
}

export function createMarkdown(): MarkdownIt {
  const md = markdownIt({ html: false, linkify: true, typographer: false, breaks: false });
  md.linkify.set({ fuzzyLink: false, fuzzyEmail: false, fuzzyIP: false });
  md.disable('image');
  md.validateLink = isAllowedLink;

  // Table cell alignment arrives as `style="text-align:…"`; turn it into a class.
  md.core.ruler.push('align_class', (state) => {
    for (const token of state.tokens) {
      if (token.type !== 'th_open' && token.type !== 'td_open') continue;
      const style = token.attrGet('style');
      if (style === null) continue;
      token.attrs = (token.attrs ?? []).filter(([name]) => name !== 'style');
      const align = /text-align:\s*(left|right|center)/.exec(String(style));
      if (align) token.attrJoin('class', `align-${align[1]}`);
    }
  });

  const renderLinkOpen = md.renderer.rules.link_open
    ?? ((tokens, idx, options, _env, self) => self.renderToken(tokens, idx, options));
  md.renderer.rules.link_open = (tokens, idx, options, env, self) => {
    const token = tokens[idx];
    token.attrSet('rel', 'noopener noreferrer');
    const href = token.attrGet('href');
    if (href !== null) token.attrSet('title', String(href));
    return renderLinkOpen(tokens, idx, options, env, self);
  };

  // `src/a.ts:12` in an answer opens the file: a button carrying the path as data, not an href.
  const renderCodeInline = md.renderer.rules.code_inline
    ?? ((tokens, idx, options, _env, self) => self.renderToken(tokens, idx, options));
  md.renderer.rules.code_inline = (tokens, idx, options, env, self) => {
    const code = renderCodeInline(tokens, idx, options, env, self);
    const file = filePathIn(tokens[idx].content);
    if (!file) return code;
    const esc = md.utils.escapeHtml;
    const line = file.line !== undefined ? ` data-line="${file.line}"` : '';
    return `<button type="button" class="file-link" data-path="${esc(file.path)}"${line} title="Open ${esc(file.path)}">${code}</button>`;
  };

  // Code blocks get a Copy button; the view handles its click (it posts `copy` to the host). A block
  // scrolls sideways: it takes the keyboard (tabindex) so its hidden part can be scrolled to.
  const renderFence = md.renderer.rules.fence
    ?? ((tokens, idx, options, _env, self) => self.renderToken(tokens, idx, options));
  md.renderer.rules.fence = (tokens, idx, options, env, self) =>
    `<div class="code-block"><button type="button" class="copy-code" aria-label="Copy code">Copy</button>${renderFence(tokens, idx, options, env, self).replace(/^<pre>/, '<pre tabindex="0">')}</div>\n`;
  return md;
}

let shared: MarkdownIt | undefined;

/** Markdown → HTML that is safe to assign to `innerHTML` in the chat view. */
export function renderMarkdown(text: string): string {
  shared ??= createMarkdown();
  return shared.render(text);
}
