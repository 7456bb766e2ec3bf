/**
 * `ClientCore`: the one object `src/vscode` holds. It wires the connection, the registry, the
 * consent module and the dispatcher, names the backend as the caller of each request it sends, and
 * forwards what the UI needs (state, welcome, run events, tool group state, backend errors). It
 * holds no policy of its own.
 */
import {
  CodedError,
  DEFAULT_LIMITS,
  ErrorCode,
  MIN_PEER_MESSAGE_BYTES,
  PROTOCOL,
  Schemas,
  type Augmentation,
  type ClientToServer,
  type ContextItem,
  type DecodeError,
  type EditorContext,
  type ErrorMessage,
  type Hello,
  type RunEvent,
  type ServerToClient,
  type ToolGroupDefinition,
  type ToolGroupState,
  type Welcome,
} from '../protocol';
import { assertNever, isRunEvent } from '../protocol';
import { CallerLifetime } from './consent/callerLifetime';
import type { CallRecord } from './callRecord';
import { Consent, type BackgroundCallPolicy, type Caller } from './consent/consent';
import { Connection, type ConnectionOptions, type ConnectionState } from './connection';
import { DEFAULT_DISPATCHER_LIMITS, Dispatcher, type DispatcherLimits, type DispatcherOptions } from './dispatcher';
import { DisposableStore, Emitter, Relay, type Disposable, type Event } from '../base/events';
import type { IdeHost } from './host';
import { silentLogger, type Logger } from '../base/logger';
import { folderUri } from './paths';
import type { BarragePolicy, PermissionGate, PermissionStore, RememberScope } from './consent/permissionGate';
import type { PromptPresenter } from './consent/presenter';
import { ToolRegistry } from './registry';
import { systemTimers, type Timers } from './timers';
import { UserRuns } from './consent/userRuns';
import { TruncationRequests } from './threadTruncation';

export interface ClientInfo {
  name: string;
  version: string;
  /** e.g. "Visual Studio Code 1.100.3". */
  ide: string;
  pid?: number;
}

export interface ClientLimits extends DispatcherLimits {
  /** Largest message accepted from the backend. */
  maxMessageBytes: number;
}

export interface ClientCoreOptions {
  url: string;
  /** Replicas of the same backend tried in turn after `url` when the connection drops (clientTools.backendUrls). */
  fallbackUrls?: readonly string[];
  token: string;
  clientInfo: ClientInfo;
  host: IdeHost;
  /**
   * Shows permission prompts (the chat's card or the modal, chosen by whoever wires the core).
   * Without one (a benchmark, a headless client) every prompt counts as dismissed: denied.
   */
  presenter?: PromptPresenter;
  logger?: Logger;
  limits?: Partial<ClientLimits>;
  connection?: Pick<ConnectionOptions, 'handshakeTimeoutMs' | 'heartbeatMs' | 'reconnect' | 'random' | 'maxBufferedBytes'>;
  permissions?: {
    /** Durable memory for remembered grants in `workspace` scope (e.g. backed by workspaceState). */
    store?: PermissionStore;
    rememberScope?: RememberScope;
    /** Default 5 minutes; an unanswered prompt then counts as deny. */
    promptTimeoutMs?: number;
    /** Prompt rate and "deny all" limits (promptBarrage.ts). */
    barrage?: Partial<BarragePolicy>;
    /** Calls outside any run the user started from this window's chat. Default `ask`. */
    backgroundCalls?: BackgroundCallPolicy;
  };
  /** Groups the backend should start expanded. */
  preExpanded?: string[];
  /**
   * How long a dropped backend session can still be resumed (the reference backend keeps it 5
   * minutes, PROTOCOL.md). Calls it carried that are still waiting (an open prompt) are cancelled
   * once the connection has been down this long: nobody would receive what they do. Default 5 minutes.
   */
  resumeWindowMs?: number;
  timers?: Timers;
  /** Told of every file a call of any of this core's dispatchers writes (the run's change list). */
  onFileWritten?: DispatcherOptions['onFileWritten'];
}

/** No one to ask: every prompt counts as dismissed (deny). */
const DISMISS_EVERY_PROMPT: PromptPresenter = { consentSurface: () => 'modal', confirm: () => Promise.resolve(undefined) };

