/**
 * One client's session: its threads (agent), registered tool groups, and client calls in flight.
 * A session outlives its connection: when the socket drops, run events are buffered and pending calls
 * follow the disconnection strategy; a `hello` with `resumeSession` and the session's `resumeSecret`
 * within the grace period attaches a new socket, replays the buffer and re-sends the calls still
 * waiting. The id names the session and may be seen by anyone; only the secret proves ownership, and
 * neither is ever logged (logs use `logLabel`).
 */
import { createHash, randomBytes, randomUUID, timingSafeEqual } from 'node:crypto';
import { WebSocket } from 'ws';
import type { Augmentation, HelloLimits, ClientToServer, Hello, ServerToClient } from '../../protocol';
import { assertNever, encodeParts, ErrorCode, isRunEvent, PROTOCOL } from '../../protocol';
import type { DecodeError } from '../../protocol';
import { sendEncoded } from '../../net/send';
import { clientLimitsOf, DEFAULT_CLIENT_LIMITS, fitted } from './peerLimits';
import { Agent } from '../run/agent';
import { failure, validate } from '../run/toolCalls';
import type { BackendEventEmitter } from '../events';
import { ClientInvoker } from './invoker';
import type { ClientLink, ProgressListener } from './invoker';
import type { ChatModel } from '../model/chatModel';
import type { ResolvedOptions } from '../options';
import type { ConversationStore } from '../store/conversationStore';
import type { SharedState } from '../state/sharedState';
import type { Recovery, RunContinuation } from '../failover/adoption';
import { continueRuns, secretDigestHex } from '../failover/adoption';
import { SessionJournal } from '../failover/sessionJournal';
import { failoverTimings, replicatedState } from '../failover/replicated';
import type { RegistrationProblem } from '../toolset/registration';
import { admitGroups, applyAugmentation } from '../toolset/registration';
import type { HookLists, ServerTool, ToolCallResult } from '../toolset/serverTools';
import { ClientToolState } from '../toolset/toolState';
import { oversizedUpdate, overfullState, STATE_INTERVAL_MS, UpdateAllowance } from './updateLimits';
import { Outbox } from './outbox';
import type { ContextBudgetConfig } from '../context/budget';
import { contextWindowFor } from '../context/windows';
import { scopedKey, scopedStore } from '../auth/scopedStore';
import { ANONYMOUS, type AuthenticatedUser } from '../auth/user';

export const SERVER_NAME = 'client-tools-backend';
export const SERVER_VERSION = '0.1.0';

/** The close code of a connection whose credentials lapsed (CREDENTIALS_REVOKED). */
export const CREDENTIALS_REVOKED_CLOSE = 4011;
/** Above this many bytes waiting in the socket, a run pauses its text stream until it drains. */
const HIGH_WATER_BYTES = 4 * 1024 * 1024;
const DRAIN_POLL_MS = 10;
/** Messages not replayed on resume: the invoker re-sends the requests still waiting itself. */
const NOT_BUFFERED = new Set<ServerToClient['type']>(['clientToolInvokeRequest', 'error', 'welcome']);

/** What every session shares: options, model, server tools, hooks, and the library's event emitter. */
export interface BackendDeps {
  options: ResolvedOptions;
  model: ChatModel;
  serverTools: () => ReadonlyMap<string, ServerTool>;
  hooks: HookLists;
  events: BackendEventEmitter;
  /** Where every session's threads are saved and reloaded from. */
  store?: ConversationStore;
  /** What replicas share (sessions, calls, run leases; `state.store` is `store`): Redis with `--redis`, else this process. */
  state?: SharedState;
}

/** Options of one client tool call made from code rather than by the model. */
export interface InvokeClientToolOptions {
  /** This call's invoke timeout (default: the backend's `invokeTimeoutMs`); paused while the user is asked. */
  timeoutMs?: number;
  /** Aborting cancels the call: the client is sent `clientToolCancel` and the result is `cancelled`. */
  signal?: AbortSignal;
  /** Progress the client reports (`awaiting-permission`, `running`, `progress`). */
  onProgress?: ProgressListener;
}

export interface SessionDeps extends BackendDeps {
  /** The authenticated user the session belongs to (`anonymous` when unset: the shared token). */
  owner?: string;
  /** Called once when the session ends for good. */
  onEnded: (session: Session) => void;
  /** A session another replica held, taken over with the secret its client presented (failover/adoption.ts). */
  adopted?: { sessionId: string; secret: string };
}

