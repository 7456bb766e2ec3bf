/**
 * Client tool calls: `ClientInvoker` sends `clientToolInvokeRequest`s to the client of one session
 * and turns what comes back into results. Every call ends: with the client's answer, a timeout, a
 * cancellation, or the disconnection strategy's verdict.
 * - The invoke timeout is paused while the client reports `awaiting-permission` (the person is
 *   reading the prompt) and restarts on every other progress message.
 * - A disconnect is noticed as a disconnect, at once, not as a timeout. Then, per strategy:
 *   `failFast` ends the call with DISCONNECTED; `fallbackMessage` answers the model with the
 *   template text; `retryWithBackoff` waits for the session to be resumed (backoff steps, at most
 *   `maxRetries`) and re-sends the SAME requestId, so the client can answer from its replay store
 *   rather than run the tool twice; `suspend` waits for as long as the session lives and re-sends on
 *   resume.
 */
import { randomUUID } from 'node:crypto';
import type { HelloLimits, ClientToolInvokeRequest, ClientToolInvokeResponse, ClientToolProgress, ProgressStatus, ServerToClient } from '../../protocol';
import { DEFAULT_LIMITS, ErrorCode } from '../../protocol';
import type { ToolCallResult } from '../toolset/serverTools';
import { failure } from '../run/toolCalls';
import type { InvokerOptions } from '../options';

/** The session's side of the connection, whichever socket it is on right now. */
export interface ClientLink {
  readonly connected: boolean;
  /**
   * Sends now, or (for anything but requests) keeps the message for a resume. False when the
   * message cannot fit the client's message limit, so it was not sent.
   */
  send(message: ServerToClient): boolean;
}

export interface ClientCall {
  toolName: string;
  callId: string;
  arguments: Record<string, unknown>;
  threadId?: string;
  /** The run the call belongs to, for the shared call journal (failover). */
  runId?: string;
  description?: string;
  /** This call's invoke timeout instead of the session's `invokeTimeoutMs`. */
  timeoutMs?: number;
}

export type ProgressListener = (status: ProgressStatus, details?: string) => void;

/**
 * Where replicas share the calls in flight (failover/sessionJournal.ts): a call is recorded before its
 * request is sent and settled with its outcome when it ends, so another replica can collect it.
 */
export interface InvokeJournal {
  /** Resolves once the request is recorded; a rejection fails the call before anything is sent. */
  record(request: ClientToolInvokeRequest, call: ClientCall): Promise<void>;
  /** The call ended with this answer (the client's, or the coded one the backend settled on); first wins. */
  settle(response: ClientToolInvokeResponse): void;
}

interface PendingCall {
  requestId: string;
  call: ClientCall;
  onProgress: ProgressListener;
  finish(result: ToolCallResult): void;
  timer?: NodeJS.Timeout;
  backoffTimer?: NodeJS.Timeout;
  /** retryWithBackoff: backoff steps waited plus re-sends made. */
  retries: number;
  disconnected: boolean;
  /** The request went out more than once; a DUPLICATE_REQUEST answer to the copy is not the result. */
  resent: boolean;
  /** When the request last went out: the client remembers its id for its replay window from then on at least. */
  sentAt?: number;
  /** Ends a call waiting for a resume once its request could no longer be re-sent safely. */
  windowTimer?: NodeJS.Timeout;
}

export class ClientInvoker {
  private readonly pending = new Map<string, PendingCall>();
  /** What the client announced in `hello.limits` (its in-flight cap and replay window bind this side too). */
  private clientLimits: Pick<HelloLimits, 'maxInFlight' | 'replayWindowMs'> = { maxInFlight: Number.POSITIVE_INFINITY, replayWindowMs: DEFAULT_LIMITS.replayWindowMs };
  /** Handed over to another replica: calls end here without an outcome in the journal (that replica collects them). */
  private abandoned = false;

  constructor(
    private readonly link: ClientLink,
    private readonly options: InvokerOptions,
    private readonly journal?: InvokeJournal,
    /** Told of every call's end, once, for metrics. */
    private readonly onEnded: (call: ClientCall, result: ToolCallResult) => void = () => {},
  ) {}

  /** Calls still waiting for an answer (the server keeps a detached session with calls). */
  get pendingCount(): number {
    return this.pending.size;
  }

  /** The limits of the client's latest `hello`; apply to calls started and re-sent from now on. */
  setClientLimits(limits: Pick<HelloLimits, 'maxInFlight' | 'replayWindowMs'>): void {
    this.clientLimits = { maxInFlight: limits.maxInFlight, replayWindowMs: limits.replayWindowMs };
  }