/** The reference backend's session grace (PROTOCOL.md): how long a dropped session can be resumed. */
export const DEFAULT_RESUME_WINDOW_MS = 5 * 60_000;
/**
 * The largest JSON text of one message from the backend (`hello.limits.maxJsonBytes`): it is
 * decoded and parsed in one turn of the extension host's event loop, which every extension shares.
 * Binary content travels as attachments, outside it; the backend shortens or splits what would not fit.
 */
export const MAX_JSON_BYTES = 4 * 1024 * 1024;

export class ClientCore implements Disposable {
  readonly registry = new ToolRegistry();
  /** Decides every call's consent, whichever front door it came through (src/core/consent/). */
  readonly consent: Consent;
  private readonly dispatcher: Dispatcher;
  private readonly logger: Logger;
  private readonly disposables = new DisposableStore();
  private connection: Connection | undefined;
  private connectionSubscriptions: DisposableStore | undefined;
  private url: string;
  private fallbackUrls: readonly string[];
  private token: string;
  /** The state while there is no connection: idle, or stopped because one could not be made. */
  private stateWithoutConnection: ConnectionState = { kind: 'idle' };
  /** What the backend was last told about each group (JSON), to send only changes. */
  private told = new Map<string, string>();
  private pendingHelloGroups: ToolGroupDefinition[] = [];
  private updateQueued = false;
  private readonly userRuns = new UserRuns();
  /** The backend session that carries the calls it sent (src/core/consent/callerLifetime.ts). */
  private sessionLifetime = new CallerLifetime();
  private readonly truncations: TruncationRequests;
  /** What the backend's last `welcome` listed in `capabilities` (optional requests it answers). */
  private capabilities: ReadonlySet<string> = new Set();
  /** Set while the connection is down: ends the session's lifetime when the resume window passes. */
  private resumeWindowTimer: unknown;

  /** The current connection's events; a connection replaced for a new URL or settings keeps the listeners. */
  private readonly stateRelay = new Relay<ConnectionState>();
  private readonly welcomeRelay = new Relay<Welcome>();
  private readonly runEventEmitter = new Emitter<RunEvent>();
  private readonly groupStateEmitter = new Emitter<ToolGroupState>();
  private readonly serverErrorEmitter = new Emitter<ErrorMessage>();
  private readonly protocolErrorEmitter = new Emitter<DecodeError>();
  /** Connection state for the status bar: idle, connecting, connected, reconnecting, stopped. */
  readonly onDidChangeState: Event<ConnectionState> = this.stateRelay.event;
  /** The connection's `welcome`, heard after the dispatcher and registry have taken it in. */
  readonly onWelcome: Event<Welcome> = this.welcomeRelay.event;
  /** Run events for the chat view. */
  readonly onRunEvent: Event<RunEvent> = this.runEventEmitter.event;
  /** The backend's view of the groups (expanded, visible) for the tool tree. */
  readonly onToolGroupState: Event<ToolGroupState> = this.groupStateEmitter.event;
  /** `error` messages from the backend. */
  readonly onServerError: Event<ErrorMessage> = this.serverErrorEmitter.event;
  /** Messages from the backend that failed to decode (already answered where they were tool calls). */
  readonly onProtocolError: Event<DecodeError> = this.protocolErrorEmitter.event;
  /** The extension's own record of every call it executes (for the chat's cards), background calls included. */
  readonly onCallRecord: Event<CallRecord>;

  constructor(private readonly options: ClientCoreOptions) {
    this.url = options.url;
    this.fallbackUrls = options.fallbackUrls ?? [];
    this.token = options.token;
    this.logger = options.logger ?? silentLogger;
    const timers = options.timers ?? systemTimers;
    this.truncations = new TruncationRequests(timers);
    this.consent = new Consent({
      presenter: options.presenter ?? DISMISS_EVERY_PROMPT,
      backgroundCalls: options.permissions?.backgroundCalls,
      store: options.permissions?.store,
      rememberScope: options.permissions?.rememberScope,
      promptTimeoutMs: options.permissions?.promptTimeoutMs,
      barrage: options.permissions?.barrage,
      // "Disconnect" on a prompt: as the Disconnect command does.
      onDisconnect: () => this.stop(),
      logger: this.logger,
      timers,
    });
    this.dispatcher = new Dispatcher({
      registry: this.registry,
      consent: this.consent,
      host: options.host,
      send: (message, onSent) => this.connection?.send(message, onSent) ?? false,
      backlog: () => this.bufferedAmount,
      logger: this.logger,
      limits: { ...DEFAULT_DISPATCHER_LIMITS, ...options.limits },
      timers,
      ...(options.onFileWritten ? { onFileWritten: options.onFileWritten } : {}),
    });
    this.onCallRecord = this.dispatcher.onCallRecord;
    this.registry.setWorkspaceTrusted(options.host.isTrusted());
    this.disposables.add(this.registry.onDidChange(() => this.queueToolGroupUpdate()));
    this.disposables.add(this.registry);
    this.disposables.add(this.consent);
    this.disposables.add(this.dispatcher);
    for (const e of [this.stateRelay, this.welcomeRelay, this.runEventEmitter, this.groupStateEmitter, this.serverErrorEmitter, this.protocolErrorEmitter]) {
      this.disposables.add(e);
    }
  }

