/**
 * Runs `clientToolInvokeRequest`s and answers each exactly once.
 *
 * Order of checks for a request: an id already answered gets the stored answer again (the tool does
 * not run twice, so a replay after a reconnect cannot delete twice); an id still running gets
 * DUPLICATE_REQUEST; past the in-flight cap, or while more than `maxBacklogBytes` of answers wait
 * unread in the socket (the backend stopped reading), TOO_MANY_IN_FLIGHT; then the registry (UNKNOWN_TOOL,
 * TOOL_HIDDEN, TOOL_DISABLED / WORKSPACE_UNTRUSTED), the argument schema (INVALID_ARGUMENTS naming the
 * field), the tool's `prepare` (path checks, before any prompt), the consent module's decision (from the
 * local definition only), and finally `run`, with progress, cancellation, a run-time cap and a result-size
 * cap.
 *
 * Answers that cannot be sent because the socket is down are kept and sent again when the session
 * is resumed; a new session drops them (the backend no longer knows those ids).
 */
import {
  CodedError,
  isCodedError,
  DEFAULT_LIMITS,
  ErrorCode,
  Schemas,
  type ClientToolCancel,
  type ClientToolInvokeRequest,
  type ClientToolInvokeResponse,
  type ClientToolProgress,
  type ClientToServer,
  type DecodeError,
  type ProgressStatus,
} from '../protocol';
import { endedRecord, isFinalStatus, newRecordId, oneLine, pendingRecord, refusedRecord, targetFromArguments, withoutUndefined, RECORD_STATUS, type CallOutcome as Outcome, type CallRecord } from './callRecord';
import { Emitter, type Disposable, type Event } from '../base/events';
import { permissionOnRecord, USER_RUN_CALLER, type BackgroundRefusal, type CallConsent, type Caller, type Consent, type ConsentDecision } from './consent/consent';
import type { IdeHost } from './host';
import type { EditableArgument } from './consent/presenter';
import { silentLogger, type Logger } from '../base/logger';
import { nextTurn } from '../base/nextTurn';
import { resolveWorkspacePath, type ResolvedPath } from './paths';
import type { ToolRegistry } from './registry';
import { ReplayCache, type ReplayLimits } from './replayCache';
import { editableOf, editedArguments, editedPreparation, refusedEdit, withEditNote, type CallEdit } from './editedCall';
import type { ClientTool, Preparation, ToolContext, ToolResult } from './tool';
import { systemTimers, type Timers } from './timers';
import { recordingHost, type RecordedWrite } from './recordingHost';
import { contentBytes, declinedResponse, errorResponse, mapError } from './toolAnswers';

/** Sends a message; returns false when it could not be handed to an open socket. */
export type SendFunction = (message: ClientToServer, onSent?: (error?: Error) => void) => boolean;

export interface DispatcherLimits extends ReplayLimits {
  /** Calls running at once (including those waiting for permission). */
  maxInFlight: number;
  /** Largest result, in bytes (binary bytes plus the JSON of text and json items). */
  maxResultBytes: number;
  /** How often a running (or waiting) call reports progress, which also keeps the backend's timeout at bay. */
  progressIntervalMs: number;
  /** A tool still running after this long is aborted and answered TIMEOUT (permission wait not counted). */
  maxRunMs: number;
  /** New calls are refused with TOO_MANY_IN_FLIGHT while more than this many bytes wait unread in the socket. */
  maxBacklogBytes: number;
}

export const DEFAULT_DISPATCHER_LIMITS: DispatcherLimits = {
  maxInFlight: DEFAULT_LIMITS.maxInFlight,
  maxResultBytes: DEFAULT_LIMITS.maxResultBytes,
  replayWindowMs: DEFAULT_LIMITS.replayWindowMs,
  replayMaxAnswers: 256,
  replayMaxBytes: 64 * 1024 * 1024,
  replayMaxIds: 10_000,
  progressIntervalMs: 5_000,
  maxRunMs: 10 * 60_000,
  maxBacklogBytes: 8 * 1024 * 1024,
};

