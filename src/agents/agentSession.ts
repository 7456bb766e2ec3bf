/**
 * One ACP session of one agent, serving one chat thread: opened new, resumed or loaded; each user
 * message a turn (`session/prompt`) narrated to the chat as run events (runStarted … runFinished,
 * runError before a failed end), every request of the agent answered through the session's
 * `AgentCallbacks`. Stop sends `session/cancel`: open prompts close, permission requests are
 * answered `cancelled`, and a turn the agent does not end within `cancelGraceMs` is ended here and
 * the agent stopped. An agent that dies mid-turn ends the run with AGENT_EXITED; the chat stays usable.
 * The reasons the user gives when denying the agent's own permission requests reach it at the turn's
 * boundary (declinedReasons.ts): a turn of their own, sent by the chat when the agent ends its turn,
 * or, after Stop or a failed turn, a block before the user's next message; each shown as a card.
 * An agent that carries on after a denial (`endTurnAtReasonedDeny`) has its turn ended at a Deny with
 * a reason (`session/cancel`, not the user's Stop), so that the reason is its very next prompt.
 * Those not yet delivered are saved with the thread (`onDeclined`) and, after a reload, delivered
 * with the next message where the agent resumed or loaded the session, else shown as not sent.
 */
import { randomUUID } from 'node:crypto';
import type * as acp from '@agentclientprotocol/sdk';
import { CodedError, ErrorCode, isCodedError, type FinishReason, type RunEvent, type TokenCounts } from '../protocol';
import type { Disposable } from '../base/events';
import { silentLogger, type Logger } from '../base/logger';
import type { AgentCallbacks, AgentPermissionOutcome } from './agentCallbacks';
import type { AgentConnection, SessionHandlers } from './agentConnection';
import { DeclinedReasons, notDeliveredMessage, type SavedDeclined } from './declinedReasons';
import { SessionUpdates, type AgentStatusChange } from './sessionUpdates';
import { ToolCallTable } from './toolCalls';
import { TurnEvents } from './turnEvents';

/** After Stop, how long the agent has to end its turn before the client ends it (and stops the agent). */
export const CANCEL_GRACE_MS = 10_000;
/** How long a permission request waits for its tool call's announcement still on its way (see announcedSoon). */
export const ANNOUNCE_WAIT_MS = 250;
/** Permission requests waiting for their announcement at once, at most (see announcedSoon). */
const MAX_ANNOUNCE_WAITERS = 16;

export interface AgentSessionOptions {
  /** The agent's name as the chat shows it. */
  agent: string;
  threadId: string;
  connection: AgentConnection;
  /** Made for this session once the caller knows whether a turn runs (see `isRunning`). */
  callbacks: (session: { isRunning(): boolean }) => AgentCallbacks & { outputOf?(terminalId: string): string | undefined };
  cwd: string;
  mcpServers: acp.McpServer[];
  /** `_meta` of `session/new`, `session/load` and `session/resume` (a preset's launch options). */
  sessionMeta?: Readonly<Record<string, unknown>>;
  emit: (event: RunEvent) => void;
  onStatus?: (change: AgentStatusChange) => void;
  logger?: Logger;
  cancelGraceMs?: number;
  flushMs?: number;
  /** Reasons for a Deny the thread's saved state kept from before a reload (for `previous`'s session). */
  savedDeclined?: SavedDeclined;
  /** What to save with the thread after each change of the reasons not yet delivered (undefined: none). */
  onDeclined?: (saved: SavedDeclined | undefined) => void;
  /** The agent carries on after a denial: a Deny with a reason ends its turn (a preset's, presetLaunch.ts). */
  endTurnAtReasonedDeny?: boolean;
}

/** How an earlier session came back: resumed or loaded (the agent remembers), or a new one (it does not). */
export type Continuation = 'new' | 'resumed' | 'loaded' | 'fresh';