  get state(): ConnectionState {
    return this.connection?.state ?? this.stateWithoutConnection;
  }

  /** Bytes sent to the backend that it has not taken yet (it reads slowly or not at all). */
  get bufferedAmount(): number {
    return this.connection?.bufferedAmount ?? 0;
  }

  /**
   * Connects (if not already). A URL or token that must not be used (plain ws:// to another host,
   * no token) does not throw: the state becomes `stopped` with the code and the reason.
   */
  start(): void {
    if (!this.connection) {
      try {
        this.connection = this.createConnection();
      } catch (e) {
        const code = e instanceof CodedError ? e.code : ErrorCode.Internal;
        const reason = e instanceof Error ? e.message : String(e);
        this.logger.error('cannot connect', { code, reason });
        this.setStateWithoutConnection({ kind: 'stopped', target: safeTarget(this.url), code, reason });
        return;
      }
    }
    this.connection.start();
  }

  /** Disconnects on purpose. Running calls end with DISCONNECTED; open prompts close. */
  stop(): void {
    this.connection?.close();
    this.dispatcher.abortAll(ErrorCode.Disconnected, 'the editor disconnected from the backend');
  }

  /** Connects again now (after `stopped`, or to skip a backoff wait), resuming the session. */
  retry(): void {
    if (!this.connection) this.start();
    else this.connection.retry();
  }

  /** A new URL or token (settings or secret changed). Takes effect now if connected, else on the next start. */
  setEndpoint(url: string, token: string, fallbackUrls: readonly string[] = []): void {
    if (url === this.url && token === this.token && fallbackUrls.join('\n') === this.fallbackUrls.join('\n')) return;
    this.url = url;
    this.fallbackUrls = [...fallbackUrls];
    this.token = token;
    const wasActive = this.state.kind !== 'idle';
    this.dropConnection();
    if (wasActive) this.start();
  }

  /**
   * Settings changed: new limits and connection options. Dispatcher limits apply to the next call;
   * a new message size limit or reconnect policy takes effect with the next connection.
   */
  reconfigure(update: { limits?: Partial<ClientLimits>; connection?: ClientCoreOptions['connection'] }): void {
    const mutable = this.options as { limits?: Partial<ClientLimits>; connection?: ClientCoreOptions['connection'] };
    if (update.limits) {
      mutable.limits = { ...mutable.limits, ...update.limits };
      this.dispatcher.setLimits(update.limits);
    }
    if (update.connection) mutable.connection = { ...mutable.connection, ...update.connection };
    const wasActive = this.state.kind !== 'idle';
    this.dropConnection();
    if (wasActive) this.start();
  }

  /** Workspace trust changed: tools unavailable in restricted mode switch off or on, and the backend is told. */
  setWorkspaceTrusted(trusted: boolean): void {
    this.registry.setWorkspaceTrusted(trusted);
  }

  /**
   * Sends the user's chat message. Throws CodedError INVALID_MESSAGE (bad input) or DISCONNECTED.
   * The run it starts is the user's: tool calls on its thread are not background calls until it ends.
   */
  sendUserMessage(threadId: string, text: string, context?: EditorContext): void {
    this.sendChecked({ type: 'userMessage', threadId, text, ...(context ? { context } : {}) });
    this.userRuns.userMessageSent(threadId);
  }

  /**
   * A message for the run `runId` in progress, delivered at its next tool boundary (`steer`), or one
   * taken back (`withdrawSteer`). Throws like `sendUserMessage`. A steer answers no prompt: it only
   * joins the thread, and the run's calls stay the user's.
   */
  sendSteer(message: { type: 'steer'; threadId: string; runId: string; steerId: string; text: string } | { type: 'withdrawSteer'; threadId: string; runId: string; steerId: string }): void {
    this.sendChecked(message);
  }

