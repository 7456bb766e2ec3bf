/**
 * The reasons the user gave when denying an agent's own permission requests, for the agent's model.
 * ACP's permission outcome has no field for a reason, and the agents that decide in their own shell
 * (Gemini CLI, opencode, Codex) tell their model only that the call was rejected. So the session keeps
 * each reason the user typed with a Deny and delivers them as a message at the agent's turn boundary
 * (agentSession.ts): the next prompt the chat sends on its own when the turn ends, or, after Stop or
 * a failed turn, a block before the user's next message. The message is the editor's fixed words, the
 * kind of request in the editor's words and the user's reason: nothing the agent or its model wrote
 * (a title, a command, an id) is in it, so an agent cannot make the chat say anything of its own.
 * The reasons not yet delivered are kept with the thread's saved state (threadAgents.ts; the latest
 * MAX_DECLINED_SAVED, the others counted), so a window reload between the Deny and the delivery loses
 * none: the session delivers them when the agent continues the thread, or shows them as not sent.
 * An edit the user kept only part of in its permission request (editReview.ts) is told the same way:
 * which hunks of which file (as the editor resolved it) the editor wrote and which it left out.
 */
import type { PartialWrite } from './agentCallbacks';

/** One Deny with a reason: the kind of request (ACP's tool kind) and what the user wrote. */
export interface DeclinedRequest {
  kind: string;
  reason: string;
}

/** Most characters of a file's name in the message. */
const MAX_PATH_CHARS = 500;
/** Most hunk numbers named in a list; the rest are counted. */
const MAX_HUNKS_NAMED = 50;
/** Most hunk numbers a saved partly kept edit may list when read back (a review's hunks are far fewer). */
const MAX_SAVED_HUNKS = 100_000;

/** Most characters of one reason (the prompt's own cap is 1,000). */
export const MAX_DECLINED_REASON_CHARS = 1_000;
/** Most reasons in one message; older ones beyond it are counted, not quoted. */
export const MAX_DECLINED_PER_MESSAGE = 20;
/** Most reasons kept per thread across a reload; older ones are counted, not quoted. */
export const MAX_DECLINED_SAVED = 5;
/** The longest kind kept (ACP's kinds are short words; anything else reads as "use a tool" anyway). */
const MAX_KIND_CHARS = 40;

/** The reasons not yet delivered as the thread's saved state keeps them. */
export interface SavedDeclined {
  /** Deny reasons and partly kept edits (editReview.ts), oldest first. */
  reasons: (DeclinedRequest | PartialWrite)[];
  /** Older reasons not kept, counted in the message. */
  earlier: number;
}

const REQUEST_OF_KIND: Record<string, string> = {
  read: 'read a file',
  edit: 'change a file',
  delete: 'delete a file',
  move: 'move a file',
  search: 'search',
  execute: 'run a command',
  fetch: 'fetch a URL',
  think: 'think',
  switch_mode: 'switch modes',
  other: 'use a tool',
};

/** The reasons not yet delivered, oldest first. */
export class DeclinedReasons {
  private readonly pending: (DeclinedRequest | PartialWrite)[] = [];
  private dropped = 0;

  /** `onChange` gets what to save for the thread (undefined: nothing left to deliver) after each change. */
  constructor(private readonly onChange?: (saved: SavedDeclined | undefined) => void) {}

  /** Keeps a Deny's reason and says whether it did; one that is empty once made one line is not kept (nothing to deliver). */
  add(kind: string, reason: string | undefined): boolean {
    const text = oneLine(reason ?? '');
    if (text === '') return false;
    this.keep({ kind: kind.slice(0, MAX_KIND_CHARS), reason: text });
    return true;
  }