export class AgentSession implements Disposable {
  readonly sessionId: string;
  private readonly table = new ToolCallTable();
  /** Permission requests waiting for their tool call's announcement, by its id: each wakes its waiter. */
  private readonly announceWaiters = new Map<string, () => void>();
  private readonly events: TurnEvents;
  private readonly updates: SessionUpdates;
  private readonly callbacks: AgentCallbacks & { outputOf?(terminalId: string): string | undefined };
  private readonly logger: Logger;
  private readonly attached: Disposable;
  /** Aborted when the turn is cancelled or the session ends: every request of the agent in flight stops. */
  private turnAbort = new AbortController();
  /** `cancelled`: by the user's Stop; `endedAtDeny`: by the session, at a Deny with a reason (the reason then goes at once). */
  private run: { runId: string; cancelled: boolean; endedAtDeny?: boolean; finished: boolean; failed?: boolean; graceTimer?: ReturnType<typeof setTimeout> } | undefined;
  /** The user's reasons for denying the agent's permission requests, not yet delivered. */
  private readonly declined: DeclinedReasons;
  /** Saved reasons this new session cannot take: shown as not sent at the next run's start, after how the session opened. */
  private notSent: SavedDeclined | undefined;
  private threadUsage: TokenCounts = { inputTokens: 0, outputTokens: 0 };
  private disposed = false;

  private constructor(private readonly options: AgentSessionOptions, sessionId: string, pending: PendingSession) {
    this.sessionId = sessionId;
    this.logger = options.logger ?? silentLogger;
    this.declined = new DeclinedReasons(options.onDeclined);
    this.events = new TurnEvents(options.emit, options.flushMs);
    this.callbacks = pending.callbacks;
    this.updates = new SessionUpdates({
      threadId: options.threadId,
      agent: options.agent,
      table: this.table,
      events: this.events,
      onStatus: (c) => options.onStatus?.(c),
      terminalOutput: (id) => this.callbacks.outputOf?.(id),
    });
    pending.bind(this);
    this.attached = pending.attached;
  }

  /**
   * Opens the thread's session: `previous` resumed (`session/resume`) or loaded (`session/load`,
   * whose replayed history is not shown again: the chat has its own transcript) when the agent
   * offers either, else a new session. Throws a CodedError when the agent cannot open one.
   */
  static async open(options: AgentSessionOptions, previous?: string): Promise<{ session: AgentSession; continuation: Continuation }> {
    const { connection } = options;
    const caps = connection.info.capabilities;
    const base = { cwd: options.cwd, mcpServers: options.mcpServers, ...(options.sessionMeta ? { _meta: { ...options.sessionMeta } } : {}) };
    if (previous !== undefined) {
      if (caps.sessionCapabilities?.resume) {
        const pending = new PendingSession(options, previous);
        try {
          const r = await connection.request('session/resume', { sessionId: previous, ...base });
          const session = new AgentSession(options, previous, pending);
          session.noteModes(r.modes);
          session.restoreDeclined(true);
          return { session, continuation: 'resumed' };
        } catch (e) {
          pending.discard();
          options.logger?.warn('agent could not resume the session; trying to load it', { agent: options.agent, reason: messageOf(e) });
        }
      }
      if (caps.loadSession) {
        const pending = new PendingSession(options, previous);
        try {
          const r = await connection.request('session/load', { sessionId: previous, ...base });
          const session = new AgentSession(options, previous, pending);
          session.noteModes(r?.modes);
          session.restoreDeclined(true);
          return { session, continuation: 'loaded' };
        } catch (e) {
          pending.discard();
          options.logger?.warn('agent could not load the session; starting a new one', { agent: options.agent, reason: messageOf(e) });
        }
      }
    }
    const created = await connection.request('session/new', base);
    const session = new AgentSession(options, created.sessionId, new PendingSession(options, created.sessionId));
    session.noteModes(created.modes);
    session.restoreDeclined(false);
    return { session, continuation: previous === undefined ? 'new' : 'fresh' };
  }

  get running(): boolean {
    return this.run !== undefined && !this.run.finished;
  }

  /** The run in progress, if any. */
  get runId(): string | undefined {
    return this.running ? this.run?.runId : undefined;
  }

