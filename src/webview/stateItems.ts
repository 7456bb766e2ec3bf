/**
 * The chat state's transcript, item by item: appending (ids counting up, the streaming answer
 * ended), replacing one item, the bounds on items and image bytes, and the texts a card keeps.
 * Changed items are replaced, unchanged items keep their identity (the renderer relies on it).
 */
import { cutWithNote } from '../protocol/textCut';
import { isInlineImageType, type ChatContentItem } from '../protocol/webview';
import { foldInto } from './expansionFold';
import { MAX_DETAIL_CHARS, MAX_ITEMS, MAX_KEPT_IMAGE_CHARS, type ChatItem, type ChatState, type ResultPart, type ToolItem } from './stateSchema';

/** Run ids remembered as finished, so late events for them are ignored. */
const MAX_CLOSED_RUNS = 20;
const SUMMARY_CHARS = 80;

type WithoutId<T> = T extends unknown ? Omit<T, 'id'> : never;
export type NewItem = WithoutId<ChatItem>;

/** How many items at the start of `next` are the very objects at the start of `prev` (unchanged since). */
export function unchangedPrefix(prev: readonly ChatItem[], next: readonly ChatItem[]): number {
  const n = Math.min(prev.length, next.length);
  let i = 0;
  while (i < n && prev[i] === next[i]) i++;
  return i;
}

export function append(state: ChatState, item: NewItem): ChatState {
  const items = endStreaming(state.items);
  items.push({ ...item, id: `i${state.nextId}` } as ChatItem);
  return { ...state, items, nextId: state.nextId + 1 };
}

/** A copy of `items` where the last answer no longer streams (a tool card or notice follows it). */
export function endStreaming(items: ChatItem[]): ChatItem[] {
  const out = items.slice();
  const last = out[out.length - 1];
  if (last?.kind === 'answer' && last.streaming) out[out.length - 1] = { ...last, streaming: false };
  return out;
}

export function mapItem(state: ChatState, f: (item: ChatItem) => ChatItem): ChatState {
  let changed = false;
  const items = state.items.map((it) => {
    const next = f(it);
    if (next !== it) changed = true;
    return next;
  });
  return changed ? { ...state, items } : state;
}

export function remember(list: string[], runId: string): string[] {
  return list.includes(runId) ? list : [...list, runId].slice(-MAX_CLOSED_RUNS);
}

/** Appends a new tool card, with the expansion that loaded its tool folded into it. */
export function appendCard(state: ChatState, card: Omit<ToolItem, 'id'>): ChatState {
  const folded = foldInto(state.items, card);
  return append(folded.items === state.items ? state : { ...state, items: folded.items }, folded.card);
}

/** Sets or removes an optional key without ever storing `undefined` (the state must survive JSON). */
export function withOptional<T extends object>(obj: T, key: string, value: string | undefined): T {
  const copy: Record<string, unknown> = { ...(obj as Record<string, unknown>) };
  if (value === undefined) delete copy[key];
  else copy[key] = value;
  return copy as T;
}

export function toResultPart(item: ChatContentItem): ResultPart {
  switch (item.type) {
    case 'text':
      return { kind: 'text', text: clip(item.text, MAX_DETAIL_CHARS) };
    case 'json':
      return { kind: 'json', text: clip(JSON.stringify(item.value, null, 2) ?? 'null', MAX_DETAIL_CHARS) };
    case 'binary': {
      const file = item.filename !== undefined ? { filename: item.filename } : {};
      if (isInlineImageType(item.mimeType) && item.data !== undefined) {
        return { kind: 'image', mimeType: item.mimeType.toLowerCase(), byteLength: item.byteLength, ...file, data: item.data };
      }
      return { kind: 'binary', mimeType: item.mimeType, byteLength: item.byteLength, ...file };
    }
  }
}

/** Keeps the last MAX_ITEMS items, and image bytes only for the newest MAX_KEPT_IMAGE_CHARS. */
export function bound(state: ChatState): ChatState {
  let items = state.items.length > MAX_ITEMS ? state.items.slice(-MAX_ITEMS) : state.items;
  let budget = MAX_KEPT_IMAGE_CHARS;
  let copied = items !== state.items;
  for (let i = items.length - 1; i >= 0; i--) {
    const it = items[i];
    if (it.kind !== 'tool' || !it.result.some((p) => p.kind === 'image' && p.data !== null)) continue;
    let changed = false;
    const result = it.result.map((p) => {
      if (p.kind !== 'image' || p.data === null) return p;
      if (p.data.length <= budget) {
        budget -= p.data.length;
        return p;
      }
      changed = true;
      return { ...p, data: null };
    });
    if (!changed) continue;
    if (!copied) {
      items = items.slice();
      copied = true;
    }
    items[i] = { ...it, result };
  }
  return items === state.items ? state : { ...state, items };
}

export function clip(s: string, max: number): string {
  return cutWithNote(s, max);
}

/** `path: "src/a.ts", line: 3` — one line, at most `max` characters. */
export function summarizeArguments(args: Record<string, unknown>, max = SUMMARY_CHARS): string {
  const line = Object.entries(args).map(([k, v]) => `${k}: ${summarizeValue(v)}`).join(', ');
  return line.length <= max ? line : `${line.slice(0, max - 1)}…`;
}

function summarizeValue(v: unknown): string {
  if (typeof v === 'string') {
    // Only the start can show: fold the spaces of the first 200 characters, not of the whole value.
    const flat = v.slice(0, 200).replace(/\s+/g, ' ').trim();
    return JSON.stringify(flat.length <= 40 ? flat : `${flat.slice(0, 39)}…`);
  }
  if (Array.isArray(v)) return v.length === 0 ? '[]' : `[${v.length} item${v.length === 1 ? '' : 's'}]`;
  if (v !== null && typeof v === 'object') return '{…}';
  return String(v);
}