  /** Keeps what the editor wrote of an edit the user kept only part of (always told, with or without a reason). */
  addPartialWrite(write: PartialWrite): void {
    const reason = oneLine(write.reason ?? '');
    this.keep({ path: oneLine(write.path, MAX_PATH_CHARS), kept: [...write.kept], rejected: [...write.rejected], editedByUser: write.editedByUser, ...(reason !== '' ? { reason } : {}) });
  }

  private keep(entry: DeclinedRequest | PartialWrite): void {
    this.pending.push(entry);
    if (this.pending.length > MAX_DECLINED_PER_MESSAGE) {
      this.pending.shift();
      this.dropped++;
    }
    this.onChange?.(this.saved());
  }

  /** Takes back what the thread's saved state kept (after a reload, when the agent continues the thread). */
  restore(saved: SavedDeclined): void {
    this.pending.push(...saved.reasons);
    this.dropped += saved.earlier;
    while (this.pending.length > MAX_DECLINED_PER_MESSAGE) {
      this.pending.shift();
      this.dropped++;
    }
    this.onChange?.(this.saved());
  }

  get waiting(): boolean {
    return this.pending.length > 0;
  }

  /** What to keep with the thread: the latest MAX_DECLINED_SAVED reasons, the others counted; undefined when none. */
  saved(): SavedDeclined | undefined {
    if (this.pending.length === 0) return undefined;
    const kept = this.pending.slice(-MAX_DECLINED_SAVED);
    return { reasons: kept.map((d) => ({ ...d })), earlier: this.dropped + this.pending.length - kept.length };
  }

  /** The message for the agent with every reason kept, and forgets them; undefined when there is none. */
  take(): string | undefined {
    if (this.pending.length === 0) return undefined;
    const message = declinedMessage(this.pending, this.dropped);
    this.pending.length = 0;
    this.dropped = 0;
    this.onChange?.(undefined);
    return message;
  }
}

/** Saved reasons read back, each checked and made one line and capped again; undefined when nothing reads as one. */
export function parseSavedDeclined(value: unknown): SavedDeclined | undefined {
  if (typeof value !== 'object' || value === null) return undefined;
  const { reasons, earlier } = value as Record<string, unknown>;
  if (!Array.isArray(reasons)) return undefined;
  const kept: (DeclinedRequest | PartialWrite)[] = [];
  for (const r of reasons.slice(-MAX_DECLINED_SAVED)) {
    const entry = parseSavedEntry(r);
    if (entry) kept.push(entry);
  }
  if (kept.length === 0) return undefined;
  const counted = typeof earlier === 'number' && Number.isSafeInteger(earlier) && earlier > 0 ? Math.min(earlier, 1_000_000) : 0;
  return { reasons: kept, earlier: counted + Math.max(0, Math.min(reasons.length, 1_000_000) - MAX_DECLINED_SAVED) };
}

/** One saved entry: a Deny's reason, or what the editor wrote of a partly kept edit; undefined when it reads as neither. */
function parseSavedEntry(r: unknown): DeclinedRequest | PartialWrite | undefined {
  if (typeof r !== 'object' || r === null) return undefined;
  const { kind, reason, path, kept, rejected, editedByUser } = r as Record<string, unknown>;
  if (reason !== undefined && (typeof reason !== 'string' || reason.length > 4 * MAX_DECLINED_REASON_CHARS)) return undefined;
  const text = typeof reason === 'string' ? oneLine(reason) : '';
  if (typeof path === 'string') {
    const hunks = (v: unknown): number[] | undefined =>
      Array.isArray(v) && v.length <= MAX_SAVED_HUNKS && v.every((n) => Number.isSafeInteger(n) && (n as number) > 0) ? (v as number[]) : undefined;
    const k = hunks(kept);
    const j = hunks(rejected);
    if (!k || !j || typeof editedByUser !== 'boolean' || path.length > 4 * MAX_PATH_CHARS) return undefined;
    return { path: oneLine(path, MAX_PATH_CHARS), kept: [...k], rejected: [...j], editedByUser, ...(text !== '' ? { reason: text } : {}) };
  }
  if (typeof kind !== 'string' || text === '') return undefined;
  return { kind: kind.slice(0, MAX_KIND_CHARS), reason: text };
}