  /**
   * Runs one turn, then a turn for the reasons the user gave in it (if any, until none is left);
   * resolves when the last run has finished (its runFinished sent). Throws RUN_BUSY while a turn
   * runs. Failures end the run with runError + runFinished `error`, never a rejection.
   */
  async prompt(text: string): Promise<void> {
    if (this.disposed) throw new CodedError(ErrorCode.AgentExited, `${this.options.agent} is no longer running`);
    if (this.running) throw new CodedError(ErrorCode.RunBusy, `${this.options.agent} is still working on the previous message; stop it or wait`);
    if (this.notSent) this.updates.announce(`Not sent to ${this.options.agent}: your reason`, notDeliveredMessage(this.notSent), 32_000);
    this.notSent = undefined;
    // Reasons kept from a turn that was stopped or failed go first, in a block of their own.
    const earlier = this.takeDeclined();
    let run = await this.turn(earlier !== undefined ? [earlier, text] : [text]);
    // The agent ended its turn: the reasons the user gave in it go to the agent now, as a turn of their own.
    while (!run.cancelled && !run.failed && !this.disposed) {
      const message = this.takeDeclined();
      if (message === undefined) break;
      run = await this.turn([message]);
    }
  }

  /** The message with the reasons not yet delivered, announced by a card at the next run's start. */
  private takeDeclined(): string | undefined {
    const message = this.declined.take();
    if (message !== undefined) this.updates.announce(`Your reason, sent to ${this.options.agent}`, message, 32_000);
    return message;
  }

  private async turn(texts: readonly string[]): Promise<NonNullable<AgentSession['run']>> {
    const runId = randomUUID();
    const run: NonNullable<AgentSession['run']> = { runId, cancelled: false, finished: false };
    this.run = run;
    this.turnAbort = new AbortController();
    this.events.reset();
    this.updates.beginRun(runId);
    this.options.emit({ type: 'runStarted', threadId: this.options.threadId, runId, model: this.options.agent });
    try {
      const response = await this.options.connection.request('session/prompt', { sessionId: this.sessionId, prompt: texts.map((text) => ({ type: 'text' as const, text })) }, { timeoutMs: 0 });
      const usage = usageOf(response);
      this.finish(run, run.endedAtDeny && !run.cancelled ? 'completed' : reasonOf(response.stopReason, run.cancelled), usage, response.stopReason === 'refusal' ? new CodedError(ErrorCode.AgentError, `${this.options.agent} refused to answer`) : undefined);
    } catch (e) {
      if (run.cancelled) this.finish(run, 'cancelled');
      else if (run.endedAtDeny && !(isCodedError(e) && e.code === ErrorCode.AgentExited)) this.finish(run, 'completed');
      else this.finish(run, 'error', undefined, isCodedError(e) ? e : new CodedError(ErrorCode.AgentError, messageOf(e)));
    }
    return run;
  }

  /** A card at the start of the next run (how the session was opened, when the user should know). */
  announce(title: string, text: string): void {
    this.updates.announce(title, text);
  }

  /** Stop: `session/cancel`, every request of the agent withdrawn, the run ended here if the agent does not end it in time. */
  cancel(): void {
    const run = this.run;
    if (!run || run.finished || run.cancelled) return;
    run.cancelled = true;
    this.cancelTurn(run);
  }

  /**
   * A Deny with a reason, for an agent that would carry on without it: its turn ends the way Stop
   * ends it, but as the session's doing (the run ends `completed`, a card says why), so `prompt`
   * sends the reason as the next prompt at once. Sent before the denial's answer goes out, so the
   * agent stops before it asks its model again.
   */
  private endTurnAtDeny(): void {
    const run = this.run;
    if (!run || run.finished || run.cancelled || run.endedAtDeny) return;
    run.endedAtDeny = true;
    this.updates.noteInRun('Turn ended at your Deny', `${this.options.agent} carries on after a denial without your reason, so the chat ended its turn here and sends your reason as its next prompt.`);
    this.cancelTurn(run);
  }

  /** `session/cancel`, every request of the agent withdrawn, the run ended here (the agent stopped) if the agent does not end it in time. */
  private cancelTurn(run: NonNullable<AgentSession['run']>): void {
    this.turnAbort.abort();
    void this.options.connection.cancel(this.sessionId);
    if (run.graceTimer !== undefined) return;
    run.graceTimer = setTimeout(() => {
      if (run.finished) return;
      this.logger.warn('agent did not end its turn after session/cancel; stopping it', { agent: this.options.agent });
      this.finish(run, 'cancelled');
      this.options.connection.dispose();
    }, this.options.cancelGraceMs ?? CANCEL_GRACE_MS);
  }