export interface DispatcherOptions {
  registry: ToolRegistry;
  /** Decides whether each call may run and asks the user when it must (src/core/consent/). */
  consent: Consent;
  host: IdeHost;
  send: SendFunction;
  logger?: Logger;
  limits?: Partial<DispatcherLimits>;
  timers?: Timers;
  /** Bytes sent but not yet taken by the backend (the socket's `bufferedAmount`); 0 when unknown. */
  backlog?: () => number;
  /** Told of every file a call writes, creates or deletes (the run's change list, src/core/recordingHost.ts). */
  onFileWritten?: (write: RecordedWrite, call: { recordId: string; threadId: string | undefined; startedAt: number }) => void;
}

/**
 * What a tool may return. Built once: zod compiles a fast path per schema object on first use,
 * so a schema derived inside the call (`.pick()` per result) paid that compilation on every call.
 */
const TOOL_RESULT = Schemas.Messages.ClientToolInvokeResponse.pick({ content: true, augmentation: true });
/** A result larger than this is answered in a turn after the one that checked it: checking it and encoding it are each a pass over all of it. */
export const ANSWER_IN_OWN_TURN_BYTES = 1024 * 1024;


interface Call {
  requestId: string;
  /** The extension's own id of this call (`CallRecord.recordId`). */
  recordId: string;
  toolName: string;
  startedAt: number;
  /**
   * Made on first use (the tool reads `ctx.signal`, a prompt opens): building an AbortSignal costs
   * more than the rest of a quick call, and most calls never need one.
   */
  controller: AbortController | undefined;
  /** Why the call was aborted, once it was; a signal made later starts aborted with it. */
  abortedBy: CodedError | undefined;
  /** Rejects the tool's promise the dispatcher is waiting on now (see raceAbort). */
  onAbort: (() => void) | undefined;
  ended: boolean;
  status: ProgressStatus | undefined;
  ticker: unknown;
  runTimer: unknown;
  /** Who carries it and what it is subject to (src/core/consent/consent.ts), fixed when it arrived. */
  consent: CallConsent;
  /** The chat's record of the call; made once the tool and its arguments are known to be valid. */
  record: CallRecord | undefined;
  /** Stops listening for the end of the caller's lifetime. */
  detachCaller: Disposable | undefined;
}

export class Dispatcher implements Disposable {
  private readonly limits: DispatcherLimits;
  private readonly logger: Logger;
  private readonly timers: Timers;
  /** Calls not yet settled (the slot is held until the tool's promise settles, even after an early answer). */
  private readonly calls = new Map<string, Call>();
  /** Answered ids, with the whole answer while it is kept, so a replay does not run a tool twice. */
  private readonly replays: ReplayCache;
  /** Answers the socket did not take, in order; sent again when the session resumes. */
  private readonly unsent = new Map<string, ClientToolInvokeResponse>();
  /** Set from `welcome`: the backend refuses messages larger than this. */
  private peerMaxMessageBytes = DEFAULT_LIMITS.maxMessageBytes;
  private readonly callRecordEmitter = new Emitter<CallRecord>();
  /**
   * Every change of every call the dispatcher executes (a copy each time): pending, awaiting
   * permission, running, and how it ended. A call refused before it could run (an unknown, hidden
   * or disabled tool, invalid arguments, the in-flight cap, a request that could not be decoded) is
   * recorded too, once, as failed and `refused`: the chat shows every call the backend asked for.
   * A copy of a request the dispatcher has (DUPLICATE_REQUEST, a replayed answer) adds none.
   */
  readonly onCallRecord: Event<CallRecord> = this.callRecordEmitter.event;

  constructor(private readonly options: DispatcherOptions) {
    this.limits = { ...DEFAULT_DISPATCHER_LIMITS, ...options.limits };
    this.logger = options.logger ?? silentLogger;
    this.timers = options.timers ?? systemTimers;
    // The cache reads this.limits itself, so setLimits reaches it too.
    this.replays = new ReplayCache(this.limits, () => this.timers.now());
  }

  get inFlight(): number {
    return this.calls.size;
  }

  /** New limits (settings changed); calls already running keep the limits they started with. */
  setLimits(limits: Partial<DispatcherLimits>): void {
    Object.assign(this.limits, limits);
  }

  get unsentCount(): number {
    return this.unsent.size;
  }

  setPeerMaxMessageBytes(bytes: number): void {
    this.peerMaxMessageBytes = bytes;
  }