/** What the chat shows when saved reasons cannot reach the agent (it started a new session after a reload). */
export function notDeliveredMessage(saved: SavedDeclined): string {
  const lines = saved.reasons.map((d) =>
    'path' in d ? `- your review of its change to ${d.path}: the editor wrote ${hunksNamed(d.kept)}${d.rejected.length > 0 ? ` and not ${hunksNamed(d.rejected)}` : ''}${d.reason !== undefined ? `: "${d.reason}"` : ''}` : `- to ${requestOf(d.kind)}: "${d.reason}"`,
  );
  const more = saved.earlier > 0 ? `\n(and ${saved.earlier} earlier ${saved.earlier === 1 ? 'reason' : 'reasons'})` : '';
  return `The agent started a new session after the window reloaded, so the reasons you gave when denying its requests were not sent (it would not know the requests):\n${lines.join('\n')}${more}`;
}

/** The message: the editor's words around each request's kind and the user's reason (or the hunks written), one line each. */
export function declinedMessage(declined: readonly (DeclinedRequest | PartialWrite)[], earlier = 0): string {
  const lines = declined.map((d) => ('path' in d ? partialLine(d) : `The user declined your request to ${requestOf(d.kind)}, with this reason: "${d.reason}"`));
  if (earlier > 0) lines.unshift(`(The user declined ${earlier} earlier ${earlier === 1 ? 'request' : 'requests'} with reasons not repeated here.)`);
  if (declined.some((d) => 'path' in d)) return `Sent by the editor, not typed by the user: what the user decided on your requests, which your tool results did not carry.\n${lines.join('\n')}`;
  return `Sent by the editor, not typed by the user: the user denied ${declined.length + earlier === 1 ? 'a permission request' : 'permission requests'} of yours with a reason, which your tool result did not carry.\n${lines.join('\n')}`;
}

/** The request's kind in the editor's words; a kind the agent made up (an object's own key included) is "use a tool". */
function requestOf(kind: string): string {
  return Object.hasOwn(REQUEST_OF_KIND, kind) ? REQUEST_OF_KIND[kind] as string : REQUEST_OF_KIND.other as string;
}

function partialLine(w: PartialWrite): string {
  const edited = w.editedByUser ? ', as the user edited it' : '';
  const why = w.reason !== undefined ? `, with this reason: "${w.reason}"` : '';
  const what = w.rejected.length === 0 ? `every hunk (${hunksNamed(w.kept)})` : `${hunksNamed(w.kept)} and not ${hunksNamed(w.rejected)}`;
  return `The user reviewed your change to ${w.path} hunk by hunk, so your own write did not happen: the editor wrote ${what}${edited}${why}. The file now holds only what the user kept; read it again before changing it further.`;
}

function hunksNamed(numbers: readonly number[]): string {
  if (numbers.length === 0) return 'no hunk';
  const named = numbers.slice(0, MAX_HUNKS_NAMED).join(', ');
  const more = numbers.length > MAX_HUNKS_NAMED ? ` and ${numbers.length - MAX_HUNKS_NAMED} more` : '';
  return `${numbers.length === 1 ? 'hunk' : 'hunks'} ${named}${more}`;
}

/** The reason as one line: control, line and bidi characters become spaces, runs of spaces one, capped. */
function oneLine(text: string, max = MAX_DECLINED_REASON_CHARS): string {
  const flat = text.replace(/[\u0000-\u001f\u007f-\u009f\u200b-\u200f\u2028-\u202e\u2066-\u2069\ufeff]/g, ' ').replace(/\s+/g, ' ').trim();
  return flat.length <= max ? flat : `${Array.from(flat).slice(0, max - 1).join('')}…`;
}