  /** The agent went away: a turn in progress ends with AGENT_EXITED. */
  connectionClosed(reason: string): void {
    const run = this.run;
    if (run && !run.finished) this.finish(run, run.cancelled ? 'cancelled' : 'error', undefined, run.cancelled ? undefined : new CodedError(ErrorCode.AgentExited, reason));
    this.dispose();
  }

  dispose(): void {
    if (this.disposed) return;
    this.disposed = true;
    this.turnAbort.abort();
    const run = this.run;
    if (run && !run.finished) this.finish(run, 'cancelled');
    this.attached.dispose();
    this.callbacks.dispose();
    this.events.dispose();
  }

  // ── what the agent asks (SessionHandlers, through PendingSession) ─────

  /**
   * Whether the agent announced the tool call (a `tool_call` update), waiting a moment for one that is
   * on its way: the SDK may run a notification's handler a few turns after a request that followed it
   * on the wire (claude-agent-acp's announcement, then its permission request, was once refused as
   * unannounced in CI). Bounded: at most ANNOUNCE_WAIT_MS, then the gate decides as before.
   */
  private async announcedSoon(toolCallId: string, signal: AbortSignal): Promise<boolean> {
    if (this.table.get(toolCallId) !== undefined) return true;
    // Waits are woken by the announcement itself (update below), never polled; past MAX_ANNOUNCE_WAITERS
    // open at once (a flood of unannounced requests) a request is decided at once, as before.
    if (signal.aborted || this.disposed || this.announceWaiters.has(toolCallId) || this.announceWaiters.size >= MAX_ANNOUNCE_WAITERS) return false;
    await new Promise<void>((resolve) => {
      const done = () => {
        clearTimeout(timer);
        signal.removeEventListener('abort', done);
        this.announceWaiters.delete(toolCallId);
        resolve();
      };
      const timer = setTimeout(done, ANNOUNCE_WAIT_MS);
      signal.addEventListener('abort', done, { once: true });
      this.announceWaiters.set(toolCallId, done);
    });
    return !this.disposed && this.table.get(toolCallId) !== undefined;
  }

  update(update: acp.SessionUpdate): void {
    if (this.disposed) return;
    this.updates.onUpdate(update);
    if (this.announceWaiters.size > 0 && update.sessionUpdate === 'tool_call') this.announceWaiters.get(update.toolCallId)?.();
  }

  async requestPermission(params: acp.RequestPermissionRequest, signal: AbortSignal): Promise<acp.RequestPermissionResponse> {
    const announced = await this.announcedSoon(params.toolCall.toolCallId, signal);
    const call = this.updates.noteToolCall(params.toolCall) ?? { toolCallId: params.toolCall.toolCallId, title: params.toolCall.title ?? '', kind: params.toolCall.kind ?? 'other', content: [], locations: [] };
    const id = call.toolCallId;
    this.updates.cardStatus(id, 'awaiting-permission');
    let outcome: AgentPermissionOutcome;
    try {
      outcome = await this.withTurn(signal, (s) => this.callbacks.requestPermission({ toolCall: call, announced, options: params.options.map((o) => ({ optionId: o.optionId, name: o.name, kind: o.kind })) }, s));
    } catch (e) {
      this.updates.cardFailed(id, `${isCodedError(e) ? `${e.code}: ` : ''}${messageOf(e)}`);
      throw e;
    }
    const reasonKept = outcome.userReason !== undefined && this.declined.add(call.kind, outcome.userReason);
    if (outcome.outcome === 'selected' && outcome.partialWrite !== undefined) this.declined.addPartialWrite(outcome.partialWrite);
    const chosen = outcome.outcome === 'selected' ? params.options.find((o) => o.optionId === outcome.optionId) : undefined;
    const allowed = chosen?.kind.startsWith('allow') === true;
    if (reasonKept && !allowed && this.options.endTurnAtReasonedDeny === true) this.endTurnAtDeny();
    if (outcome.outcome === 'cancelled') return { outcome: { outcome: 'cancelled' } };
    this.updates.cardStatus(id, 'running', outcome.note ?? (allowed ? 'Allowed by you' : `Denied by you${outcome.reason ? `: ${outcome.reason}` : ''}`));
    return {
      outcome: { outcome: 'selected', optionId: outcome.optionId },
      // ACP has no field for a reason; agents that read `_meta` can show it to the model.
      ...(outcome.reason !== undefined ? { _meta: { clientTools: { reason: outcome.reason } } } : {}),
    };
  }