  /** Compact now: the backend summarises the thread before its newest turn, as a run of its own. Throws like `sendUserMessage`. */
  compactThread(threadId: string): void {
    this.sendChecked({ type: 'compactThread', threadId });
    // The compaction's run is the user's, like a message's.
    this.userRuns.userMessageSent(threadId);
  }

  /** Whether the connected backend answers `request` (a message type its `welcome.capabilities` lists). */
  backendCan(request: 'truncateThread'): boolean {
    return this.state.kind === 'connected' && this.capabilities.has(request);
  }

  /**
   * Rewind: the backend drops the user message that started `runId` and everything after it.
   * Resolves with the messages dropped; rejects with a CodedError (RUN_BUSY, NOT_FOUND, DISCONNECTED, TIMEOUT).
   */
  truncateThread(threadId: string, runId: string): Promise<number> {
    return this.truncations.request(threadId, runId, () => this.sendChecked({ type: 'truncateThread', threadId, runId }));
  }

  /** The remembered grants, the tool policies, the prompt barrage and the queue of prompts. */
  get permissions(): PermissionGate {
    return this.consent.gate;
  }

  /** `clientTools.permissions.backgroundCalls` changed; applies to calls that arrive from now on. */
  setBackgroundCalls(policy: BackgroundCallPolicy): void {
    this.consent.setBackgroundCalls(policy);
  }

  /**
   * Another dispatcher over this core's registry, consent and host (the MCP server's, an ACP
   * agent's): the same checks and limits and a replay cache of its own. Its front door names the
   * caller of each call (`Dispatcher.handleInvoke`).
   */
  createDispatcher(options: Pick<DispatcherOptions, 'send'>): Dispatcher {
    return new Dispatcher({
      registry: this.registry,
      consent: this.consent,
      host: this.options.host,
      logger: this.logger,
      limits: { ...DEFAULT_DISPATCHER_LIMITS, ...this.options.limits },
      timers: this.options.timers ?? systemTimers,
      ...(this.options.onFileWritten ? { onFileWritten: this.options.onFileWritten } : {}),
      ...options,
    });
  }

  /** Asks the backend to stop a thread's run. Throws CodedError DISCONNECTED when not connected. */
  cancel(threadId: string, runId?: string): void {
    this.sendChecked({ type: 'cancel', threadId, ...(runId !== undefined ? { runId } : {}) });
  }

  /** Clears a thread's history and tool group state on the backend. */
  resetThread(threadId: string): void {
    this.userRuns.forgetThread(threadId);
    this.sendChecked({ type: 'resetThread', threadId });
  }

  /**
   * Tells the backend about changed tool groups now (registry changes are sent automatically; call
   * this to force it). Returns false when not connected: the next `hello` carries everything.
   *
   * A changed group is injected again whole, and the backend then starts it collapsed; so only
   * what changes definitions sends one (registration, trust, switching a tool off). Runtime
   * visibility (augmentations, skills) never does.
   */
  updateToolGroups(): boolean {
    if (this.state.kind !== 'connected' || !this.connection) return false;
    const current = this.registry.definitions();
    const injectGroups = current.filter((g) => this.told.get(g.name) !== JSON.stringify(g));
    const names = new Set(current.map((g) => g.name));
    const removeGroups = [...this.told.keys()].filter((n) => !names.has(n));
    if (injectGroups.length === 0 && removeGroups.length === 0) return true;
    const augmentation: Augmentation = {
      ...(injectGroups.length ? { injectGroups } : {}),
      ...(removeGroups.length ? { removeGroups } : {}),
    };
    if (!this.connection.send({ type: 'updateToolGroups', augmentation })) return false;
    this.told = new Map(current.map((g) => [g.name, JSON.stringify(g)]));
    this.logger.info('tool groups updated', { injected: injectGroups.length, removed: removeGroups.length });
    return true;
  }

  /**
   * Sends context items (for example the active editor) in an `updateToolGroups` augmentation;
   * the backend adds them to the system prompt, replacing items of the same name. Returns false
   * when not connected (nothing is queued: the caller sends its current view again on `onWelcome`).
   */
  pushContext(items: readonly ContextItem[]): boolean {
    if (items.length === 0 || this.state.kind !== 'connected' || !this.connection) return false;
    const message: ClientToServer = { type: 'updateToolGroups', augmentation: { addContext: [...items] } };
    if (!Schemas.Messages.ClientToServer.safeParse(message).success) return false;
    return this.connection.send(message);
  }