/** Numbers sessions for log lines, which must not carry ids or secrets. */
let sessionCounter = 0;

export class Session implements ClientLink {
  readonly id: string;
  /** 256 random bits, sent in each `welcome` of this session and in nothing else. */
  private readonly resumeSecret: string;
  /** What a presented secret is compared with: equal-length digests, so timingSafeEqual applies. */
  private readonly secretDigest: Buffer;
  /** Who the session belongs to; its threads are stored under this user's view of the store. */
  readonly owner: string;
  /** The credential its last connection was proven with, checked again while the session lives (auth/credentialSweep.ts). */
  credential: AuthenticatedUser | undefined;
  /** What log lines call this session: a per-process number, not its id. */
  readonly logLabel = `session #${++sessionCounter}`;
  /** Set by the first successful attach; a session that never got there was never announced. */
  private established = false;
  readonly invoker: ClientInvoker;
  readonly agent: Agent;
  private socket: WebSocket | undefined;
  /** What the client missed while detached (outbox.ts caps it by count and bytes). */
  private readonly outbox = new Outbox();
  /** What the client announced in its latest `hello` (`limits`): every message to it fits. */
  private clientLimits: HelloLimits = DEFAULT_CLIENT_LIMITS;
  private base: ClientToolState;
  private graceTimer: NodeJS.Timeout | undefined;
  private ended = false;
  private readonly updateAllowance = new UpdateAllowance();
  /** A session-wide toolGroupState is due; updates until it goes out share it. */
  private stateTimer: NodeJS.Timeout | undefined;
  private lastStateAt = 0;
  /** With replicas: this session's calls and runs in the shared state. */
  readonly journal: SessionJournal | undefined;
  private publishTimer: NodeJS.Timeout | undefined;

  constructor(private readonly deps: SessionDeps) {
    const { options } = deps;
    this.owner = deps.owner ?? ANONYMOUS;
    // An adopted session keeps its id and secret: the client proved it holds the secret, and a new
    // one would need a compare-and-set in the shared state against a second replica adopting it.
    this.id = deps.adopted?.sessionId ?? randomUUID();
    this.resumeSecret = deps.adopted?.secret ?? randomBytes(32).toString('base64url');
    this.secretDigest = digest(this.resumeSecret);
    this.base = this.newState([], []);
    const shared = replicatedState(deps);
    this.journal = shared ? new SessionJournal(shared, this.id, failoverTimings(options), options.log, () => this.handOver(), (threadId) => scopedKey(this.owner, threadId)) : undefined;
    this.invoker = new ClientInvoker(this, options, this.journal, (call, result) =>
      this.deps.events.emit('clientCallEnded', { toolName: call.toolName, outcome: result.outcome, ...(result.errorCode ? { errorCode: result.errorCode } : {}), sessionId: this.id }),
    );
    this.agent = new Agent(
      {
        send: (m) => this.send(m),
        drained: () => this.drained(),
        invoker: this.invoker,
        freshToolState: () => this.base.clone(),
        serverTools: deps.serverTools,
        hooks: deps.hooks,
        reportProblems: (p) => this.reportProblems(p),
        log: options.log,
      },
      { ...(this.journal ? { runGuard: this.journal } : {}), model: deps.model, systemPrompt: options.systemPrompt, maxTurns: options.maxTurns, modelRetries: options.modelRetries, maxRuns: options.maxRunsPerSession, maxThreads: options.maxThreadsPerSession, maxToolArgumentBytes: options.maxToolArgumentBytes, history: { resultBytes: options.historyResultBytes, budgetBytes: options.historyBudgetBytes }, store: deps.store && scopedStore(deps.store, this.owner), ...withContext(contextConfig(deps.model, options)) },
    );
  }

  get connected(): boolean {
    return this.socket?.readyState === WebSocket.OPEN;
  }

  get attached(): boolean {
    return this.socket !== undefined;
  }

  /** Its user's credential lapsed: the client is told (CREDENTIALS_REVOKED, close 4011) and the session ends. */
  revoke(why: string): void {
    if (this.ended) return;
    const socket = this.socket;
    if (socket && this.connected) {
      sendFrame(socket, { type: 'error', code: ErrorCode.CredentialsRevoked, message: `The session was ended: ${why}. Connect again with a valid token.` });
      socket.close(CREDENTIALS_REVOKED_CLOSE, ErrorCode.CredentialsRevoked);
    }
    this.end(`the user's credentials were revoked: ${why}`);
  }

