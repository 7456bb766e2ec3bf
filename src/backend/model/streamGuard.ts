/**
 * The bounds of one model request, whatever the endpoint does: a first-byte time (nothing of the
 * answer arrived since the request), an idle gap (nothing arrived since the last chunk), a total
 * time, and the size of the answer kept (text and tool-call arguments).
 * Past any of them the request is stopped and fails with a coded, retryable `ModelFailure` that
 * names the model and the endpoint; a run that meets it ends with that `runError`.
 *
 * The request gets its own signal, tied to the run's with a listener that is removed when the
 * request ends: the SDK adds a listener of its own to the signal it is given and never removes it,
 * so one signal per run collected one listener per model request.
 */
import { ErrorCode } from '../../protocol';
import { ModelFailure } from './chatModel';

export interface StreamLimits {
  /** Milliseconds from sending the request to the answer's first chunk before the request is stopped. */
  firstByteMs: number;
  /** Milliseconds without anything from the endpoint after a chunk before the request is stopped. */
  idleMs: number;
  /** Milliseconds one request may take from sending to its last chunk. */
  totalMs: number;
  /** UTF-8 bytes of answer (text and tool-call arguments) one request may bring. */
  maxAnswerBytes: number;
}

export const DEFAULT_STREAM_LIMITS: StreamLimits = { firstByteMs: 60_000, idleMs: 30_000, totalMs: 600_000, maxAnswerBytes: 8 * 1024 * 1024 };

export class StreamGuard {
  private readonly controller = new AbortController();
  private idleTimer: NodeJS.Timeout | undefined;
  private readonly totalTimer: NodeJS.Timeout;
  private bytes = 0;
  /** The limit the request met; undefined while it is within them. */
  failure: ModelFailure | undefined;

  constructor(
    private readonly outer: AbortSignal,
    private readonly limits: StreamLimits,
    /** "gpt-4o at https://…", for the sentences. */
    private readonly where: string,
  ) {
    if (outer.aborted) this.controller.abort();
    else outer.addEventListener('abort', this.onOuterAbort, { once: true });
    this.totalTimer = setTimeout(() => this.stop(ErrorCode.ModelTimeout, `${where} did not finish its answer within ${seconds(limits.totalMs)} (the model time limit); the request was stopped. Try again, or ask for a shorter answer.`), limits.totalMs);
    this.totalTimer.unref();
    this.idleTimer = setTimeout(() => this.stop(ErrorCode.ModelTimeout, `No answer from ${where} within ${seconds(limits.firstByteMs)}: the endpoint took the request but sent nothing (the first-byte timeout), so the request was stopped. Is the server running and the model loaded?`, `No answer from ${where} within ${seconds(limits.firstByteMs)}`), limits.firstByteMs);
    this.idleTimer.unref();
  }

  /** The request's own signal: aborted with the run, or at a limit. */
  get signal(): AbortSignal {
    return this.controller.signal;
  }

  /** Something arrived from the endpoint: the idle gap starts again. */
  activity(): void {
    clearTimeout(this.idleTimer);
    this.idleTimer = setTimeout(() => this.stop(ErrorCode.ModelTimeout, `${this.where} stopped answering: nothing arrived for ${seconds(this.limits.idleMs)} (the idle timeout), so the request was stopped. Try again.`, `${this.where} stopped answering for ${seconds(this.limits.idleMs)}`), this.limits.idleMs);
    this.idleTimer.unref();
  }

  /** `text` arrived as answer (text or tool-call arguments); throws the failure past the size limit. */
  grow(text: string): void {
    this.activity();
    this.bytes += Buffer.byteLength(text, 'utf8');
    if (this.bytes <= this.limits.maxAnswerBytes) return;
    this.stop(ErrorCode.LimitExceeded, `${this.where} sent more than ${this.limits.maxAnswerBytes} bytes of answer (text and tool-call arguments) for one request, over the limit; the request was stopped. Try again, or ask for the work in smaller parts.`);
    throw this.failure;
  }

  /** Clears the timers and unties the request from the run's signal. */
  dispose(): void {
    clearTimeout(this.idleTimer);
    clearTimeout(this.totalTimer);
    this.outer.removeEventListener('abort', this.onOuterAbort);
  }

  private readonly onOuterAbort = () => this.controller.abort();

  private stop(code: ErrorCode, message: string, summary?: string): void {
    if (this.failure || this.controller.signal.aborted) return;
    this.failure = new ModelFailure(code, message, true, summary);
    this.dispose();
    this.controller.abort();
  }
}

function seconds(ms: number): string {
  return ms % 1000 === 0 ? `${ms / 1000} s` : `${(ms / 1000).toFixed(1)} s`;
}
