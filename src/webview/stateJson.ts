/**
 * The chat's state as JSON text, item by item. Items are immutable (a change makes a new object), so
 * an item's text is kept with the item: saving a thread of a thousand items while an answer streams
 * writes the one item that changed and joins the others, instead of walking the whole thread on
 * every save (the view saves its state every 200 ms and the host's transcript every second).
 */
import type { ChatItem, ChatState } from './stateSchema';

const itemText = new WeakMap<ChatItem, string>();
const transcriptItemText = new WeakMap<ChatItem, string>();

/** `JSON.stringify(state)`, the items first. */
export function stateJson(state: ChatState): string {
  return withItems(state, state.items.map(textOf));
}

/** A transcript as the host keeps it, in parts: its items, each one's JSON text, and the JSON text of the rest. */
export interface TranscriptParts {
  items: readonly ChatItem[];
  texts: readonly string[];
  rest: string;
}

/**
 * `state` as the host keeps a transcript: without the list, the run or image bytes (the card says the
 * image is no longer kept), and without the oldest items (a tenth at a time) while over `maxChars`.
 */
export function transcriptJson(state: ChatState, maxChars: number): string {
  const parts = transcriptParts(state, maxChars);
  return joinTranscript(parts.texts, parts.rest);
}

/** `transcriptJson` before its parts are joined (`joinTranscript`). */
export function transcriptParts(state: ChatState, maxChars: number): TranscriptParts {
  const rest = JSON.stringify({ ...state, items: undefined, threads: [], run: null, awaitingInput: false, approval: null });
  const texts = state.items.map(transcriptTextOf);
  const after = new Array<number>(texts.length + 1).fill(0);
  for (let i = texts.length - 1; i >= 0; i--) after[i] = after[i + 1] + texts[i].length + 1;
  const empty = joinTranscript([], rest).length;
  let from = 0;
  while (from < texts.length && empty + after[from] - 1 > maxChars) from += Math.max(1, Math.ceil((texts.length - from) / 10));
  return from === 0 ? { items: state.items, texts, rest } : { items: state.items.slice(from), texts: texts.slice(from), rest };
}

/** `{"items":[…],…rest}`: what `JSON.stringify` gives for the rest with the items first. */
export function joinTranscript(texts: readonly string[], rest: string): string {
  return `{"items":[${texts.join(',')}]${rest === '{}' ? '}' : `,${rest.slice(1)}`}`;
}

function withItems(state: ChatState, items: readonly string[]): string {
  return joinTranscript(items, JSON.stringify({ ...state, items: undefined }));
}

function textOf(item: ChatItem): string {
  let text = itemText.get(item);
  if (text === undefined) itemText.set(item, (text = JSON.stringify(item)));
  return text;
}

function transcriptTextOf(item: ChatItem): string {
  if (item.kind !== 'tool' || !item.result.some((p) => p.kind === 'image' && p.data !== null)) return textOf(item);
  let text = transcriptItemText.get(item);
  if (text === undefined) {
    text = JSON.stringify({ ...item, result: item.result.map((p) => (p.kind === 'image' ? { ...p, data: null } : p)) });
    transcriptItemText.set(item, text);
  }
  return text;
}
