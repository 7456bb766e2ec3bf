/**
 * The byte budget of a thread's history. Every turn sends the whole history to the model, and it
 * lives as long as the thread, so it is bounded (a model could not read more anyway).
 *
 * - A tool result enters the history as at most `resultBytes` (the model reads that, in the turn it
 *   arrives and after): a larger text keeps its head and tail around a marker
 *   `[... N bytes omitted (lines a to b of L); the whole text is B bytes ...]` (the model can tell
 *   the user how large the original was), a larger JSON value becomes such an excerpt of its JSON, and binary
 *   items become a one-line marker. The client still receives the whole result in `toolCallEnded`.
 * - The thread keeps at most `budgetBytes`: past it, tool results shrink to a short excerpt and
 *   large tool-call arguments to a short note, the oldest first and the newest batch last; then the
 *   oldest exchanges (a user message and what followed it) are dropped, never the one in progress.
 */
import type { ContentItem } from '../../protocol';
import type { ChatMessage, ToolCallRequest } from '../model/chatModel';

export interface HistoryLimits {
  /** Bytes one tool result may keep. */
  resultBytes: number;
  /** Bytes one thread's history may keep. */
  budgetBytes: number;
}

/** The defaults of the options `historyResultBytes` and `historyBudgetBytes`. */
export const DEFAULT_HISTORY_LIMITS: HistoryLimits = { resultBytes: 256 * 1024, budgetBytes: 4 * 1024 * 1024 };

/** What an old result shrinks to when the thread is over its budget. */
export const SHRUNK_RESULT_BYTES = 2 * 1024;

/**
 * The content a tool result keeps in the history: itself, or an excerpt of at most about `maxBytes`.
 * A JSON value nested too deeply to print (it parses: parsing is iterative) becomes a note: kept,
 * each later step that prints the history would overflow the stack.
 */
export function excerptContent(content: ContentItem[], maxBytes: number): ContentItem[] {
  const printed = content.map((c) => (c.type === 'json' ? printedJson(c.value) : undefined));
  const printable = content.map((c, i): ContentItem => (c.type === 'json' && printed[i] === undefined ? { type: 'text', text: UNPRINTABLE_JSON } : c));
  const bytes = printable.reduce((n, c, i) => n + (c.type === 'text' ? byteLength(c.text) : c.type === 'json' ? byteLength(printed[i] as string) : c.bytes.byteLength), 0);
  if (bytes <= maxBytes) return printable.some((c, i) => c !== content[i]) ? printable : content;
  const kept: ContentItem[] = printable.map((c, i) => {
    if (c.type === 'binary') return { type: 'text', text: `[${c.filename ? `${c.filename}: ` : ''}${c.mimeType}, ${c.bytes.byteLength} bytes omitted ...]` };
    if (c.type === 'json') return { type: 'text', text: printed[i] as string };
    return c;
  });
  // Each text shares the room equally; a short one keeps all of its share's worth.
  const share = Math.max(256, Math.floor(maxBytes / Math.max(1, kept.length)));
  return kept.map((c) => (c.type === 'text' && byteLength(c.text) > share ? { type: 'text', text: excerptText(c.text, share) } : c));
}

/** Brings `history` within the budget, in place; `current` is the index where the newest tool results begin. */
export function enforceBudget(history: ChatMessage[], budgetBytes: number, current = history.length): void {
  let total = history.reduce((n, m) => n + messageBytes(m), 0);
  if (total <= budgetBytes) return;
  // Older results first, then the newest batch, each oldest first.
  const order = [...history.keys()].filter((i) => i < current).concat([...history.keys()].filter((i) => i >= current));
  for (const i of order) {
    if (total <= budgetBytes) return;
    const m = history[i];
    const before = messageBytes(m);
    if (before <= SHRUNK_RESULT_BYTES) continue;
    if (m.role === 'tool') history[i] = { ...m, content: excerptContent(m.content, SHRUNK_RESULT_BYTES) };
    else if (m.role === 'assistant' && m.toolCalls?.length) history[i] = { ...m, toolCalls: m.toolCalls.map(shrunkCall) };
    else continue;
    total += messageBytes(history[i]) - before;
  }
  // Whole exchanges last: from the start up to the next user message, never the latest exchange.
  while (total > budgetBytes) {
    const next = history.findIndex((m, i) => i > 0 && m.role === 'user');
    if (next <= 0) return;
    const dropped = history.splice(0, next);
    total -= dropped.reduce((n, m) => n + messageBytes(m), 0);
  }
}