  /**
   * Runs a request for `caller`: who carries it, whether a run the user started does, and how long
   * it is there (when its lifetime ends the call is cancelled: an open prompt closes, an Allow
   * clicked later runs nothing). Without one, a call of the backend within the user's run.
   * `binding`: the action the call is about, when its caller asks about the same one elsewhere
   * (`ConsentAsk.binding`): the user answers both once.
   */
  handleInvoke(request: ClientToolInvokeRequest, caller: Caller = USER_RUN_CALLER, binding?: string): void {
    const id = request.requestId;
    const stored = this.replays.lookup(id);
    if (stored?.kind === 'answer') {
      if (stored.toolName !== request.toolName) {
        this.sendNow(errorResponse(id, ErrorCode.DuplicateRequest, `request id ${id} was already used for ${stored.toolName}; not run`));
      } else {
        this.logger.info('replayed request answered from the stored answer; tool not run again', { requestId: id, tool: request.toolName });
        this.deliver(stored.response);
      }
      return;
    }
    if (stored?.kind === 'answeredOnly') {
      this.sendNow(errorResponse(id, ErrorCode.DuplicateRequest, `request ${id} was answered already and is not run again; its answer is no longer kept`));
      return;
    }
    if (this.calls.has(id)) {
      this.sendNow(errorResponse(id, ErrorCode.DuplicateRequest, `request ${id} is running already; its answer will follow`));
      return;
    }
    if (this.calls.size >= this.limits.maxInFlight) {
      this.logger.warn('too many calls in flight; refused', { requestId: id, tool: request.toolName, inFlight: this.calls.size });
      this.refuseNow(request, caller, errorResponse(id, ErrorCode.TooManyInFlight, `${this.calls.size} client tool calls are running already (limit ${this.limits.maxInFlight}); retry later`));
      return;
    }
    const backlog = this.options.backlog?.() ?? 0;
    if (backlog > this.limits.maxBacklogBytes) {
      this.logger.warn('the backend is not reading its answers; refused', { requestId: id, tool: request.toolName, backlogBytes: backlog });
      this.refuseNow(request, caller, errorResponse(id, ErrorCode.TooManyInFlight, `the backend is not reading: ${backlog} bytes of answers wait to be sent (limit ${this.limits.maxBacklogBytes}); retry later`));
      return;
    }
    const call: Call = {
      requestId: id,
      recordId: newRecordId(),
      toolName: request.toolName,
      startedAt: this.timers.now(),
      controller: undefined,
      abortedBy: undefined,
      onAbort: undefined,
      ended: false,
      status: undefined,
      ticker: undefined,
      runTimer: undefined,
      consent: this.options.consent.admit(caller, binding),
      record: undefined,
      detachCaller: undefined,
    };
    this.calls.set(id, call);
    if (caller.lifetime) call.detachCaller = caller.lifetime.onEnd((reason) => this.abortCall(call, reason.code, reason.message));
    if (call.ended) {
      this.calls.delete(id);
      return;
    }
    void this.execute(call, request);
  }

  handleCancel(message: ClientToolCancel): void {
    const call = this.calls.get(message.requestId);
    if (!call || call.ended) {
      this.logger.info('cancel for a request that is not running; ignored', { requestId: message.requestId });
      return;
    }
    const reason = message.reason ? `cancelled by the backend: ${message.reason}` : 'cancelled by the backend';
    this.abortCall(call, ErrorCode.Cancelled, reason);
  }

  /**
   * A message that failed to decode. When it was a tool request with a readable id that is not
   * running or answered, the backend gets an error answer for it so the call does not hang.
   */
  handleDecodeError(error: DecodeError): void {
    const id = error.relatedId;
    if (error.messageType !== 'clientToolInvokeRequest' || id === undefined || !Schemas.Messages.ClientToolInvokeResponse.shape.requestId.safeParse(id).success) return;
    if (this.calls.has(id) || this.replays.has(id)) {
      this.logger.warn('malformed copy of a known request ignored', { requestId: id, code: error.code });
      return;
    }
    const response = errorResponse(id, error.code, error.message);
    this.sendNow(response);
    const callId = error.call?.callId !== undefined && error.call.callId !== '' ? error.call.callId : id;
    const toolName = error.call?.toolName || UNREADABLE_TOOL;
    this.emitRecord(refusedRecord({ recordId: newRecordId(), requestId: id, callId, toolName, toolKey: toolName, groupName: '', arguments: {}, background: false }, response));
  }

