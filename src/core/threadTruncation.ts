/**
 * Rewind's request to the backend (`truncateThread`): one at a time per thread, settled by the
 * backend's `threadTruncated` or by an `error` about that thread or run (RUN_BUSY, NOT_FOUND, …),
 * and given up when the connection stops or no answer comes in time, so a rewind never hangs.
 */
import { CodedError, ErrorCode, type ErrorMessage, type ServerToClient } from '../protocol';
import type { Timers } from './timers';

type ThreadTruncated = Extract<ServerToClient, { type: 'threadTruncated' }>;

interface Pending {
  runId: string;
  resolve(messages: number): void;
  reject(error: CodedError): void;
  timer: unknown;
}

/** How long a rewind waits for the backend's answer. */
export const TRUNCATE_TIMEOUT_MS = 30_000;

export class TruncationRequests {
  private readonly pending = new Map<string, Pending>();

  constructor(
    private readonly timers: Timers,
    private readonly timeoutMs = TRUNCATE_TIMEOUT_MS,
  ) {}

  /** Sends with `send` (which may throw) and resolves with the number of messages the backend dropped. */
  request(threadId: string, runId: string, send: () => void): Promise<number> {
    if (this.pending.has(threadId)) return Promise.reject(new CodedError(ErrorCode.RunBusy, 'This conversation is already being rewound.', threadId));
    try {
      send();
    } catch (e) {
      return Promise.reject(e instanceof Error ? e : new Error(String(e)));
    }
    return new Promise<number>((resolve, reject) => {
      const timer = this.timers.setTimeout(() => this.settle(threadId, new CodedError(ErrorCode.Timeout, `The backend did not answer the rewind within ${Math.round(this.timeoutMs / 1000)} s.`, threadId)), this.timeoutMs);
      this.pending.set(threadId, { runId, resolve, reject, timer });
    });
  }

  /** The backend's answer; false when no rewind of that thread and run waits for it. */
  truncated(message: ThreadTruncated): boolean {
    const p = this.pending.get(message.threadId);
    if (p?.runId !== message.runId) return false;
    this.settle(message.threadId, message.messages);
    return true;
  }

  /** An `error` that names a thread or run being rewound ends that rewind with its code. */
  error(message: ErrorMessage): boolean {
    for (const [threadId, p] of this.pending) {
      if (message.relatedId !== threadId && message.relatedId !== p.runId) continue;
      this.settle(threadId, new CodedError(message.code as ErrorCode, message.message, message.relatedId));
      return true;
    }
    return false;
  }

  /** The connection stopped: every rewind waiting ends with DISCONNECTED. */
  failAll(reason: string): void {
    for (const threadId of [...this.pending.keys()]) this.settle(threadId, new CodedError(ErrorCode.Disconnected, reason, threadId));
  }

  private settle(threadId: string, outcome: number | CodedError): void {
    const p = this.pending.get(threadId);
    if (!p) return;
    this.pending.delete(threadId);
    this.timers.clearTimeout(p.timer);
    if (typeof outcome === 'number') p.resolve(outcome);
    else p.reject(outcome);
  }
}
