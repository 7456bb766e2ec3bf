/**
 * The dispatcher's memory of answered request ids, so a request replayed after a reconnect gets its
 * stored answer instead of running the tool twice (a replayed delete must not delete twice).
 *
 * Two tiers with their own bounds: whole answers (few, and bounded in bytes, since a result can be
 * megabytes) and bare ids (many, small). An id whose answer was dropped is still known for longer,
 * so its replay is refused (DUPLICATE_REQUEST) rather than run again. Both expire after the replay
 * window. Calls still running are not here: the dispatcher keeps those.
 */
import type { ClientToolInvokeResponse } from '../protocol';

export interface ReplayLimits {
  /** How long an answered request id is remembered. */
  replayWindowMs: number;
  /** Answers kept whole for replay; older ones keep only their id (a replay then gets DUPLICATE_REQUEST). */
  replayMaxAnswers: number;
  /** Total bytes of answers kept whole for replay. */
  replayMaxBytes: number;
  /** Answered ids remembered at all within the window. */
  replayMaxIds: number;
}

/** What the cache knows of an id: its whole answer, only that it was answered, or nothing. */
export type Replay =
  | { kind: 'answer'; toolName: string; response: ClientToolInvokeResponse }
  | { kind: 'answeredOnly'; toolName: string }
  | undefined;

interface AnsweredId {
  id: string;
  toolName: string;
  at: number;
}

interface Answer extends AnsweredId {
  response: ClientToolInvokeResponse;
  bytes: number;
}

export class ReplayCache {
  /** Answered ids with the whole answer while it is kept. */
  private readonly answers = new Map<string, Answer>();
  private readonly answeredIds = new Map<string, AnsweredId>();
  /** The same entries, oldest first, for expiry (an entry no longer in its map is skipped). */
  private readonly answerOrder = new Fifo<Answer>();
  private readonly answeredIdOrder = new Fifo<AnsweredId>();
  private answerBytes = 0;

  /**
   * @param limits read at every expiry, so a caller that changes the object (new settings) changes the cache's bounds
   * @param now the clock entries are stamped and expired with
   */
  constructor(
    private readonly limits: Readonly<ReplayLimits>,
    private readonly now: () => number,
  ) {}

  /** What is known of `id` now; expired and over-budget entries are dropped first. */
  lookup(id: string): Replay {
    this.expire();
    const answer = this.answers.get(id);
    if (answer) return { kind: 'answer', toolName: answer.toolName, response: answer.response };
    const answered = this.answeredIds.get(id);
    return answered && { kind: 'answeredOnly', toolName: answered.toolName };
  }

  /** Whether `id` was answered (whole answer or id only), without expiring anything first. */
  has(id: string): boolean {
    return this.answers.has(id) || this.answeredIds.has(id);
  }

  /**
   * Stores a call's answer.
   * @param bytes the answer's size, counted against `replayMaxBytes`
   */
  remember(id: string, toolName: string, response: ClientToolInvokeResponse, bytes: number): void {
    const at = this.now();
    const answer: Answer = { id, toolName, response, at, bytes };
    const answered: AnsweredId = { id, toolName, at };
    // An id answered again replaces its answer; the old one's bytes must not stay counted.
    const previous = this.answers.get(id);
    if (previous) this.answerBytes -= previous.bytes;
    this.answers.set(id, answer);
    this.answerOrder.push(answer);
    this.answeredIds.set(id, answered);
    this.answeredIdOrder.push(answered);
    this.answerBytes += bytes;
    this.expire();
  }

  /** Forgets everything (a new session: the backend no longer knows earlier ids). */
  clear(): void {
    this.answers.clear();
    this.answeredIds.clear();
    this.answerOrder.clear();
    this.answeredIdOrder.clear();
    this.answerBytes = 0;
  }

  /** Whole answers kept now, and their bytes (for tests and figures). */
  get kept(): { answers: number; bytes: number; ids: number } {
    return { answers: this.answers.size, bytes: this.answerBytes, ids: this.answeredIds.size };
  }

  private expire(): void {
    const cutoff = this.now() - this.limits.replayWindowMs;
    for (let a = this.answerOrder.peek(); a; a = this.answerOrder.peek()) {
      if (this.answers.get(a.id) === a) {
        const overBudget = this.answers.size > this.limits.replayMaxAnswers || this.answerBytes > this.limits.replayMaxBytes;
        if (a.at > cutoff && !overBudget) break;
        this.answers.delete(a.id);
        this.answerBytes -= a.bytes;
      }
      this.answerOrder.shift();
    }
    for (let a = this.answeredIdOrder.peek(); a; a = this.answeredIdOrder.peek()) {
      if (this.answeredIds.get(a.id) === a) {
        if (a.at > cutoff && this.answeredIds.size <= this.limits.replayMaxIds) break;
        this.answeredIds.delete(a.id);
      }
      this.answeredIdOrder.shift();
    }
  }
}

/**
 * Entries in insertion order with O(1) removal of the oldest. The replay cache expires from its
 * oldest end on every call; finding that end by iterating a Map walks over every entry deleted
 * since V8 last compacted the Map, which made expiry the dispatcher's hottest line.
 */
class Fifo<T> {
  private items: (T | undefined)[] = [];
  private head = 0;

  push(item: T): void {
    this.items.push(item);
  }

  peek(): T | undefined {
    return this.items[this.head];
  }

  shift(): void {
    this.items[this.head++] = undefined;
    if (this.head >= 1024 && this.head * 2 >= this.items.length) {
      this.items = this.items.slice(this.head);
      this.head = 0;
    }
  }

  clear(): void {
    this.items = [];
    this.head = 0;
  }
}
