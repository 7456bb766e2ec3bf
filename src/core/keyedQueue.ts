/**
 * Runs tasks one at a time per key (for example one diff review per file), in arrival order.
 * Different keys run independently. A task still waiting for its turn leaves the queue when its
 * signal aborts, without running.
 */
import { CodedError, ErrorCode, isCodedError } from '../protocol';

export class KeyedQueue {
  /** The last task queued per key; a new task waits for it. */
  private readonly tails = new Map<string, Promise<void>>();

  /** How many tasks for `key` are running or waiting. */
  size(key: string): number {
    return this.counts.get(key) ?? 0;
  }

  private readonly counts = new Map<string, number>();

  /**
   * Runs `task` once every earlier task for `key` has settled. `onWait` is called (once) when the
   * task has to wait. Rejects with the signal's reason (or CANCELLED) when aborted while waiting.
   */
  async run<T>(key: string, signal: AbortSignal, task: () => Promise<T>, onWait?: () => void): Promise<T> {
    if (signal.aborted) throw reasonOf(signal);
    const previous = this.tails.get(key) ?? Promise.resolve();
    let release = () => {};
    const done = new Promise<void>((resolve) => (release = resolve));
    // The next task waits for this one and, through it, for everything before it.
    const tail = previous.then(() => done);
    this.tails.set(key, tail);
    this.counts.set(key, (this.counts.get(key) ?? 0) + 1);
    try {
      if (this.counts.get(key)! > 1) {
        onWait?.();
        await waitOrAbort(previous, signal);
      }
      return await task();
    } finally {
      release();
      const left = (this.counts.get(key) ?? 1) - 1;
      if (left === 0) this.counts.delete(key);
      else this.counts.set(key, left);
      if (this.tails.get(key) === tail) this.tails.delete(key);
    }
  }
}

function waitOrAbort(previous: Promise<void>, signal: AbortSignal): Promise<void> {
  if (signal.aborted) return Promise.reject(reasonOf(signal));
  return new Promise<void>((resolve, reject) => {
    const onAbort = () => reject(reasonOf(signal));
    signal.addEventListener('abort', onAbort, { once: true });
    void previous.then(() => {
      signal.removeEventListener('abort', onAbort);
      resolve();
    });
  });
}

function reasonOf(signal: AbortSignal): Error {
  const reason: unknown = signal.reason;
  return isCodedError(reason) ? reason : new CodedError(ErrorCode.Cancelled, 'the call was cancelled');
}