  /** Holds nothing a client could come back for: no thread, no call in flight (an idle detached session may make room for a new one). */
  get idle(): boolean {
    return this.agent.threadCount === 0 && this.invoker.pendingCount === 0;
  }

  /** A run or a client call is in progress (a draining server waits for it before handing the session over). */
  get busy(): boolean {
    return this.agent.runCount > 0 || this.invoker.pendingCount > 0;
  }

  /** Closes the connection so the client reconnects, to another replica when draining; the session waits to be resumed. */
  closeForDrain(code: number, reason: string): void {
    this.socket?.close(code, reason);
  }

  /**
   * Writes (or refreshes) the session's record in the shared state, naming this replica as its
   * holder; the digest of the secret, never the secret. Kept fresh while the session lives.
   */
  async publish(): Promise<void> {
    const shared = replicatedState(this.deps);
    if (!shared || this.ended) return;
    const ttl = failoverTimings(this.deps.options).recordTtlMs;
    await shared.putSession({ sessionId: this.id, secretDigest: secretDigestHex(this.resumeSecret), owner: this.owner, createdAt: Date.now(), replica: shared.replica }, ttl);
    if (!this.publishTimer) {
      this.publishTimer = setInterval(() => {
        this.publish().catch((e: unknown) => this.deps.options.log.warn(`${this.logLabel}: its shared record could not be refreshed: ${e instanceof Error ? e.message : String(e)}`));
      }, Math.max(1_000, ttl / 3));
      this.publishTimer.unref();
    }
  }

  /**
   * Another replica adopted this session (its client reconnected there while this replica still
   * lived): stop here without writing anything shared or telling anyone, so that replica can
   * collect the calls and continue the runs.
   */
  handOver(): void {
    if (this.ended) return;
    this.deps.options.log.warn(`${this.logLabel}: another replica took the session over; handing it over`);
    this.ended = true;
    clearTimeout(this.graceTimer);
    clearTimeout(this.stateTimer);
    clearInterval(this.publishTimer);
    this.journal?.handOver();
    this.agent.abandonAll();
    this.invoker.abandon();
    this.outbox.clear();
    this.socket?.close(4000, 'session taken over by another replica');
    this.deps.onEnded(this);
  }

  /** Removes the shared record when it still names this replica (another may have adopted the session since). */
  private unpublish(): void {
    const shared = replicatedState(this.deps);
    if (!shared || !this.established) return;
    void (async () => {
      const record = await shared.getSession(this.id);
      if (record?.replica === shared.replica) await shared.deleteSession(this.id);
    })().catch((e: unknown) => this.deps.options.log.warn(`${this.logLabel}: its shared record could not be removed (it expires on its own): ${e instanceof Error ? e.message : String(e)}`));
  }

  /** Continues the runs of an adopted session once the client is attached (failover/adoption.ts). */
  continueRuns(recovery: Recovery): void {
    if (!this.journal || recovery.runs.length === 0) return;
    const continuation: RunContinuation = {
      journal: this.journal,
      leaseWaitMs: failoverTimings(this.deps.options).leaseWaitMs,
      resume: (threadId, runId, ticket) => this.agent.resumeRun(threadId, runId, ticket, (callId) => recovery.outcomeOf(runId, callId)),
      abandon: (threadId, runId, code, message) => {
        this.send({ type: 'runError', threadId, runId, code, message, retryable: true });
        this.send({ type: 'runFinished', threadId, runId, reason: 'error' });
      },
      log: this.deps.options.log,
    };
    continueRuns(recovery, continuation);
  }

  /** Whether `secret` is this session's resume secret (compared in constant time; absent never matches). */
  owns(secret: string | undefined): boolean {
    return secret !== undefined && timingSafeEqual(digest(secret), this.secretDigest);
  }

  /** Sends now, or keeps the message for a resume; false when it cannot fit the client's message limit at all (it was not sent). */
  send(message: ServerToClient): boolean {
    if (isRunEvent(message)) this.deps.events.emit('runEvent', message, this.id);
    if (message.type === 'toolGroupState') this.deps.events.emit('toolGroupState', message, this.id);
    if (this.socket && this.connected) return this.sendFitted(this.socket, message);
    if (NOT_BUFFERED.has(message.type) || this.ended) return true;
    this.outbox.push(message);
    return true;
  }

