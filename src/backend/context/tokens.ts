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

export function countTokens(text: string): number {
  return text.length === 0 ? 0 : countO200k(text);
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
