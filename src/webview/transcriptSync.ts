/**
 * What the chat view tells the host of the transcript it shows: the whole transcript once (after a
 * page load, a thread switch or the host's `transcriptResync`), then only what changed since the
 * last one it sent (`transcriptPatch`, src/protocol/webview.ts; the host's copy is
 * src/vscode/chat/transcriptCopy.ts). Items are immutable and keep their ids, so what changed is
 * found by identity: items gone from the start, items replaced, items cut from the end, items added.
 */
import { MAX_TRANSCRIPT_CHARS, type TranscriptPatch } from '../protocol/webview';
import type { ChatItem, ChatState } from './stateSchema';
import { transcriptParts, type TranscriptParts } from './stateJson';

interface Sent extends TranscriptParts {
  threadId: string;
  revision: number;
  /** The state's items it was made from: the same array again means nothing to send. */
  source: readonly ChatItem[];
}

export class TranscriptSync {
  private sent: Sent | undefined;
  /** Each page counts from its own random start, so one page's patch never fits another page's copy. */
  private revision = Math.floor(Math.random() * 2 ** 40);

  constructor(
    private readonly post: (patch: TranscriptPatch) => void,
    private readonly maxChars = MAX_TRANSCRIPT_CHARS,
  ) {}

  /** Whether `state` shows a thread whose transcript changed since it was last sent. */
  pending(state: Pick<ChatState, 'threadId' | 'items'>): boolean {
    return state.threadId !== null && (this.sent?.threadId !== state.threadId || this.sent.source !== state.items);
  }

  /** Sends what changed of `state`'s transcript (the whole transcript when the host has none of it). */
  save(state: ChatState, savedAt: number): void {
    const threadId = state.threadId;
    if (threadId === null || !this.pending(state)) return;
    const parts = transcriptParts(state, this.maxChars);
    const revision = ++this.revision;
    const before = this.sent?.threadId === threadId ? this.sent : undefined;
    const change = before ? changeFrom(before, parts) : undefined;
    this.post(change
      ? { type: 'transcriptPatch', threadId, revision, base: before!.revision, ...change, savedAt }
      : { type: 'transcriptPatch', threadId, revision, base: null, drop: 0, keep: 0, set: [], append: [...parts.texts], rest: parts.rest, savedAt });
    this.sent = { ...parts, threadId, revision, source: state.items };
  }

  /** The host has no usable copy of `threadId`: the next save sends the whole transcript. */
  resync(threadId: string): void {
    if (this.sent?.threadId === threadId) this.sent = undefined;
  }
}

type Change = Pick<TranscriptPatch, 'drop' | 'keep' | 'set' | 'append' | 'rest'>;

/** `next` as a change from `before`; undefined when its first item is not in `before` (send it whole). */
function changeFrom(before: TranscriptParts, next: TranscriptParts): Change | undefined {
  let drop = before.items.length;
  if (next.items.length > 0) {
    const firstId = next.items[0].id;
    drop = before.items.findIndex((it) => it.id === firstId);
    if (drop < 0) return undefined;
  }
  const set: [number, string][] = [];
  let keep = 0;
  for (; keep < next.items.length; keep++) {
    const old = before.items[drop + keep];
    if (old === undefined || old.id !== next.items[keep].id) break;
    if (old !== next.items[keep] && before.texts[drop + keep] !== next.texts[keep]) set.push([keep, next.texts[keep]]);
  }
  return { drop, keep, set, append: next.texts.slice(keep), ...(next.rest !== before.rest ? { rest: next.rest } : {}) };
}