  /** Sends `message` as frames that fit the client's `maxMessageBytes` and `maxJsonBytes` (peerLimits.ts); false when it cannot fit. */
  private sendFitted(socket: WebSocket, message: ServerToClient): boolean {
    const { maxMessageBytes, maxJsonBytes } = this.clientLimits;
    const frames = fitted(message, maxMessageBytes, maxJsonBytes);
    if (!frames) {
      this.deps.options.log.warn(`${this.logLabel}: a ${message.type} was not sent: it does not fit the editor's message limit of ${maxMessageBytes} bytes${maxJsonBytes !== undefined ? ` (${maxJsonBytes} of JSON)` : ''}`);
      return false;
    }
    for (const frame of frames) sendEncoded(socket, frame);
    return true;
  }

  /**
   * Completes a handshake on `socket`: welcome, registration of the hello's groups (a fresh session,
   * a resumed one that keeps its threads, or a resumed one the client asked to reset), then replay of
   * what the client missed and re-sending of calls still waiting.
   *
   * All or nothing: everything that can fail on what the peer sent (admission compiles its schemas)
   * runs before anything changes, so a throw leaves the session exactly as it was (a new one is
   * then discarded by the server, a resumed one keeps waiting for its owner).
   */
  attach(socket: WebSocket, hello: Hello, how: 'new' | 'resumed' | 'unknownSession' | 'adopted', pruned: readonly RegistrationProblem[] = []): void {
    const admission = admitGroups(hello.toolGroups, new Set(this.deps.serverTools().keys()));
    const preExpanded = hello.preExpanded ?? [];
    const keepThreads = how === 'resumed' && !hello.reset;
    let base: ClientToolState;
    if (keepThreads) {
      base = this.base.clone();
      base.syncRegistered(admission.groups, preExpanded);
    } else {
      base = this.newState(admission.groups, preExpanded);
    }
    const state = base.snapshot();

    clearTimeout(this.graceTimer);
    const previous = this.socket;
    if (previous && previous !== socket) {
      // The client is back before this side noticed the old socket die (a silent network drop):
      // requests or answers may be lost in it, so the calls in flight count as disconnected and
      // follow the strategy (retryWithBackoff re-sends them below) instead of waiting forever.
      this.socket = undefined;
      this.invoker.connectionLost();
      previous.close(4000, 'session resumed on another connection');
    }
    this.socket = socket;
    this.established = true;
    this.clientLimits = clientLimitsOf(hello);
    this.invoker.setClientLimits(this.clientLimits);
    const { options, model } = this.deps;
    sendFrame(socket, {
      type: 'welcome',
      protocol: PROTOCOL,
      sessionId: this.id,
      resumeSecret: this.resumeSecret,
      resumed: how === 'resumed' || how === 'adopted',
      server: { name: SERVER_NAME, version: SERVER_VERSION, model: { name: model.name, offline: model.offline } },
      limits: { maxMessageBytes: Math.floor(options.maxMessageBytes), maxInFlight: Math.floor(options.maxInFlight), invokeTimeoutMs: Math.ceil(options.invokeTimeoutMs) },
      capabilities: ['truncateThread'],
    });
    if (how === 'unknownSession') {
      // Also the answer to a wrong or missing secret, worded the same so it tells a guesser nothing.
      this.send({ type: 'error', code: ErrorCode.SessionUnknown, message: 'The session to resume is unknown, expired, or was not proven with its resume secret; a fresh session was started.' });
    }

    this.reportProblems([...admission.problems, ...pruned]);
    if (keepThreads) this.agent.forEachToolState((s) => s.syncRegistered(admission.groups, preExpanded));
    else if (how === 'resumed') this.agent.resetAll(true);
    this.base = base;
    this.send({ type: 'toolGroupState', ...state });

    const missed = this.outbox.take();
    if (this.outbox.dropped > 0) {
      this.deps.options.log.warn(`${this.logLabel}: ${this.outbox.dropped} buffered messages were dropped while the client was away`);
      this.outbox.dropped = 0;
    }
    for (const m of missed) this.sendFitted(socket, m);
    this.invoker.connectionRestored();
  }

  /** Forgets a session whose first handshake failed: it was never announced, so nothing is told. */
  discard(): void {
    this.established = false;
    this.end('its handshake failed');
  }

