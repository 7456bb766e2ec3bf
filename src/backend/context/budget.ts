/**
 * Keeps every model request under the model's context window, less a reserve for the answer.
 * The system prompt, the function definitions and the newest turns come first; older turns are
 * compacted into one marked message (a summary by the model when there is a summariser, else a
 * marker saying what was elided), never separating a tool call from its results. A tool result over
 * a share of the window enters the history as a head/tail excerpt with a handle; the full text
 * stays in the ResultStore for ReadToolResult and SearchToolResult.
 *
 * This is the token side of the history's limits. historyBudget.ts bounds bytes (the process's
 * memory per thread), this bounds tokens (what one request may carry); both apply.
 */
import type { ContentItem } from '../../protocol';
import type { ChatMessage, ChatModel, ModelRequest } from '../model/chatModel';
import type { ServerTool } from '../serverTools';
import { excerptByTokens } from './excerpt';
import { ResultStore } from './resultStore';
import { READ_TOOL_RESULT, resultTools, SEARCH_TOOL_RESULT } from './resultTools';
import { summarize } from './summarize';
import { contentText, countRequest, countTokens, messageTokens } from './tokens';

export interface ContextBudgetConfig {
  /** The model's context window in tokens. */
  window: number;
  /** Summarises compacted turns; without one they are elided with a marker. */
  summarizer?: ChatModel;
}

export interface Compaction {
  mode: 'summarized' | 'elided';
  /** History messages replaced by the summary or marker. */
  messages: number;
  tokensBefore: number;
  tokensAfter: number;
}

export const SUMMARY_MARK = '[Summary of the earlier conversation';
export const ELIDED_MARK = '[Earlier conversation elided';

export class ContextBudget {
  readonly results = new ResultStore();

  constructor(readonly config: ContextBudgetConfig) {}

  /** Tokens a request may hold: the window less the answer's reserve (a quarter of it, at most 16k). */
  get limit(): number {
    return this.config.window - Math.min(16_384, Math.floor(this.config.window / 4));
  }

  /** Tokens one tool result may take before it is cut to an excerpt with a handle. */
  get resultShare(): number {
    return Math.max(256, Math.floor(this.config.window / 8));
  }

  /** The content a tool result enters the history with: itself, or an excerpt naming a handle to the whole. */
  admit(threadId: string, toolName: string, content: ContentItem[]): ContentItem[] {
    // Binary items stay as they are: the model adapter decides how images reach the model.
    const textual = content.filter((c) => c.type !== 'binary');
    const text = contentText(textual);
    if (text.length <= this.resultShare) return content;
    const tokens = countTokens(text);
    if (tokens <= this.resultShare) return content;
    const handle = this.results.keep(threadId, toolName, text);
    const excerpt = excerptByTokens(text, Math.floor(this.resultShare / 2), tokens, (omitted) =>
      `[... ${omitted} of ${text.length} characters (about ${tokens} tokens in all) omitted. The whole result is kept under the handle "${handle}": read it with ${READ_TOOL_RESULT} (handle, offset, length) or search it with ${SEARCH_TOOL_RESULT} (handle, query) ...]`,
    );
    return [{ type: 'text', text: excerpt }, ...content.filter((c) => c.type === 'binary')];
  }

  /** The server tools that page through a thread's cut results; none while it holds no handle. */
  tools(threadId: string): ServerTool[] {
    return this.results.has(threadId) ? resultTools(this.results, threadId, this.resultShare * 3) : [];
  }

  /**
   * Fits the request `build` makes under the limit, compacting `history` in place when it must (so
   * later turns start from the compacted history). `build` is called again after each change.
   */
  async fit(history: ChatMessage[], build: () => ModelRequest, signal: AbortSignal): Promise<{ request: ModelRequest; compaction?: Compaction }> {
    let request = build();
    const tokensBefore = await countRequest(request);
    if (tokensBefore <= this.limit) return { request };

    const historyTokens = history.reduce((n, m) => n + messageTokens(m), 0);
    const fixed = tokensBefore - historyTokens;
    const summaryRoom = Math.max(64, Math.floor(this.limit / 8));
    const room = this.limit - fixed - summaryRoom;
    const cut = keptFrom(history, room);

    let compaction: Compaction | undefined;
    if (cut > 0) {
      const dropped = history.slice(0, cut);
      const droppedTokens = dropped.reduce((n, m) => n + messageTokens(m), 0);
      const summary = this.config.summarizer ? await summarize(this.config.summarizer, dropped, this.limit - summaryRoom - 512, summaryRoom - 64, signal) : undefined;
      const marker: ChatMessage = summary
        ? { role: 'user', content: `${SUMMARY_MARK} (${cut} messages compacted to fit the model's context window)]\n${summary}` }
        : { role: 'user', content: `${ELIDED_MARK}: ${cut} messages (about ${droppedTokens} tokens) were removed to fit the model's context window. Ask the user for anything you need from them.]` };
      history.splice(0, cut, marker);
      compaction = { mode: summary ? 'summarized' : 'elided', messages: cut, tokensBefore, tokensAfter: 0 };
      request = build();
    }
    // What is left may still be too large (one huge turn): shrink its largest messages.
    let tokens = await countRequest(request);
    let squeezed = 0;
    while (tokens > this.limit && squeezed < 64 && shrinkLargest(history)) {
      squeezed++;
      request = build();
      tokens = await countRequest(request);
    }
    if (squeezed > 0) compaction = { mode: compaction?.mode ?? 'elided', messages: (compaction?.messages ?? 0) + squeezed, tokensBefore, tokensAfter: 0 };
    if (compaction) compaction.tokensAfter = tokens;
    return { request, compaction };
  }
}

/**
 * Where the newest whole turns that fit in `room` begin; a tool result stays with the call before
 * it. The newest turn is always kept (it is what the model must answer); shrinkLargest fits it.
 */
function keptFrom(history: readonly ChatMessage[], room: number): number {
  let used = 0;
  let cut = history.length;
  for (let i = history.length - 1; i >= 0; i--) {
    used += messageTokens(history[i]);
    if (history[i].role === 'tool') continue;
    if (used > room && cut < history.length) break;
    cut = i;
  }
  return cut;
}

/** Halves the largest message's text (a tool result or a message's content); false when nothing is worth shrinking. */
function shrinkLargest(history: ChatMessage[]): boolean {
  let largest = -1;
  for (let i = 0; i < history.length; i++) if (largest < 0 || messageTokens(history[i]) > messageTokens(history[largest])) largest = i;
  const m = history[largest];
  if (largest < 0 || messageTokens(m) < 256) return false;
  if (m.role === 'tool') {
    const text = contentText(m.content);
    history[largest] = { ...m, content: [{ type: 'text', text: excerptByTokens(text, Math.floor(countTokens(text) / 2)) }] };
  } else {
    const half = Math.floor(countTokens(m.content) / 2);
    if (half < 64) return false;
    history[largest] = { ...m, content: excerptByTokens(m.content, half) };
  }
  return true;
}