  dispose(): void {
    this.stopResumeWindow();
    this.dropConnection();
    this.disposables.dispose();
  }

  // ── wiring ─────────────────────────────────────────────────────────

  private createConnection(): Connection {
    const limits = this.options.limits;
    const connection = new Connection({
      url: this.url,
      fallbackUrls: this.fallbackUrls,
      token: this.token,
      buildHello: () => this.buildHello(),
      maxMessageBytes: limits?.maxMessageBytes ?? DEFAULT_LIMITS.maxMessageBytes,
      maxJsonBytes: this.announcedLimits().maxJsonBytes,
      logger: this.logger,
      timers: this.options.timers,
      ...this.options.connection,
    });
    // Listeners run in the order they subscribed: the core takes a state or a welcome in before
    // the relays pass it on, and tells the backend what changed since `hello` after that.
    const subs = new DisposableStore();
    subs.add(connection.onDidChangeState((s) => this.onConnectionState(s)));
    this.stateRelay.input = connection.onDidChangeState;
    subs.add(connection.onWelcome((w) => this.handleWelcome(w)));
    this.welcomeRelay.input = connection.onWelcome;
    subs.add(connection.onWelcome(() => this.updateToolGroups()));
    subs.add(connection.onMessage((m) => this.handleMessage(m)));
    subs.add(connection.onDecodeError((e) => {
      this.dispatcher.handleDecodeError(e);
      this.protocolErrorEmitter.fire(e);
    }));
    subs.add(connection);
    this.connectionSubscriptions = subs;
    return connection;
  }

  private dropConnection(): void {
    if (!this.connection) return;
    this.connection.close();
    this.stateRelay.input = undefined;
    this.welcomeRelay.input = undefined;
    this.connectionSubscriptions?.dispose();
    this.connectionSubscriptions = undefined;
    this.connection = undefined;
    this.dispatcher.abortAll(ErrorCode.Disconnected, 'the backend connection was replaced');
    this.setStateWithoutConnection({ kind: 'idle' });
  }

  private buildHello(): Hello {
    const host = this.options.host;
    this.pendingHelloGroups = this.registry.definitions();
    return {
      type: 'hello',
      protocol: PROTOCOL,
      client: { ...this.options.clientInfo },
      workspace: {
        folders: host.workspaceFolders().slice(0, 100).map((f) => ({ name: f.name, uri: folderUri(f) })),
        trusted: host.isTrusted(),
      },
      toolGroups: this.pendingHelloGroups,
      ...(this.options.preExpanded?.length ? { preExpanded: this.options.preExpanded } : {}),
      limits: this.announcedLimits(),
    };
  }

  /** What the backend must respect (PROTOCOL.md "Limits each side announces"): the limits this side enforces. */
  private announcedLimits(): NonNullable<Hello['limits']> {
    const limits = { ...DEFAULT_DISPATCHER_LIMITS, ...this.options.limits };
    const maxMessageBytes = Math.max(MIN_PEER_MESSAGE_BYTES, Math.floor(limits.maxMessageBytes ?? DEFAULT_LIMITS.maxMessageBytes));
    return {
      maxMessageBytes,
      maxInFlight: Math.max(1, Math.floor(limits.maxInFlight)),
      replayWindowMs: Math.max(1, Math.floor(limits.replayWindowMs)),
      maxJsonBytes: Math.min(maxMessageBytes, MAX_JSON_BYTES),
    };
  }

  private onConnectionState(state: ConnectionState): void {
    if (state.kind === 'stopped') this.dispatcher.abortAll(ErrorCode.Disconnected, `the backend connection stopped: ${state.reason}`);
    if (state.kind !== 'connected') this.truncations.failAll('The connection to the backend dropped before it answered the rewind.');
    // Only a connection that is up again (or given up on) ends the window; attempts in between do not.
    if (state.kind === 'reconnecting') this.startResumeWindow();
    else if (state.kind !== 'connecting') this.stopResumeWindow();
  }

  /** The connection dropped: the session's calls last as long as it could still be resumed. */
  private startResumeWindow(): void {
    if (this.resumeWindowTimer !== undefined) return;
    const timers = this.options.timers ?? systemTimers;
    const ms = this.options.resumeWindowMs ?? DEFAULT_RESUME_WINDOW_MS;
    const lifetime = this.sessionLifetime;
    this.resumeWindowTimer = timers.setTimeout(() => {
      this.resumeWindowTimer = undefined;
      this.logger.warn('the backend did not come back within the resume window; its calls are cancelled', { seconds: Math.round(ms / 1000) });
      lifetime.end(ErrorCode.Disconnected, `the backend did not come back within ${Math.round(ms / 1000)} s, so its session cannot be resumed and nobody would receive the answer`);
    }, ms);
  }

