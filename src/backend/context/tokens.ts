/**
 * Token counts with a real tokenizer (gpt-tokenizer, o200k_base: the encoding of the gpt-4o, 4.1, 5
 * and o-series families). Other families (llama, qwen, mistral) tokenize differently but within a
 * few percent on code and English; their window defaults (windows.ts) leave room for that.
 *
 * A message is counted as the JSON the adapter sends for it, so the count follows what is on the
 * wire (quotes, escapes and keys included) rather than the bare text.
 */
import { countTokens as countO200k } from 'gpt-tokenizer/encoding/o200k_base';
import type { ContentItem } from '../../protocol';
import type { ChatMessage, ModelRequest } from '../model/chatModel';
import type { FunctionSpec } from '../toolState';

/** Tokens the service adds around each message (role markers). */
const MESSAGE_OVERHEAD = 4;
/**
 * The longest run without whitespace the tokenizer is given whole. Its byte-pair merge is quadratic
 * in the length of one pre-token, and a run of letters or of punctuation is one pre-token: 40,000
 * letters took 2 s and a megabyte would take most of an hour on the backend's only thread. Longer
 * runs are counted in pieces of this length, which can only count a token more per piece.
 */
const MAX_RUN = 256;

export function countTokens(text: string): number {
  if (text.length === 0) return 0;
  // One linear pass over the characters: a regular expression for "a long run" either rescans each
  // run from every position in it or, on a run of megabytes, overflows V8's backtracking stack.
  let tokens = 0;
  let from = 0;
  let runStart = 0;
  for (let i = 0; i <= text.length; i++) {
    if (i < text.length && !isSpace(text.charCodeAt(i))) continue;
    if (i - runStart > MAX_RUN) {
      if (runStart > from) tokens += countO200k(text.slice(from, runStart));
      for (let at = runStart; at < i; at += MAX_RUN) tokens += countO200k(text.slice(at, Math.min(at + MAX_RUN, i)));
      from = i;
    }
    runStart = i + 1;
  }
  if (from < text.length) tokens += countO200k(text.slice(from));
  return tokens;
}

/** ASCII whitespace and the no-break space: where the tokenizer's pre-tokens end. */
function isSpace(code: number): boolean {
  return code === 0x20 || (code >= 0x09 && code <= 0x0d) || code === 0xa0;
}

// Messages are replaced, never edited, when history changes, so an object's count stays valid.
const cache = new WeakMap<object, number>();

export function messageTokens(m: ChatMessage): number {
  let n = cache.get(m);
  if (n === undefined) {
    n = MESSAGE_OVERHEAD + countTokens(JSON.stringify(wireShape(m)));
    cache.set(m, n);
  }
  return n;
}

export function functionTokens(f: FunctionSpec): number {
  let n = cache.get(f);
  if (n === undefined) {
    n = countTokens(JSON.stringify({ type: 'function', function: { name: f.name, description: f.description, parameters: f.parameters } }));
    cache.set(f, n);
  }
  return n;
}

export function requestTokens(request: ModelRequest): number {
  return request.messages.reduce((n, m) => n + messageTokens(m), 0) + request.tools.reduce((n, f) => n + functionTokens(f), 0);
}

/** The text a content list reads as: texts, JSON as JSON, binary items as a one-line marker. */
export function contentText(content: readonly ContentItem[]): string {
  return content
    .map((c) => (c.type === 'text' ? c.text : c.type === 'json' ? JSON.stringify(c.value) ?? 'null' : `[${c.filename ? `${c.filename}: ` : ''}${c.mimeType}, ${c.bytes.byteLength} bytes]`))
    .join('\n');
}

function wireShape(m: ChatMessage): unknown {
  if (m.role === 'tool') return { role: 'tool', tool_call_id: m.toolCallId, content: contentText(m.content) };
  if (m.role === 'assistant' && m.toolCalls?.length) {
    return { role: 'assistant', content: m.content, tool_calls: m.toolCalls.map((c) => ({ id: c.id, type: 'function', function: { name: c.name, arguments: c.arguments } })) };
  }
  return { role: m.role, content: m.content };
}