/** A tool call whose arguments are past SHRUNK_RESULT_BYTES, with a short JSON note in their place (its result says what it did). */
function shrunkCall(call: ToolCallRequest): ToolCallRequest {
  const bytes = byteLength(call.arguments);
  if (bytes <= SHRUNK_RESULT_BYTES) return call;
  return { ...call, arguments: JSON.stringify({ omitted: `${bytes} bytes of arguments, dropped to keep the thread within its budget` }) };
}

/** The bytes a message holds: its texts, JSON values as JSON, binary items' bytes, tool call arguments. */
export function messageBytes(m: ChatMessage): number {
  if (m.role === 'tool') return contentBytes(m.content);
  if (m.role === 'assistant') return byteLength(m.content) + (m.toolCalls ?? []).reduce((n, c) => n + byteLength(c.arguments) + c.name.length + c.id.length, 0);
  return byteLength(m.content);
}

function contentBytes(content: readonly ContentItem[]): number {
  let n = 0;
  for (const c of content) n += c.type === 'text' ? byteLength(c.text) : c.type === 'json' ? byteLength(jsonText(c.value)) : c.bytes.byteLength;
  return n;
}

/** Head and tail of `text` around a marker, about `maxBytes` in all. */
function excerptText(text: string, maxBytes: number): string {
  const bytes = byteLength(text);
  // Characters per byte of this text, so the cut stays near the byte budget for any script.
  const ratio = text.length / bytes;
  const half = Math.floor(((maxBytes - 128) / 2) * ratio);
  const head = text.slice(0, avoidSplitPair(text, half));
  const tail = text.slice(avoidSplitPair(text, text.length - half));
  const firstLeftOut = lineCount(head) + (head.endsWith('\n') ? 1 : 0);
  const lines = lineCount(text);
  const lastLeftOut = lines - lineCount(tail) + 1;
  return `${head}\n[... ${bytes - byteLength(head) - byteLength(tail)} bytes omitted (lines ${firstLeftOut} to ${lastLeftOut} of ${lines}); the whole text is ${bytes} bytes ...]\n${tail}`;
}

/** Lines of `text`; a last line without a newline counts, a trailing newline ends the last line. */
function lineCount(text: string): number {
  if (text === '') return 0;
  let n = 1;
  for (let i = text.indexOf('\n'); i !== -1 && i < text.length - 1; i = text.indexOf('\n', i + 1)) n++;
  return n;
}

/** Moves a cut off the middle of a surrogate pair. */
function avoidSplitPair(text: string, at: number): number {
  const code = text.charCodeAt(at - 1);
  return code >= 0xd800 && code <= 0xdbff ? at - 1 : at;
}

function byteLength(text: string): number {
  return Buffer.byteLength(text, 'utf8');
}

function jsonText(value: unknown): string {
  return printedJson(value) ?? UNPRINTABLE_JSON;
}

/** What the history keeps of a JSON value that cannot be printed. */
export const UNPRINTABLE_JSON = '[a JSON value nested too deeply to be printed was left out]';

/** `value` as JSON text, or undefined when `JSON.stringify` fails on it (nested too deeply). */
function printedJson(value: unknown): string | undefined {
  try {
    return JSON.stringify(value) ?? String(value);
  } catch {
    return undefined;
  }
}