  private stopResumeWindow(): void {
    if (this.resumeWindowTimer === undefined) return;
    (this.options.timers ?? systemTimers).clearTimeout(this.resumeWindowTimer);
    this.resumeWindowTimer = undefined;
  }

  private handleWelcome(welcome: Welcome): void {
    const state = this.connection?.state;
    const resumed = state?.kind === 'connected' && state.resumed;
    this.dispatcher.setPeerMaxMessageBytes(welcome.limits.maxMessageBytes);
    this.capabilities = new Set(welcome.capabilities ?? []);
    if (resumed) {
      this.dispatcher.onSessionResumed();
    } else {
      this.dispatcher.onNewSession();
      this.sessionLifetime.end(ErrorCode.Cancelled, 'the backend session ended');
      this.sessionLifetime = new CallerLifetime();
      this.registry.resetVisibility();
      this.userRuns.clear();
    }
    this.told = new Map(this.pendingHelloGroups.map((g) => [g.name, JSON.stringify(g)]));
  }

  private handleMessage(message: ServerToClient): void {
    if (isRunEvent(message)) {
      this.userRuns.onRunEvent(message);
      this.runEventEmitter.fire(message);
      return;
    }
    switch (message.type) {
      case 'welcome':
        // The connection hands the welcome to handleWelcome, never to this handler.
        return;
      case 'clientToolInvokeRequest':
        this.dispatcher.handleInvoke(message, this.backendCaller(message.threadId));
        return;
      case 'clientToolCancel':
        this.dispatcher.handleCancel(message);
        return;
      case 'toolGroupState':
        this.followVisibility(message);
        this.groupStateEmitter.fire(message);
        return;
      case 'error':
        this.logger.warn('error from the backend', { code: message.code, relatedId: message.relatedId });
        if (this.truncations.error(message)) return;
        this.serverErrorEmitter.fire(message);
        return;
      case 'threadTruncated':
        this.truncations.truncated(message);
        return;
      default:
        assertNever(message, 'message from the backend');
    }
  }

  /** The backend as the caller of a request on `threadId`: within the user's run or not, for as long as its session lasts. */
  private backendCaller(threadId: string | undefined): Caller {
    return { kind: 'backend', userRun: this.userRuns.isUserRun(threadId), lifetime: this.sessionLifetime };
  }

  /**
   * Keeps the registry's "hidden right now" in step with what the model is shown in expanded groups
   * (a skill may show a tool defined as hidden), so such a tool can be called. Visibility is not a
   * permission: requiresPermission and the prompt still come from the local definition only.
   */
  private followVisibility(state: ToolGroupState): void {
    const show: string[] = [];
    const hide: string[] = [];
    for (const group of state.groups) {
      if (!group.expanded) continue;
      for (const t of group.tools) {
        if (this.registry.get(t.name)?.group !== group.name) continue;
        (t.visible ? show : hide).push(t.name);
      }
    }
    this.registry.setHidden(show, false);
    this.registry.setHidden(hide, true);
  }

  private queueToolGroupUpdate(): void {
    if (this.updateQueued) return;
    this.updateQueued = true;
    queueMicrotask(() => {
      this.updateQueued = false;
      this.updateToolGroups();
    });
  }

  private sendChecked(message: ClientToServer): void {
    const parsed = Schemas.Messages.ClientToServer.safeParse(message);
    if (!parsed.success) {
      const issue = parsed.error.issues[0];
      throw new CodedError(ErrorCode.InvalidMessage, issue ? `${issue.path.join('.') || message.type}: ${issue.message}` : 'invalid message');
    }
    if (this.state.kind !== 'connected' || !this.connection?.send(message)) {
      throw new CodedError(ErrorCode.Disconnected, 'not connected to the backend');
    }
  }

  private setStateWithoutConnection(state: ConnectionState): void {
    this.stateWithoutConnection = state;
    this.stateRelay.fire(state);
  }
}

function safeTarget(url: string): string {
  try {
    const u = new URL(url);
    return `${u.protocol}//${u.host}`;
  } catch {
    return url.slice(0, 100);
  }
}
