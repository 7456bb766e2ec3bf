/**
 * Token counts with a real tokenizer (gpt-tokenizer, o200k_base: the encoding of the gpt-4o, 4.1, 5
 * and o-series families). Other families (llama, qwen, mistral) tokenize differently but within a
 * few percent on code and English; their window defaults (windows.ts) leave room for that.
 *
 * A message is counted as the JSON the adapter sends for it, so the count follows what is on the
 * wire (quotes, escapes and keys included) rather than the bare text.
 *
 * Texts come from clients, files and models, so the work is bounded whatever they hold. Byte-pair
 * merging is quadratic in the length of one pre-tokenized word, and a run of one character (or CJK
 * text, which no space breaks) is one word: text reaches the encoder in pieces of at most
 * PIECE_CHARS, cut before a space where there is one. A text of up to EXACT_CHARS is counted whole
 * (exact, but for at most one token per cut inside a longer run); a longer one is estimated from
 * SAMPLES windows spread over it, scaled to its length with a margin. No count encodes more than
 * EXACT_CHARS characters.
 */
import type { ContentItem } from '../../protocol';
import type { ChatMessage, ModelRequest } from '../model/chatModel';
import type { FunctionSpec } from '../toolset/toolState';

/** Tokens the service adds around each message (role markers). */
const MESSAGE_OVERHEAD = 4;
/** The longest piece the encoder gets: its merging is quadratic in a piece's longest word. */
const PIECE_CHARS = 256;
/** Longer texts are estimated; the encoder never sees more than this many characters per count. */
export const EXACT_CHARS = 8_192;
const SAMPLES = 16;
/** Estimates are rounded up by this much: a budget that overestimates compacts early, one that underestimates overflows. */
const ESTIMATE_MARGIN = 1.1;
/** Text such as `<|endoftext|>` is counted as text, not refused (the library throws on it by default). */
const AS_TEXT = { disallowedSpecial: new Set<string>() };

type O200k = typeof import('./o200kEncoding');
let o200k: O200k | undefined;

/**
 * The encoder, loaded at the first count: its tables cost about 15 MB of heap, 60 MB of RSS and
 * half a second to load, and a backend whose model has no context window to fit (the offline demo)
 * never counts.
 */
function encoder(): O200k {
  if (!o200k) {
    // A file of its own in the bundles (esbuild.mjs), read only now.
    // eslint-disable-next-line @typescript-eslint/no-require-imports -- loaded on first use, on purpose
    o200k = require('./o200kEncoding') as O200k;
    // The encoder caches merged words (100,000 by default); pieces are short, so this bounds its memory to a few MB.
    o200k.setMergeCacheSize(10_000);
  }
  return o200k;
}

/**
 * Loads the encoder now: at start, for a backend that will count (its loading holds the event loop
 * for about half a second, which must not fall on a client's first message).
 */
export function loadTokenizer(): void {
  encoder();
}

export function countTokens(text: string): number {
  if (text.length <= EXACT_CHARS) return countRange(text, 0, text.length);
  const window = Math.floor(EXACT_CHARS / SAMPLES);
  const stride = (text.length - window) / (SAMPLES - 1);
  let tokens = 0;
  let chars = 0;
  for (let i = 0; i < SAMPLES; i++) {
    const start = pairStart(text, Math.floor(i * stride));
    const end = pairStart(text, Math.min(text.length, start + window));
    tokens += countRange(text, start, end);
    chars += end - start;
  }
  return Math.ceil((tokens / Math.max(1, chars)) * text.length * ESTIMATE_MARGIN);
}

/** Exact count of text[start, end), fed to the encoder in pieces of at most PIECE_CHARS. */
function countRange(text: string, start: number, end: number): number {
  let n = 0;
  while (start < end) {
    const cut = end - start <= PIECE_CHARS ? end : cutBefore(text, start, start + PIECE_CHARS);
    n += encoder().countTokens(text.slice(start, cut), AS_TEXT);
    start = cut;
  }
  return n;
}

/**
 * Where to end a piece that may not pass `limit`: before the last space or tab that follows a
 * non-space in its second half (the encoder's own splitting puts such a space with the word after
 * it, so the count does not change there; a line break may belong to the punctuation before it, so
 * it is no place to cut), else at the limit, off the middle of a surrogate pair.
 */