  /** The session was resumed after a reconnect: send the answers the old socket did not take. */
  onSessionResumed(): void {
    const pending = [...this.unsent.values()];
    this.unsent.clear();
    if (pending.length > 0) this.logger.info('sending answers kept while disconnected', { count: pending.length });
    for (const response of pending) this.deliver(response);
  }

  /**
   * A new session started (not resumed): the backend does not know earlier ids. Running calls are
   * cancelled (an open prompt closes), unsent answers and the replay cache are dropped so a new
   * backend reusing ids does not get old answers.
   */
  onNewSession(): void {
    // The new session never asked for these: end them without sending stale answers to it, and
    // forget their ids now, not when each tool gets round to stopping: request ids are unique per
    // session, and the new one may use them again at once (even in the frame after its welcome).
    this.abortAll(ErrorCode.Cancelled, 'the backend session ended', false);
    this.calls.clear();
    if (this.unsent.size > 0) this.logger.warn('dropping answers for a session that ended', { count: this.unsent.size });
    this.unsent.clear();
    this.replays.clear();
  }

  /** Ends every running call with `code` (the tool's signal aborts; open prompts close). */
  abortAll(code: ErrorCode, message: string, send = true): void {
    for (const call of [...this.calls.values()]) if (!call.ended) this.abortCall(call, code, message, send);
  }

  dispose(): void {
    this.abortAll(ErrorCode.Cancelled, 'the client is shutting down');
    this.callRecordEmitter.dispose();
  }

  // ── execution ──────────────────────────────────────────────────────

  private async execute(call: Call, request: ClientToolInvokeRequest): Promise<void> {
    let outcome: Outcome = 'failed';
    let response: ClientToolInvokeResponse;
    let bytes: number | undefined;
    try {
      const r = await this.runCall(call, request);
      response = r.response;
      outcome = r.outcome;
      bytes = r.bytes;
    } catch (e) {
      const mapped = mapError(e);
      outcome = mapped.code === ErrorCode.Cancelled ? 'cancelled' : mapped.code === ErrorCode.Timeout ? 'timedOut' : 'failed';
      response = errorResponse(call.requestId, mapped.code, mapped.message);
    } finally {
      this.stopTimers(call);
      // Unless a new session has since started a call of its own under this id.
      if (this.calls.get(call.requestId) === call) this.calls.delete(call.requestId);
    }
    if (call.record?.edited) response = withEditNote(response, call.record.edited);
    this.finish(call, response, outcome, true, bytes);
  }