  /**
   * Runs one of this client's tools outside a model turn, on the model's path: the tool must be
   * registered (a collapsed group does not matter; a hidden tool is refused), the arguments are
   * validated and coerced against its schema, then the invoker sends the request with its timeout
   * and disconnection strategy. No run events are sent and no hooks run. The request carries no
   * `threadId`, so an augmentation in the answer applies to the session (PROTOCOL.md "Augmentation").
   */
  invokeTool(toolName: string, args: Record<string, unknown>, options: InvokeClientToolOptions = {}): Promise<ToolCallResult> {
    if (this.ended) return Promise.resolve(failure(ErrorCode.Disconnected, `Session ${this.id} has ended.`));
    const resolved = this.base.resolve(toolName);
    if (resolved?.kind !== 'tool' && resolved?.kind !== 'unavailable') {
      return Promise.resolve(failure(ErrorCode.UnknownTool, `The client of session ${this.id} registered no tool named "${toolName.slice(0, 100)}".`));
    }
    if (resolved.kind === 'unavailable' && resolved.reason === 'hidden') {
      return Promise.resolve(failure(ErrorCode.ToolHidden, `"${toolName}" is hidden right now and cannot be called.`));
    }
    const checked = validate(toolName, resolved.tool.parameters, args);
    if (!checked.ok) return Promise.resolve(checked.result);
    const call = { toolName, callId: `call_${randomUUID()}`, arguments: checked.value, ...(options.timeoutMs !== undefined ? { timeoutMs: options.timeoutMs } : {}) };
    // A call on no thread: its answer's augmentation applies to the session, as an updateToolGroups would.
    return this.invoker.invoke(call, options.signal, options.onProgress ?? (() => {})).then((result) => {
      if (result.augmentation && !this.ended) this.updateToolGroups(result.augmentation);
      return result;
    });
  }

  /** The socket closed. Pending calls follow the disconnection strategy; the session waits to be resumed. */
  detach(socket: WebSocket): void {
    if (this.socket !== socket || this.ended) return;
    this.socket = undefined;
    this.invoker.connectionLost();
    this.graceTimer = setTimeout(() => this.end('the editor did not come back within the grace period'), this.deps.options.sessionGraceMs);
    this.graceTimer.unref();
  }

  handle(msg: ClientToServer): void {
    switch (msg.type) {
      case 'hello':
        this.error(ErrorCode.InvalidMessage, 'The handshake is already done: hello is only valid as the first message of a connection.');
        return;
      case 'clientToolInvokeResponse':
        if (!this.invoker.handleResponse(msg)) this.error(ErrorCode.UnknownRequest, `No call with request id "${msg.requestId}" is waiting for an answer (it may have timed out or been cancelled).`, msg.requestId);
        return;
      case 'clientToolProgress':
        if (!this.invoker.handleProgress(msg)) this.error(ErrorCode.UnknownRequest, `No call with request id "${msg.requestId}" is in flight.`, msg.requestId);
        return;
      case 'userMessage':
        this.agent.userMessage(msg);
        return;
      case 'cancel':
        this.agent.cancel(msg.threadId, msg.runId);
        return;
      case 'resetThread':
        this.agent.resetThread(msg.threadId);
        return;
      case 'updateToolGroups':
        this.updateToolGroups(msg.augmentation);
        return;
      case 'steer':
        this.agent.steer(msg);
        return;
      case 'withdrawSteer':
        this.agent.withdrawSteer(msg);
        return;
      case 'compactThread':
        this.agent.compactThread(msg.threadId);
        return;
      case 'truncateThread':
        this.agent.truncateThread(msg.threadId, msg.runId);
        return;
      default:
        assertNever(msg, 'message from the client');
    }
  }

  /** A message that could not be decoded: tell the client, and end the call it was answering, if any. */
  decodeFailed(error: DecodeError): void {
    this.error(error.code, error.message, error.relatedId);
    if (error.messageType === 'clientToolInvokeResponse' && error.relatedId) this.invoker.failRequest(error.relatedId, error.code, error.message);
  }

  /** Ends the session for good: runs cancelled, calls failed, threads forgotten. */
  end(reason: string): void {
    if (this.ended) return;
    this.ended = true;
    clearTimeout(this.graceTimer);
    clearTimeout(this.stateTimer);
    clearInterval(this.publishTimer);
    this.journal?.close();
    this.agent.resetAll();
    this.invoker.shutdown(ErrorCode.Disconnected, `the session ended (${reason})`);
    this.outbox.clear();
    this.deps.onEnded(this);
    this.unpublish();
    if (this.established) this.deps.events.emit('sessionEnded', { sessionId: this.id, reason });
  }

