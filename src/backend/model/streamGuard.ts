/**
 * The bounds of one model request, whatever the endpoint does: an idle gap (nothing arrived, from
 * the request on), a total time, and the size of the answer kept (text and tool-call arguments).
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
  /** Milliseconds without anything from the endpoint (before the first chunk too) before the request is stopped. */
  idleMs: number;
  /** Milliseconds one request may take from sending to its last chunk. */
  totalMs: number;
  /** UTF-8 bytes of answer (text and tool-call arguments) one request may bring. */
  maxAnswerBytes: number;
}

export const DEFAULT_STREAM_LIMITS: StreamLimits = { idleMs: 120_000, totalMs: 600_000, maxAnswerBytes: 8 * 1024 * 1024 };

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
    this.activity();
  }

  /** The request's own signal: aborted with the run, or at a limit. */
  get signal(): AbortSignal {
    return this.controller.signal;
  }

  /** Something arrived from the endpoint: the idle gap starts again. */
  activity(): void {
    clearTimeout(this.idleTimer);
    this.idleTimer = setTimeout(() => this.stop(ErrorCode.ModelTimeout, `No answer from ${this.where} within ${seconds(this.limits.idleMs)}: the endpoint sent nothing for that long, so the request was stopped. Try again.`), this.limits.idleMs);
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

  private stop(code: ErrorCode, message: string): void {
    if (this.failure || this.controller.signal.aborted) return;
    this.failure = new ModelFailure(code, message, true);
    this.dispose();
    this.controller.abort();
  }
}

function seconds(ms: number): string {
  return ms % 1000 === 0 ? `${ms / 1000} s` : `${(ms / 1000).toFixed(1)} s`;
}