  /** The fewer of this backend's own cap and the client's (PROTOCOL.md: neither side is sent more than it takes). */
  private get maxInFlight(): number {
    return Math.min(this.options.maxInFlight, this.clientLimits.maxInFlight);
  }

  /** `signal` undefined: the call can only end by answer, timeout or disconnection strategy. */
  invoke(call: ClientCall, signal: AbortSignal | undefined, onProgress: ProgressListener): Promise<ToolCallResult> {
    if (signal?.aborted) return Promise.resolve(this.ended(call, cancelled(call.toolName)));
    if (this.pending.size >= this.maxInFlight) {
      return Promise.resolve(this.ended(call, failure(ErrorCode.TooManyInFlight, `${this.maxInFlight} client tool calls are already running; ${call.toolName} was not started. Try again after they finish.`)));
    }
    return new Promise<ToolCallResult>((resolve) => {
      const onAbort = () => this.cancel(pc.requestId, 'The run was cancelled.');
      const pc: PendingCall = {
        requestId: `req_${randomUUID()}`,
        call,
        onProgress,
        retries: 0,
        disconnected: false,
        resent: false,
        finish: (result) => {
          if (!this.pending.delete(pc.requestId)) return;
          clearTimeout(pc.timer);
          clearTimeout(pc.backoffTimer);
          clearTimeout(pc.windowTimer);
          signal?.removeEventListener('abort', onAbort);
          if (!this.abandoned) this.journal?.settle(toResponse(pc.requestId, result));
          resolve(this.ended(call, result));
        },
      };
      this.pending.set(pc.requestId, pc);
      signal?.addEventListener('abort', onAbort, { once: true });
      if (!this.journal) return this.start(pc);
      // Recorded before it is sent: a replica that takes the session over must know of every call
      // the client may have run. A call that cannot be recorded is never sent.
      this.journal.record(this.request(pc), call).then(
        () => {
          if (this.pending.get(pc.requestId) === pc) this.start(pc);
        },
        (e: unknown) => pc.finish(failure(ErrorCode.StateUnavailable, `${call.toolName} was not sent: the shared state could not record it (${e instanceof Error ? e.message : String(e)}).`)),
      );
    });
  }

  private ended(call: ClientCall, result: ToolCallResult): ToolCallResult {
    this.onEnded(call, result);
    return result;
  }

  /**
   * Takes over a call another replica sent and did not see end (failover): it waits as if the
   * connection had been lost, so the next `connectionRestored` sends it again with the SAME request
   * id (the client answers a repeated id from its replay cache, never running the tool twice). The
   * promise resolves with its outcome, which is settled in the journal like any other.
   */
  adopt(request: ClientToolInvokeRequest, runId: string | undefined): Promise<ToolCallResult> {
    const existing = this.pending.get(request.requestId);
    if (existing) return new Promise((resolve) => (existing.finish = chain(existing.finish, resolve)));
    const call: ClientCall = {
      toolName: request.toolName,
      callId: request.callId,
      arguments: request.arguments,
      ...(request.threadId ? { threadId: request.threadId } : {}),
      ...(runId ? { runId } : {}),
      ...(request.description ? { description: request.description } : {}),
      ...(request.timeoutMs !== undefined ? { timeoutMs: request.timeoutMs } : {}),
    };
    return new Promise<ToolCallResult>((resolve) => {
      const pc: PendingCall = {
        requestId: request.requestId,
        call,
        onProgress: () => {},
        retries: 0,
        disconnected: true,
        resent: true,
        finish: (result) => {
          if (!this.pending.delete(pc.requestId)) return;
          clearTimeout(pc.timer);
          clearTimeout(pc.backoffTimer);
          clearTimeout(pc.windowTimer);
          if (!this.abandoned) this.journal?.settle(toResponse(pc.requestId, result));
          resolve(this.ended(call, result));
        },
      };
      this.pending.set(pc.requestId, pc);
      if (this.link.connected) this.send(pc);
    });
  }

  /** Follows an adopted call's progress (the run that continues it reports it to the client). */
  onAdoptedProgress(requestId: string, listener: ProgressListener): void {
    const pc = this.pending.get(requestId);
    if (pc) pc.onProgress = listener;
  }

  private start(pc: PendingCall): void {
    if (this.link.connected) this.send(pc);
    else this.lose(pc);
  }

  /** Takes the client's answer; false when no call with that request id is waiting. */
  handleResponse(msg: ClientToolInvokeResponse): boolean {
    const pc = this.pending.get(msg.requestId);
    if (!pc) return false;
    // The copy we re-sent after a reconnect may meet the original still running on the client.
    if (!msg.success && msg.errorCode === ErrorCode.DuplicateRequest && pc.resent) return true;
    pc.finish(fromResponse(pc.call.toolName, msg));
    return true;
  }