  readTextFile(params: acp.ReadTextFileRequest, signal: AbortSignal): Promise<acp.ReadTextFileResponse> {
    return this.withTurn(signal, (s) => this.callbacks.readTextFile({ path: params.path, ...(params.line != null ? { line: params.line } : {}), ...(params.limit != null ? { limit: params.limit } : {}) }, s));
  }

  async writeTextFile(params: acp.WriteTextFileRequest, signal: AbortSignal): Promise<acp.WriteTextFileResponse> {
    await this.withTurn(signal, (s) => this.callbacks.writeTextFile({ path: params.path, content: params.content }, s));
    return {};
  }

  terminalCreate(params: acp.CreateTerminalRequest, signal: AbortSignal): Promise<acp.CreateTerminalResponse> {
    return this.withTurn(signal, (s) => this.callbacks.startTerminal({
      command: params.command,
      args: params.args ?? [],
      env: (params.env ?? []).map((e) => ({ name: e.name, value: e.value })),
      ...(params.cwd != null ? { cwd: params.cwd } : {}),
      ...(params.outputByteLimit != null ? { outputByteLimit: params.outputByteLimit } : {}),
    }, s));
  }

  async terminalOutput(params: acp.TerminalOutputRequest): Promise<acp.TerminalOutputResponse> {
    return this.callbacks.terminalOutput(params.terminalId);
  }

  waitForTerminalExit(params: acp.WaitForTerminalExitRequest, signal: AbortSignal): Promise<acp.WaitForTerminalExitResponse> {
    return this.withTurn(signal, (s) => this.callbacks.waitForTerminalExit(params.terminalId, s));
  }

  async killTerminal(params: acp.KillTerminalRequest): Promise<acp.KillTerminalResponse> {
    await this.callbacks.killTerminal(params.terminalId);
    return {};
  }

  async releaseTerminal(params: acp.ReleaseTerminalRequest): Promise<acp.ReleaseTerminalResponse> {
    await this.callbacks.releaseTerminal(params.terminalId);
    return {};
  }

  // ── inside ─────────────────────────────────────────────────────────

  /**
   * The reasons saved from before a reload: kept for the next message when the agent continues the
   * session, else shown as not sent at the next run's start (a new session would not know the requests).
   */
  private restoreDeclined(continues: boolean): void {
    const saved = this.options.savedDeclined;
    if (!saved) return;
    if (continues) {
      this.declined.restore(saved);
      return;
    }
    this.notSent = saved;
    this.options.onDeclined?.(undefined);
  }

  private noteModes(modes: acp.SessionModeState | null | undefined): void {
    if (!modes) return;
    this.options.onStatus?.({ modes: { current: modes.currentModeId, available: modes.availableModes.slice(0, 20).map((m) => ({ id: m.id, name: m.name })) } });
  }

  /** A request of the agent: aborted by the agent, by Stop, or by the session's end. */
  private async withTurn<T>(signal: AbortSignal, work: (signal: AbortSignal) => Promise<T>): Promise<T> {
    if (this.disposed) throw new CodedError(ErrorCode.Cancelled, 'the agent session ended');
    const both = AbortSignal.any([signal, this.turnAbort.signal]);
    return work(both);
  }

