import assert from 'node:assert/strict';
import { isAllowedLink, renderMarkdown } from '../../../src/webview/markdown';

const links = (html: string): string[] => [...html.matchAll(/<a\s[^>]*href="([^"]*)"/g)].map((m) => m[1]);

describe('chat markdown', () => {
  it('escapes raw HTML instead of rendering it', () => {
    const html = renderMarkdown('Look: <img src=x onerror=alert(1)> and <script>alert(2)</script>');
    assert.ok(!html.includes('<img'), html);
    assert.ok(!html.includes('<script'), html);
    assert.ok(html.includes('&lt;img src=x onerror=alert(1)&gt;'), html);
    assert.ok(html.includes('&lt;script&gt;alert(2)&lt;/script&gt;'), html);
  });

  it('does not render command: links as links', () => {
    for (const src of [
      '[run](command:workbench.action.terminal.new)',
      '<command:workbench.action.terminal.sendSequence?%5B%22rm%22%5D>',
      '[x]: command:extension.run\n\n[click][x]',
    ]) {
      const html = renderMarkdown(src);
      assert.deepEqual(links(html), [], html);
      assert.ok(!/href=/.test(html), html);
    }
  });

  it('does not render javascript:, data:, file: or relative links as links', () => {
    for (const src of [
      '[x](javascript:alert(1))',
      '[x](JaVaScRiPt:alert(1))',
      '[x](  javascript:alert(1))',
      '<javascript:alert(1)>',
      '[x](data:text/html,<script>alert(1)</script>)',
      '[x](file:///etc/passwd)',
      '[x](/etc/passwd)',
      '[x](vscode://ms-python.python/run)',
    ]) {
      assert.deepEqual(links(renderMarkdown(src)), [], src);
    }
  });

  it('keeps http, https and mailto links, opened without referrer', () => {
    const html = renderMarkdown('[docs](https://example.com/a?b=1) [plain](http://example.org) [mail](mailto:a@example.com)');
    assert.deepEqual(links(html), ['https://example.com/a?b=1', 'http://example.org', 'mailto:a@example.com']);
    assert.match(html, /rel="noopener noreferrer"/);
  });

  it('linkifies only URLs that carry a scheme', () => {
    assert.deepEqual(links(renderMarkdown('see https://example.com/x now')), ['https://example.com/x']);
    assert.deepEqual(links(renderMarkdown('see example.com or a@example.com')), []);
  });

  it('gives code blocks their language class, escapes their content, and lets the keyboard scroll them (tabindex)', () => {
    const html = renderMarkdown('```ts\nconst a: Array<string> = [];\n```');
    assert.match(html, /<pre tabindex="0"><code class="language-ts">const a: Array&lt;string&gt; = \[\];\n<\/code><\/pre>/);
    assert.match(html, /<button type="button" class="copy-code"/);
  });

  it('does not load images (a remote image would be a tracking beacon)', () => {
    const html = renderMarkdown('![pixel](https://tracker.example/p.png)');
    assert.ok(!html.includes('<img'), html);
  });

  it('writes no style attributes (the CSP would refuse them) and aligns table cells by class', () => {
    const html = renderMarkdown('| a | b |\n|:-:|--:|\n| 1 | 2 |');
    assert.ok(!html.includes('style='), html);
    assert.match(html, /<th class="align-center">a<\/th>/);
    assert.match(html, /<td class="align-right">2<\/td>/);
  });

  it('allows exactly the http, https and mailto schemes', () => {
    assert.equal(isAllowedLink('HTTPS://example.com'), true);
    assert.equal(isAllowedLink('command:x'), false);
    assert.equal(isAllowedLink('//example.com'), false);
  });
});