  /**
   * Applied to the session once, on a copy so a refused update changes nothing; threads take it at
   * their next model call. Refused with LIMIT_EXCEEDED: too big, too frequent, a state past the
   * session's caps, or a run in progress with too many updates already waiting.
   */
  private updateToolGroups(aug: Augmentation): void {
    const refusal = !this.updateAllowance.take()
      ? 'Too many updateToolGroups messages: the allowance refills at a steady rate. Nothing was applied.'
      : oversizedUpdate(aug);
    if (refusal) return this.error(ErrorCode.LimitExceeded, refusal);
    const next = this.base.clone();
    const { applied, problems, notes } = applyAugmentation(next, aug, this.deps.serverTools().keys());
    // Registration trims what passes the session's caps group by group; an update is all or nothing.
    const capped = problems.find((p) => p.code === ErrorCode.LimitExceeded);
    const full = (capped ? `${capped.message} Nothing was applied.` : undefined) ?? overfullState(next) ?? (this.agent.canQueueUpdate(aug) ? undefined : 'A run in progress has too many tool-group updates waiting for its next model call. Nothing was applied; send it again after the run.');
    if (full) return this.error(ErrorCode.LimitExceeded, full);
    this.base = next;
    this.reportProblems(problems);
    for (const note of notes) this.deps.options.log.debug?.(`${this.logLabel}: ${note}`);
    this.scheduleGroupState();
    this.agent.updateAll(applied);
  }

  /** One session-wide toolGroupState for however many updates arrive within STATE_INTERVAL_MS. */
  private scheduleGroupState(): void {
    if (this.stateTimer) return;
    const wait = Math.max(0, this.lastStateAt + STATE_INTERVAL_MS - Date.now());
    this.stateTimer = setTimeout(() => {
      this.stateTimer = undefined;
      this.lastStateAt = Date.now();
      this.send({ type: 'toolGroupState', ...this.base.snapshot() });
    }, wait);
    this.stateTimer.unref();
  }

  /** Registration errors name the group and the tool or skill at fault, for code to act on (PROTOCOL.md "What follows welcome"). */
  private reportProblems(problems: readonly RegistrationProblem[]): void {
    for (const p of problems) this.send({ type: 'error', code: p.code, message: p.message.slice(0, 10_000), group: p.group, ...(p.tool !== undefined ? { tool: p.tool } : {}) });
  }

  private error(code: string, message: string, relatedId?: string): void {
    this.send({ type: 'error', code, message: message.slice(0, 10_000), ...(relatedId ? { relatedId: relatedId.slice(0, 200) } : {}) });
  }

  private newState(groups: Hello['toolGroups'], preExpanded: string[]): ClientToolState {
    const { options } = this.deps;
    return new ClientToolState(
      { collapsing: options.collapsing, instructions: options.clientToolsInstructions },
      groups,
      preExpanded,
    );
  }

  private drained(): Promise<void> {
    const socket = this.socket;
    if (!socket || socket.bufferedAmount < HIGH_WATER_BYTES) return Promise.resolve();
    return new Promise((resolve) => {
      const poll = setInterval(() => {
        if (this.socket !== socket || socket.readyState !== WebSocket.OPEN || socket.bufferedAmount < HIGH_WATER_BYTES / 2) {
          clearInterval(poll);
          resolve();
        }
      }, DRAIN_POLL_MS);
    });
  }
}

function digest(value: string): Buffer {
  return createHash('sha256').update(value, 'utf8').digest();
}

export function sendFrame(socket: WebSocket, message: ServerToClient): void {
  sendEncoded(socket, encodeParts(message));
}

/**
 * The context window the model gets (the option, else its family's default) and whether it
 * summarises compacted turns. An offline model (the demo) has no window to respect unless one is set.
 */
function contextConfig(model: ChatModel, options: ResolvedOptions): ContextBudgetConfig | undefined {
  if (model.offline && options.contextWindow === undefined) return undefined;
  const summarize = options.compaction === 'summarize' && !model.offline;
  return { window: options.contextWindow ?? contextWindowFor(model.name), ...(summarize ? { summarizer: model } : {}) };
}

function withContext(context: ContextBudgetConfig | undefined): { context?: ContextBudgetConfig } {
  return context ? { context } : {};
}