  private finish(run: NonNullable<AgentSession['run']>, reason: FinishReason, usage?: TokenCounts, error?: CodedError): void {
    if (run.finished) return;
    run.finished = true;
    run.failed = error !== undefined || reason === 'error';
    if (run.graceTimer !== undefined) clearTimeout(run.graceTimer);
    this.updates.endRun();
    const ref = { threadId: this.options.threadId, runId: run.runId };
    if (this.events.droppedText > 0) this.events.note({ type: 'textDelta', ...ref, text: `\n\n(${this.events.droppedText} more characters of this answer were not shown)` });
    this.events.flush();
    if (this.table.dropped > 0) this.logger.warn('agent tool calls not shown (too many in one session)', { agent: this.options.agent, dropped: this.table.dropped });
    if (error) this.options.emit({ type: 'runError', ...ref, code: error.code, message: error.message.slice(0, 10_000), retryable: error.code !== ErrorCode.RunBusy });
    if (usage) this.threadUsage = { inputTokens: this.threadUsage.inputTokens + usage.inputTokens, outputTokens: this.threadUsage.outputTokens + usage.outputTokens, ...(usage.cachedInputTokens !== undefined ? { cachedInputTokens: (this.threadUsage.cachedInputTokens ?? 0) + usage.cachedInputTokens } : {}) };
    this.options.emit({ type: 'runFinished', ...ref, reason: error ? 'error' : reason, ...(usage ? { usage: { ...usage, thread: this.threadUsage } } : {}) });
  }
}

/**
 * The handlers of a session being opened: attached before `session/load` (whose replay comes
 * before its answer), bound to the session once it exists; what arrives before then is refused.
 */
class PendingSession implements SessionHandlers {
  readonly callbacks: AgentCallbacks & { outputOf?(terminalId: string): string | undefined };
  readonly attached: Disposable;
  private session: AgentSession | undefined;

  constructor(options: AgentSessionOptions, sessionId: string) {
    this.callbacks = options.callbacks({ isRunning: () => this.session?.running === true });
    this.attached = options.connection.attach(sessionId, this);
  }

  bind(session: AgentSession): void {
    this.session = session;
  }

  discard(): void {
    this.attached.dispose();
    this.callbacks.dispose();
  }

  private get live(): AgentSession {
    if (!this.session) throw new CodedError(ErrorCode.NotReady, 'the session is still being opened');
    return this.session;
  }

  update(update: acp.SessionUpdate): void {
    this.session?.update(update);
  }

  requestPermission(p: acp.RequestPermissionRequest, s: AbortSignal) { return this.live.requestPermission(p, s); }
  readTextFile(p: acp.ReadTextFileRequest, s: AbortSignal) { return this.live.readTextFile(p, s); }
  writeTextFile(p: acp.WriteTextFileRequest, s: AbortSignal) { return this.live.writeTextFile(p, s); }
  terminalCreate(p: acp.CreateTerminalRequest, s: AbortSignal) { return this.live.terminalCreate(p, s); }
  terminalOutput(p: acp.TerminalOutputRequest) { return this.live.terminalOutput(p); }
  waitForTerminalExit(p: acp.WaitForTerminalExitRequest, s: AbortSignal) { return this.live.waitForTerminalExit(p, s); }
  killTerminal(p: acp.KillTerminalRequest) { return this.live.killTerminal(p); }
  releaseTerminal(p: acp.ReleaseTerminalRequest) { return this.live.releaseTerminal(p); }
}

function reasonOf(stop: acp.StopReason, cancelled: boolean): FinishReason {
  if (stop === 'cancelled' || cancelled) return 'cancelled';
  if (stop === 'max_tokens' || stop === 'max_turn_requests') return 'maxTurns';
  return 'completed';
}

/** Token usage of the turn, when the agent reports it (ACP's unstable `PromptResponse.usage`). */
function usageOf(response: acp.PromptResponse): TokenCounts | undefined {
  const u = (response as { usage?: unknown }).usage;
  if (typeof u !== 'object' || u === null) return undefined;
  const { inputTokens, outputTokens, cachedReadTokens } = u as Record<string, unknown>;
  const count = (v: unknown) => (typeof v === 'number' && Number.isFinite(v) && v >= 0 ? Math.floor(v) : undefined);
  const input = count(inputTokens);
  const output = count(outputTokens);
  if (input === undefined || output === undefined) return undefined;
  const cached = count(cachedReadTokens);
  return { inputTokens: input, outputTokens: output, ...(cached !== undefined ? { cachedInputTokens: cached } : {}) };
}

function messageOf(e: unknown): string {
  return e instanceof Error ? e.message : String(e);
}