  handleProgress(msg: ClientToolProgress): boolean {
    const pc = this.pending.get(msg.requestId);
    if (!pc) return false;
    if (msg.status === 'awaiting-permission') clearTimeout(pc.timer);
    else this.arm(pc);
    pc.onProgress(msg.status, msg.details);
    return true;
  }

  /** Ends a call whose answer could not be decoded (the client was told with an `error` message). */
  failRequest(requestId: string, code: string, message: string): boolean {
    const pc = this.pending.get(requestId);
    if (!pc) return false;
    pc.finish(failure(code, `The editor's answer for ${pc.call.toolName} could not be read: ${message}`));
    return true;
  }

  cancel(requestId: string, reason: string): void {
    const pc = this.pending.get(requestId);
    if (!pc) return;
    // While the client is away the session keeps the cancel and delivers it on resume.
    this.link.send({ type: 'clientToolCancel', requestId, reason });
    pc.finish(cancelled(pc.call.toolName));
  }

  connectionLost(): void {
    for (const pc of [...this.pending.values()]) if (!pc.disconnected) this.lose(pc);
  }

  connectionRestored(): void {
    for (const pc of [...this.pending.values()]) {
      if (!pc.disconnected) continue;
      clearTimeout(pc.backoffTimer);
      clearTimeout(pc.windowTimer);
      if (this.pastReplayWindow(pc)) {
        pc.finish(notResent(pc.call.toolName));
        continue;
      }
      if (this.options.disconnectStrategy === 'retryWithBackoff') pc.retries++;
      pc.resent = true;
      this.send(pc);
    }
  }

  /** Another replica took the session over: every call ends here, its journal entry left for that replica. */
  abandon(): void {
    this.abandoned = true;
    this.shutdown(ErrorCode.Disconnected, 'the session moved to another backend replica');
  }

  /** Ends every call (the session is gone). */
  shutdown(code: string, message: string): void {
    for (const pc of [...this.pending.values()]) pc.finish(failure(code, `${pc.call.toolName}: ${message}`));
  }

  private send(pc: PendingCall): void {
    pc.disconnected = false;
    if (!this.link.send(this.request(pc))) {
      pc.finish(failure(ErrorCode.MessageTooLarge, `${pc.call.toolName} was not sent: its request is larger than the editor accepts (hello.limits.maxMessageBytes or maxJsonBytes). Use smaller arguments.`));
      return;
    }
    pc.sentAt = Date.now();
    this.arm(pc);
  }

  /**
   * A request sent longer ago than the client's replay window may have been answered and forgotten
   * by now: sending it again could run the tool twice. Never sent (recorded while disconnected): nothing to fear.
   */
  private pastReplayWindow(pc: PendingCall): boolean {
    return pc.sentAt !== undefined && Date.now() - pc.sentAt >= this.clientLimits.replayWindowMs;
  }

  private request(pc: PendingCall): ClientToolInvokeRequest {
    const { call } = pc;
    return {
      type: 'clientToolInvokeRequest',
      requestId: pc.requestId,
      toolName: call.toolName,
      callId: call.callId,
      arguments: call.arguments,
      ...(call.description ? { description: call.description } : {}),
      ...(call.threadId ? { threadId: call.threadId } : {}),
      timeoutMs: this.timeoutOf(pc),
    };
  }

  private timeoutOf(pc: PendingCall): number {
    return pc.call.timeoutMs ?? this.options.invokeTimeoutMs;
  }

  /** (Re)starts the invoke timeout. */
  private arm(pc: PendingCall): void {
    clearTimeout(pc.timer);
    const timeoutMs = this.timeoutOf(pc);
    pc.timer = setTimeout(() => {
      this.link.send({ type: 'clientToolCancel', requestId: pc.requestId, reason: 'timed out' });
      pc.finish({
        outcome: 'timedOut',
        content: [],
        errorCode: ErrorCode.Timeout,
        errorMessage: `${pc.call.toolName} did not answer within ${formatSeconds(timeoutMs)}.`,
      });
    }, timeoutMs);
  }