  /** `bytes`: the content's size when it was measured already (a tool's result), so it is not measured twice. */
  private async runCall(call: Call, request: ClientToolInvokeRequest): Promise<{ response: ClientToolInvokeResponse; outcome: Outcome; bytes?: number }> {
    const id = call.requestId;
    const found = this.options.registry.lookup(request.toolName);
    if (!found.ok) {
      // Recorded as the request named it; the record is emitted once, when the call ends.
      const known = this.options.registry.get(request.toolName);
      call.record = pendingRecord(call.recordId, call.consent, request, known?.group ?? '', known?.key ?? request.toolName);
      return { response: errorResponse(id, found.code, found.message), outcome: 'refused' };
    }
    const { tool, group, key } = found.entry;

    const invalid = this.options.registry.validateArguments(tool.name, request.arguments);
    if (invalid !== undefined) {
      call.record = pendingRecord(call.recordId, call.consent, request, group, key);
      return { response: errorResponse(id, ErrorCode.InvalidArguments, invalid), outcome: 'refused' };
    }

    let args = request.arguments;
    this.startRecord(call, request, group, key);
    const offBeforehand = call.consent.refusal();
    if (offBeforehand) {
      this.notePermission(call, offBeforehand);
      const message = `background calls are off: no chat run you started is in progress, and clientTools.permissions.backgroundCalls is "deny"; ${tool.name} was not run`;
      return { response: errorResponse(id, ErrorCode.PermissionDenied, message), outcome: 'denied' };
    }

    const ctx = this.createContext(call, request.threadId);
    let preparation: Preparation | undefined = tool.prepare ? await this.raceAbort(call, tool.prepare(args, ctx.context)) : undefined;
    this.updateRecord(call, { target: preparation?.prompt !== undefined ? oneLine(preparation.prompt) : targetFromArguments(args) });

    let decision = await this.decideConsent(call, request, tool, group, key, preparation, editableOf(tool, args));
    if (decision.kind === 'edited') {
      // The user's value is a new call: validated, prepared and asked about again; only that runs.
      const edit: CallEdit = { argument: tool.editableArgument!, proposed: String(args[tool.editableArgument!]), ran: decision.value };
      args = editedArguments(args, edit);
      this.updateRecord(call, { arguments: args, edited: edit }, true);
      const invalidEdit = this.options.registry.validateArguments(tool.name, args);
      if (invalidEdit !== undefined) throw refusedEdit(edit, new CodedError(ErrorCode.InvalidArguments, invalidEdit));
      preparation = tool.prepare ? await this.raceAbort(call, tool.prepare(args, ctx.context)).catch((e: unknown) => { throw isCodedError(e) ? refusedEdit(edit, e) : e; }) : undefined;
      this.updateRecord(call, { target: preparation?.prompt !== undefined ? oneLine(preparation.prompt) : targetFromArguments(args) });
      decision = await this.decideConsent(call, request, tool, group, key, editedPreparation(tool, preparation, edit), undefined);
      // Not editable a second time: an `edited` here cannot come; were it to, it allows nothing.
      if (decision.kind === 'edited') decision = { kind: 'denied', via: 'user' };
    }
    this.notePermission(call, decision);
    const asked = decision.kind !== 'notAsked';
    if (decision.kind === 'cancelled') throw abortReason(call);
    if (decision.kind === 'denied' && decision.via === 'policy') {
      return { response: errorResponse(id, ErrorCode.PermissionDenied, `the user set ${tool.name} to Deny in the Tool Groups view; it was not run`), outcome: 'denied' };
    }
    if (decision.kind === 'denied') return declinedResponse(id, tool, decision.via === 'timeout', decision.reason);
    if (decision.kind === 'refused') return { response: errorResponse(id, decision.code, decision.message), outcome: 'refused' };
    if (decision.kind === 'allowed') {
      ctx.grant();
      const grant = decision.via === 'remembered' ? decision.grant.label : decision.via === 'prompt' ? decision.remembered?.label : undefined;
      this.logger.info('permission granted', { requestId: id, tool: tool.name, via: decision.via, ...(grant !== undefined ? { grant } : {}) });
    }
    if (call.abortedBy) throw call.abortedBy;

    if (asked) {
      this.setStatus(call, 'running');
    } else {
      // Without a prompt, `running` only tells the backend what it knows already; a tool that
      // answers within this turn (most editor queries) is spared the extra message each way.
      setImmediate(() => this.setStatus(call, 'running'));
    }
    call.runTimer = this.timers.setTimeout(() => {
      this.abortCall(call, ErrorCode.Timeout, `${tool.name} did not finish within ${Math.round(this.limits.maxRunMs / 1000)} s`);
    }, this.limits.maxRunMs);
    const result = await this.raceAbort(call, tool.run(args, ctx.context, preparation));
    const { checked, bytes } = this.checkResult(tool, result);
    if (bytes > ANSWER_IN_OWN_TURN_BYTES) await nextTurn();
    if (checked.augmentation) {
      // The model will see these changes; keep the local view in step so a shown tool can be called.
      if (checked.augmentation.showTools) this.options.registry.setHidden(checked.augmentation.showTools, false);
      if (checked.augmentation.hideTools) this.options.registry.setHidden(checked.augmentation.hideTools, true);
    }
    return {
      response: {
        type: 'clientToolInvokeResponse',
        requestId: id,
        success: true,
        content: checked.content,
        ...(checked.augmentation ? { augmentation: checked.augmentation } : {}),
      },
      outcome: 'succeeded',
      bytes,
    };
  }

  /** The consent module's decision for this call, with the tool's editable argument when the prompt may offer Edit. */
  private decideConsent(call: Call, request: ClientToolInvokeRequest, tool: ClientTool, group: string, key: string, preparation: Preparation | undefined, editable: EditableArgument | undefined): Promise<ConsentDecision> {
    return call.consent.decide({
      requestId: call.requestId,
      tool: { key, name: tool.name, group, requiresPermission: tool.requiresPermission === true },
      preparation,
      ...(request.description !== undefined ? { description: request.description } : {}),
      ...(editable ? { editable } : {}),
      // Made only when a question is asked: most calls never need a signal.
      get signal() {
        return signalOf(call);
      },
      onWaiting: () => this.setStatus(call, 'awaiting-permission'),
    });
  }