function cutBefore(text: string, start: number, limit: number): number {
  const floor = start + PIECE_CHARS / 2;
  for (let i = limit; i > floor; i--) if (isBlank(text.charCodeAt(i)) && !isSpace(text.charCodeAt(i - 1))) return i;
  return pairStart(text, limit);
}

function isBlank(code: number): boolean {
  return code === 0x20 || code === 0x09;
}

function isSpace(code: number): boolean {
  return isBlank(code) || code === 0x0a || code === 0x0d;
}

/** Moves an index off the middle of a surrogate pair. */
function pairStart(text: string, at: number): number {
  const code = text.charCodeAt(at - 1);
  return code >= 0xd800 && code <= 0xdbff ? at - 1 : at;
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

/**
 * Function definitions are made afresh each turn, around the registration's own parameter objects:
 * counts are kept per parameters object (and name and description), so a thousand visible tools
 * are counted once, not every turn. The shared empty schema of containers keeps a bounded few.
 */
const functionCache = new WeakMap<object, Map<string, number>>();
const MAX_FUNCTIONS_PER_SCHEMA = 256;

export function functionTokens(f: FunctionSpec): number {
  let perSchema = functionCache.get(f.parameters);
  if (!perSchema) functionCache.set(f.parameters, (perSchema = new Map()));
  const key = `${f.name}\u0000${f.description}`;
  let n = perSchema.get(key);
  if (n === undefined) {
    n = countTokens(JSON.stringify({ type: 'function', function: { name: f.name, description: f.description, parameters: f.parameters } }));
    if (perSchema.size < MAX_FUNCTIONS_PER_SCHEMA) perSchema.set(key, n);
  }
  return n;
}

export function requestTokens(request: ModelRequest): number {
  return request.messages.reduce((n, m) => n + messageTokens(m), 0) + request.tools.reduce((n, f) => n + functionTokens(f), 0);
}

/** Work between two turns of the event loop while a request is counted. */
const COUNT_SLICE_MS = 8;

/**
 * Counts a request, giving the event loop back whenever counting has taken COUNT_SLICE_MS, so a
 * turn that brings many new messages or definitions never counts them all in one stretch.
 */
export async function countRequest(request: ModelRequest): Promise<number> {
  let n = 0;
  let slice = performance.now();
  const pace = async () => {
    if (performance.now() - slice < COUNT_SLICE_MS) return;
    await yieldToLoop();
    slice = performance.now();
  };
  for (const m of request.messages) {
    n += messageTokens(m);
    await pace();
  }
  for (const f of request.tools) {
    n += functionTokens(f);
    await pace();
  }
  return n;
}

/** Lets other sessions' I/O and timers run before going on. */
export function yieldToLoop(): Promise<void> {
  return new Promise((resolve) => setImmediate(resolve));
}

/** The text a content list reads as: texts, JSON as JSON, binary items as a one-line marker. */
export function contentText(content: readonly ContentItem[]): string {
  return content
    .map((c) => (c.type === 'text' ? c.text : c.type === 'json' ? jsonText(c.value) : `[${c.filename ? `${c.filename}: ` : ''}${c.mimeType}, ${c.bytes.byteLength} bytes]`))
    .join('\n');
}

/** A JSON value as text; a value JSON cannot print (nested past the stack) becomes a note instead of an exception. */
function jsonText(value: unknown): string {
  try {
    return JSON.stringify(value) ?? 'null';
  } catch (e) {
    return `[a JSON value that could not be printed: ${e instanceof Error ? e.message : String(e)}]`;
  }
}

function wireShape(m: ChatMessage): unknown {
  if (m.role === 'tool') return { role: 'tool', tool_call_id: m.toolCallId, content: contentText(m.content) };
  if (m.role === 'assistant' && m.toolCalls?.length) {
    return { role: 'assistant', content: m.content, tool_calls: m.toolCalls.map((c) => ({ id: c.id, type: 'function', function: { name: c.name, arguments: c.arguments } })) };
  }
  return { role: m.role, content: m.content };
}
