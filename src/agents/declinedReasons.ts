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
 */

/** One Deny with a reason: the kind of request (ACP's tool kind) and what the user wrote. */
export interface DeclinedRequest {
  kind: string;
  reason: string;
}

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
  reasons: DeclinedRequest[];
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
  private readonly pending: DeclinedRequest[] = [];
  private dropped = 0;

  /** `onChange` gets what to save for the thread (undefined: nothing left to deliver) after each change. */
  constructor(private readonly onChange?: (saved: SavedDeclined | undefined) => void) {}

  /** Keeps a Deny's reason; one that is empty once made one line is not kept (nothing to deliver). */
  add(kind: string, reason: string | undefined): void {
    const text = oneLine(reason ?? '');
    if (text === '') return;
    this.pending.push({ kind: kind.slice(0, MAX_KIND_CHARS), reason: text });
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
  const kept: DeclinedRequest[] = [];
  for (const r of reasons.slice(-MAX_DECLINED_SAVED)) {
    if (typeof r !== 'object' || r === null) continue;
    const { kind, reason } = r as Record<string, unknown>;
    if (typeof kind !== 'string' || typeof reason !== 'string' || reason.length > 4 * MAX_DECLINED_REASON_CHARS) continue;
    const text = oneLine(reason);
    if (text !== '') kept.push({ kind: kind.slice(0, MAX_KIND_CHARS), reason: text });
  }
  if (kept.length === 0) return undefined;
  const counted = typeof earlier === 'number' && Number.isSafeInteger(earlier) && earlier > 0 ? Math.min(earlier, 1_000_000) : 0;
  return { reasons: kept, earlier: counted + Math.max(0, Math.min(reasons.length, 1_000_000) - MAX_DECLINED_SAVED) };
}

/** What the chat shows when saved reasons cannot reach the agent (it started a new session after a reload). */
export function notDeliveredMessage(saved: SavedDeclined): string {
  const lines = saved.reasons.map((d) => `- to ${requestOf(d.kind)}: "${d.reason}"`);
  const more = saved.earlier > 0 ? `\n(and ${saved.earlier} earlier ${saved.earlier === 1 ? 'reason' : 'reasons'})` : '';
  return `The agent started a new session after the window reloaded, so the reasons you gave when denying its requests were not sent (it would not know the requests):\n${lines.join('\n')}${more}`;
}

/** The message: the editor's words around each request's kind and the user's reason, one line each. */
export function declinedMessage(declined: readonly DeclinedRequest[], earlier = 0): string {
  const lines = declined.map((d) => `The user declined your request to ${requestOf(d.kind)}, with this reason: "${d.reason}"`);
  if (earlier > 0) lines.unshift(`(The user declined ${earlier} earlier ${earlier === 1 ? 'request' : 'requests'} with reasons not repeated here.)`);
  return `Sent by the editor, not typed by the user: the user denied ${declined.length + earlier === 1 ? 'a permission request' : 'permission requests'} of yours with a reason, which your tool result did not carry.\n${lines.join('\n')}`;
}

/** The request's kind in the editor's words; a kind the agent made up (an object's own key included) is "use a tool". */
function requestOf(kind: string): string {
  return Object.hasOwn(REQUEST_OF_KIND, kind) ? REQUEST_OF_KIND[kind] as string : REQUEST_OF_KIND.other as string;
}

/** The reason as one line: control, line and bidi characters become spaces, runs of spaces one, capped. */
function oneLine(text: string): string {
  const flat = text.replace(/[\u0000-\u001f\u007f-\u009f\u200b-\u200f\u2028-\u202e\u2066-\u2069\ufeff]/g, ' ').replace(/\s+/g, ' ').trim();
  return flat.length <= MAX_DECLINED_REASON_CHARS ? flat : `${Array.from(flat).slice(0, MAX_DECLINED_REASON_CHARS - 1).join('')}…`;
}