  private checkResult(tool: ClientTool, result: ToolResult): { checked: ToolResult; bytes: number } {
    const parsed = TOOL_RESULT.safeParse(result);
    if (!parsed.success) {
      const issue = parsed.error.issues[0];
      throw new CodedError(ErrorCode.ToolFailed, `${tool.name} returned a malformed result${issue ? ` (${issue.path.join('.')}: ${issue.message})` : ''}`);
    }
    const size = contentBytes(result.content);
    const limit = Math.min(this.limits.maxResultBytes, this.peerMaxMessageBytes - 64 * 1024);
    if (size > limit) throw new CodedError(ErrorCode.ResultTooLarge, `${tool.name} returned ${size} bytes; the limit is ${limit} bytes`);
    return { checked: result, bytes: size };
  }

  private createContext(call: Call, threadId: string | undefined): { context: ToolContext; grant: () => void } {
    const onWrite = this.options.onFileWritten;
    // A command's writes are watched only for a call of a thread: nothing else has a run's change list.
    // When the call started: a command's writes are reported after it answered, to the run it was made in.
    const startedAt = Date.now();
    const host = onWrite ? recordingHost(this.options.host, (write) => onWrite(write, { recordId: call.recordId, threadId, startedAt }), { watchCommands: threadId !== undefined }) : this.options.host;
    const resolved = new Map<string, Promise<ResolvedPath>>();
    let granted = false;
    const context: ToolContext = {
      host,
      get signal() {
        return signalOf(call);
      },
      requestId: call.requestId,
      recordId: call.recordId,
      maxResultBytes: this.limits.maxResultBytes,
      resolvePath: (input: string) => {
        let p = resolved.get(input);
        if (!p) {
          p = resolveWorkspacePath(input, host.workspaceFolders(), { protectedPatterns: host.protectedPatterns?.() ?? [] });
          resolved.set(input, p);
        }
        return p;
      },
      progress: (details: string) => this.sendProgress(call, 'progress', details),
      get permissionGranted() {
        return granted;
      },
    };
    return { context, grant: () => (granted = true) };
  }

  /** Waits for a tool's promise, but stops waiting when the call is aborted (a tool may ignore its signal). */
  private raceAbort<T>(call: Call, promise: Promise<T>): Promise<T> {
    if (call.abortedBy) {
      promise.catch(() => {});
      return Promise.reject(call.abortedBy);
    }
    return new Promise<T>((resolve, reject) => {
      call.onAbort = () => reject(abortReason(call));
      promise.then(
        (v) => {
          call.onAbort = undefined;
          resolve(v);
        },
        (e: unknown) => {
          call.onAbort = undefined;
          reject(e);
        },
      );
    });
  }

  // ── ending a call ──────────────────────────────────────────────────

  /** Aborts a call's signal and answers it now; the tool's own settling later changes nothing. */
  private abortCall(call: Call, code: ErrorCode, message: string, send = true): void {
    if (call.ended) return;
    call.abortedBy = new CodedError(code, message);
    call.controller?.abort(call.abortedBy);
    call.onAbort?.();
    this.finish(call, errorResponse(call.requestId, code, message), code === ErrorCode.Timeout ? 'timedOut' : 'cancelled', send);
  }

  /** The single place a call ends: stores the answer for replays, sends it, logs it. Runs once per call. */
  private finish(call: Call, response: ClientToolInvokeResponse, outcome: Outcome, send = true, bytes?: number): void {
    if (call.ended) return;
    call.ended = true;
    call.detachCaller?.dispose();
    this.stopTimers(call);
    this.replays.remember(call.requestId, call.toolName, response, bytes ?? contentBytes(response.content));
    if (send) this.deliver(response);
    const durationMs = this.timers.now() - call.startedAt;
    this.endRecord(call, response, outcome, durationMs);
    const fields = { requestId: call.requestId, tool: call.toolName, outcome, durationMs, code: response.errorCode };
    if (outcome === 'failed') this.logger.error(`${call.toolName} failed: ${response.errorMessage ?? ''}`, fields);
    else if (outcome === 'succeeded') this.logger.info(`${call.toolName} succeeded`, fields);
    else this.logger.warn(`${call.toolName} ${outcome}`, fields);
  }