  /** The client is not there for this call: apply the disconnection strategy. */
  private lose(pc: PendingCall): void {
    clearTimeout(pc.timer);
    pc.disconnected = true;
    const tool = pc.call.toolName;
    if (pc.sentAt !== undefined && (this.options.disconnectStrategy === 'retryWithBackoff' || this.options.disconnectStrategy === 'suspend')) {
      clearTimeout(pc.windowTimer);
      pc.windowTimer = setTimeout(() => pc.finish(notResent(tool)), Math.max(0, pc.sentAt + this.clientLimits.replayWindowMs - Date.now()));
    }
    switch (this.options.disconnectStrategy) {
      case 'failFast':
        pc.finish(failure(ErrorCode.Disconnected, `The editor disconnected while ${tool} was running; the call was abandoned.`));
        return;
      case 'fallbackMessage': {
        const text = this.options.fallbackMessageTemplate.split('{toolName}').join(tool);
        pc.finish({ outcome: 'failed', content: [{ type: 'text', text }], errorCode: ErrorCode.Disconnected, errorMessage: text.slice(0, 10_000) });
        return;
      }
      case 'retryWithBackoff':
        this.backoff(pc);
        return;
      case 'suspend':
        pc.onProgress('progress', `Suspended: waiting for the editor to reconnect to finish ${tool}.`);
        return;
    }
  }

  private backoff(pc: PendingCall): void {
    const { maxRetries, retryBaseDelayMs, retryMaxDelayMs } = this.options;
    if (pc.retries >= maxRetries) {
      pc.finish(failure(ErrorCode.Disconnected, `The editor disconnected while ${pc.call.toolName} was running and did not come back after ${maxRetries} retries.`));
      return;
    }
    const delay = Math.min(retryBaseDelayMs * 2 ** pc.retries, retryMaxDelayMs);
    pc.onProgress('progress', `The editor disconnected; waiting up to ${formatSeconds(delay)} for it to reconnect (retry ${pc.retries + 1} of ${maxRetries}).`);
    pc.backoffTimer = setTimeout(() => {
      pc.retries++;
      this.backoff(pc);
    }, delay);
  }
}

function notResent(toolName: string): ToolCallResult {
  return failure(ErrorCode.Disconnected, `The editor disconnected while ${toolName} was running and did not come back within its replay window; the request is not sent again, so the tool cannot run twice.`);
}

function cancelled(toolName: string): ToolCallResult {
  return { outcome: 'cancelled', content: [], errorCode: ErrorCode.Cancelled, errorMessage: `${toolName} was cancelled.` };
}

/** Maps the client's answer; PERMISSION_DENIED and SKIPPED become the denied and skipped outcomes. */
function fromResponse(toolName: string, msg: ClientToolInvokeResponse): ToolCallResult {
  const extra = msg.augmentation ? { augmentation: msg.augmentation } : {};
  // The extension answers a skip as success with errorCode SKIPPED (nothing failed; the model goes on).
  if (msg.success && msg.errorCode === ErrorCode.Skipped) {
    const said = msg.content.find((c) => c.type === 'text');
    const errorMessage = msg.errorMessage ?? (said?.type === 'text' ? said.text : `The user skipped ${toolName}.`);
    return { outcome: 'skipped', content: msg.content, errorCode: ErrorCode.Skipped, errorMessage, ...extra };
  }
  if (msg.success) return { outcome: 'succeeded', content: msg.content, ...extra };
  const code = msg.errorCode ?? ErrorCode.ToolFailed;
  const outcome =
    code === ErrorCode.PermissionDenied ? 'denied'
    : code === ErrorCode.Skipped ? 'skipped'
    : code === ErrorCode.Timeout ? 'timedOut'
    : code === ErrorCode.Cancelled ? 'cancelled'
    : 'failed';
  const fallback =
    outcome === 'denied' ? `The user denied permission to run ${toolName}.`
    : outcome === 'skipped' ? `The user skipped ${toolName}.`
    : `${toolName} failed.`;
  return { outcome, content: msg.content, errorCode: code, errorMessage: msg.errorMessage ?? fallback, ...extra };
}

/** A result as the answer it stands for, so the journal keeps one shape: the client's own answers and the backend's verdicts alike. */
export function toResponse(requestId: string, r: ToolCallResult): ClientToolInvokeResponse {
  const success = r.outcome === 'succeeded' || r.outcome === 'skipped';
  return {
    type: 'clientToolInvokeResponse',
    requestId,
    success,
    content: r.content,
    ...(r.outcome !== 'succeeded' ? { errorCode: r.errorCode ?? ErrorCode.ToolFailed } : {}),
    ...(r.errorMessage !== undefined ? { errorMessage: r.errorMessage } : {}),
    ...(r.augmentation ? { augmentation: r.augmentation } : {}),
  };
}

/** The result an answer means (the journal's outcomes are answers). */
export function resultOf(toolName: string, response: ClientToolInvokeResponse): ToolCallResult {
  return fromResponse(toolName, response);
}

function chain<T>(first: (value: T) => void, then: (value: T) => void): (value: T) => void {
  return (value) => {
    first(value);
    then(value);
  };
}

function formatSeconds(ms: number): string {
  return ms % 1000 === 0 ? `${ms / 1000} s` : `${(ms / 1000).toFixed(1)} s`;
}
