/**
 * The full text of tool results too large to send whole, kept so the model can page through them
 * (`ReadToolResult`, `SearchToolResult`). Memory is bounded: a thread keeps at most `perThread`
 * results and `perThreadChars` characters, the oldest going first; at most `threads` threads keep
 * any. A dropped handle answers with a sentence saying it expired, never with silence.
 */
import { randomBytes } from 'node:crypto';

export interface ResultStoreLimits {
  perThread: number;
  perThreadChars: number;
  threads: number;
}

export const DEFAULT_RESULT_STORE_LIMITS: ResultStoreLimits = { perThread: 16, perThreadChars: 8 * 1024 * 1024, threads: 64 };

interface Kept {
  toolName: string;
  text: string;
}

export type Lookup = { ok: true; toolName: string; text: string } | { ok: false; reason: string };

export class ResultStore {
  // Map order doubles as age order, for threads and for the handles within one.
  private readonly threads = new Map<string, Map<string, Kept>>();

  constructor(private readonly limits: ResultStoreLimits = DEFAULT_RESULT_STORE_LIMITS) {}

  /** Keeps `text` for `threadId`; returns its handle. */
  keep(threadId: string, toolName: string, text: string): string {
    let kept = this.threads.get(threadId);
    if (kept) this.threads.delete(threadId);
    else kept = new Map();
    this.threads.set(threadId, kept);
    const handle = `result_${randomBytes(6).toString('hex')}`;
    kept.set(handle, { toolName, text: text.slice(0, this.limits.perThreadChars) });
    let chars = [...kept.values()].reduce((n, k) => n + k.text.length, 0);
    for (const [old, k] of kept) {
      if (kept.size <= this.limits.perThread && chars <= this.limits.perThreadChars) break;
      if (old === handle) break;
      kept.delete(old);
      chars -= k.text.length;
    }
    for (const old of this.threads.keys()) {
      if (this.threads.size <= this.limits.threads) break;
      this.threads.delete(old);
    }
    return handle;
  }

  has(threadId: string): boolean {
    return (this.threads.get(threadId)?.size ?? 0) > 0;
  }

  get(threadId: string, handle: string): Lookup {
    const k = this.threads.get(threadId)?.get(handle);
    if (k) return { ok: true, ...k };
    const known = /^result_[0-9a-f]{12}$/.test(handle);
    return {
      ok: false,
      reason: known
        ? `The result handle "${handle}" has expired: the backend keeps only the ${this.limits.perThread} newest large results of a thread. Run the tool again to see its output.`
        : `There is no result handle "${handle}" in this thread; handles look like "result_" followed by 12 hex digits, as given in a cut tool result.`,
    };
  }

  /** Forgets a thread's results (its history was reset). */
  forget(threadId: string): void {
    this.threads.delete(threadId);
  }
}