  private stopTimers(call: Call): void {
    if (call.ticker !== undefined) this.timers.clearInterval(call.ticker);
    if (call.runTimer !== undefined) this.timers.clearTimeout(call.runTimer);
    call.ticker = undefined;
    call.runTimer = undefined;
  }

  private deliver(response: ClientToolInvokeResponse): void {
    const taken = this.options.send(response, (error) => {
      if (error) this.keepUnsent(response);
    });
    if (!taken) this.keepUnsent(response);
  }

  private keepUnsent(response: ClientToolInvokeResponse): void {
    this.unsent.set(response.requestId, response);
  }

  /** Quick refusals (not stored: the backend may retry the id later). */
  private sendNow(response: ClientToolInvokeResponse): void {
    this.logger.warn(`request refused: ${response.errorCode ?? ''}`, { requestId: response.requestId, code: response.errorCode });
    this.options.send(response);
  }

  /** A quick refusal of a new call (the in-flight cap): answered and recorded, never run. */
  private refuseNow(request: ClientToolInvokeRequest, caller: Caller, response: ClientToolInvokeResponse): void {
    this.sendNow(response);
    const known = this.options.registry.get(request.toolName);
    const record = pendingRecord(newRecordId(), this.options.consent.admit(caller), request, known?.group ?? '', known?.key ?? request.toolName);
    this.emitRecord(refusedRecord(record, response));
  }

  // ── progress ───────────────────────────────────────────────────────

  private setStatus(call: Call, status: ProgressStatus): void {
    if (call.ended) return;
    call.status = status;
    if (status === 'awaiting-permission' || status === 'running') this.updateRecord(call, { status }, true);
    this.sendProgress(call, status);
    if (call.ticker === undefined) {
      call.ticker = this.timers.setInterval(() => {
        if (call.status === undefined) return;
        const seconds = Math.round((this.timers.now() - call.startedAt) / 1000);
        const next = call.status === 'running' ? 'progress' : call.status;
        this.sendProgress(call, next, next === 'progress' ? `still running after ${seconds} s` : 'waiting for the user');
      }, this.limits.progressIntervalMs);
    }
  }

  private sendProgress(call: Call, status: ProgressStatus, details?: string): void {
    if (call.ended) return;
    const message: ClientToolProgress = {
      type: 'clientToolProgress',
      requestId: call.requestId,
      status,
      ...(details !== undefined ? { details: details.slice(0, 10_000) } : {}),
    };
    this.options.send(message);
  }

  // ── the call's record ──────────────────────────────────────────────

  private startRecord(call: Call, request: ClientToolInvokeRequest, group: string, toolKey: string): void {
    call.record = pendingRecord(call.recordId, call.consent, request, group, toolKey);
    this.emitRecord(call.record);
  }

  /** Changes the record; `emit` sends the change now (else it goes with the next one). */
  private updateRecord(call: Call, change: Partial<CallRecord>, emit = false): void {
    if (!call.record || isFinalStatus(call.record.status)) return;
    call.record = { ...call.record, ...withoutUndefined(change) };
    if (emit) this.emitRecord(call.record);
  }

  private notePermission(call: Call, decision: ConsentDecision | BackgroundRefusal): void {
    const permission = permissionOnRecord(decision);
    if (permission) this.updateRecord(call, { permission });
  }

  private endRecord(call: Call, response: ClientToolInvokeResponse, outcome: Outcome, durationMs: number): void {
    if (!call.record) return;
    call.record = outcome === 'refused' ? refusedRecord(call.record, response) : endedRecord(call.record, response, RECORD_STATUS[outcome], durationMs);
    this.emitRecord(call.record);
  }

  private emitRecord(record: CallRecord): void {
    if (this.callRecordEmitter.hasListeners) this.callRecordEmitter.fire({ ...record });
  }
}

/** What a record names a request that could not be decoded far enough to read its tool's name. */
const UNREADABLE_TOOL = '(unreadable request)';

function abortReason(call: Call): CodedError {
  return call.abortedBy ?? new CodedError(ErrorCode.Cancelled, 'the call was cancelled');
}

/** The call's signal, made now if nothing asked for it before. */
function signalOf(call: Call): AbortSignal {
  if (!call.controller) {
    call.controller = new AbortController();
    if (call.abortedBy) call.controller.abort(call.abortedBy);
  }
  return call.controller.signal;
}

