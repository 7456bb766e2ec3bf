/**
 * The agent loop, per thread. A `userMessage` starts a run; each turn sends the thread's history,
 * the system prompt (with the client-tool part of the thread's state) and the visible functions to
 * the model, streams its text as `textDelta`, then runs the tool calls it asked for and loops until
 * the model answers without calls, the run is cancelled, a model call fails, or `maxTurns` is hit.
 *
 * Every run ends with exactly one `runFinished`; a failure sends `runError` (code, message,
 * retryable) just before `runFinished { reason: 'error' }`. A tool that fails, throws, is refused
 * or times out is an error result the model reads, never the end of the run.
 */
import { randomUUID } from 'node:crypto';
import type { Augmentation, ContentItem, FinishReason, ServerToClient, TokenCounts, UserMessage } from '../protocol';
import { ErrorCode } from '../protocol';
import type { ClientInvoker, PreparedCall } from './invoker';
import { executeBatch, failure } from './invoker';
import { DEFAULT_MAX_TOOL_ARGUMENT_BYTES, keptCall, parseArguments } from './toolArguments';
import { checkArguments, compileParameters } from './jsonSchema';
import type { Logger } from './log';
import type { ChatMessage, ChatModel, ModelRequest, ToolCallRequest } from './model/chatModel';
import { ModelFailure } from './model/chatModel';
import { DEFAULT_MODEL_RETRIES, streamWithRetries, type ModelRetryNote } from './model/retry';
import { fromModel } from './model/modelChunks';
import type { RegistrationProblem } from './registration';
import { isContextOnly, mergeContext } from './queuedUpdates';
import { applyAugmentation } from './registration';
import type { HistoryLimits } from './historyBudget';
import { DEFAULT_HISTORY_LIMITS, enforceBudget, excerptContent } from './historyBudget';
import type { HookLists, ServerTool, ToolCallInfo, ToolCallResult } from './serverTools';
import { toToolCallResult } from './serverTools';
import type { ClientToolState, Expansion, FunctionSpec } from './toolState';
import { addUsage, runUsage } from './usage';
import type { ConversationStore, StoredRecord, StoredRunStatus, ThreadLease } from './store/conversationStore';
import { waitForThreadLease } from './store/threadLease';
import { reapplyToolState, restoredHistory, storedToolState } from './store/restoredHistory';
import { SharedStateError } from './state/sharedState';
import type { ContextBudgetConfig } from './context/budget';
import { ContextBudget } from './context/budget';
import { yieldToLoop } from './context/tokens';
import type { RunTicket } from './failover/sessionJournal';
import { unansweredCalls } from './failover/continuedRun';

/** What the agent needs from its session. */
export interface AgentHost {
  /** Sends to the client; buffered while the session waits for a resume. */
  send(message: ServerToClient): void;
  /** Resolves once the socket's send buffer is below its high-water mark. */
  drained(): Promise<void>;
  readonly invoker: ClientInvoker;
  /** A copy of the session's tool state, for a new or reset thread. */
  freshToolState(): ClientToolState;
  serverTools(): ReadonlyMap<string, ServerTool>;
  readonly hooks: HookLists;
  /** Refused tools of an injected group, told to the client as `error` messages. */
  reportProblems(problems: readonly RegistrationProblem[]): void;
  readonly log: Logger;
}

export interface AgentConfig {
  model: ChatModel;
  systemPrompt: string;
  maxTurns: number;
  /** Times a model request that got no answer in time is sent again (model/retry.ts); default 2. */
  modelRetries?: number;
  /** Bytes a tool result and a thread's history may keep (historyBudget.ts); defaults when omitted. */
  history?: HistoryLimits;
  /** Runs the session may have in progress (default 16) and threads it keeps (default 256); past them a message gets RUN_LIMIT. */
  maxRuns?: number;
  maxThreads?: number;
  /** UTF-8 bytes of one call's arguments that are parsed (toolArguments.ts); default 1 MiB. */
  maxToolArgumentBytes?: number;
  /** Where threads are saved as they grow and reloaded from when not in memory; none: memory only. */
  store?: ConversationStore;
  /** The model's context window and summariser (context/budget.ts); without it requests are not fitted to a window. */
  context?: ContextBudgetConfig;
  /**
   * With replicas (failover/sessionJournal.ts): a run first takes its thread's lease; undefined means
   * another replica runs the thread now (RUN_BUSY). The ticket's fenced append replaces the store's.
   */
  runGuard?: { begin(threadId: string, runId: string): Promise<RunTicket | undefined> };
}

/** The outcome of the model's call `callId`, collected by the replica that took a run over; undefined when none can be. */
export type CollectOutcome = (callId: string) => Promise<ToolCallResult | undefined>;

interface ActiveRun {
  id: string;
  controller: AbortController;
  /** The thread's lease while the run holds it (replicas only). */
  ticket?: RunTicket;
  /** The thread's lease in a store other processes share (a data folder), while the run holds it. */
  storeLease?: ThreadLease;
  /** Tokens the run's model requests reported so far. */
  usage?: TokenCounts;
}

interface Thread {
  id: string;
  history: ChatMessage[];
  tools: ClientToolState;
  run?: ActiveRun;
  /** Session-wide tool-group updates not applied yet; applied before the thread's next model call. */
  queued: Augmentation[];
  /** Updates were applied without telling the client; its state goes out with the next run. */
  unannounced?: boolean;
  /** Tokens every run of this thread reported (a reset thread starts again at none). */
  usage?: TokenCounts;
  /** Settles once the stored history (if any) is loaded; a run waits for it. */
  restored?: Promise<void>;
  /** The store was out of reach when the thread was loaded: the next save fails with this and loads again. */
  loadError?: unknown;
  /** Reset by the client: nothing more of this thread object is saved. */
  forgotten?: boolean;
  /** The tool state last saved, as JSON, so an unchanged state is not written again. */
  savedToolState?: string;
  /** From the store: the last run's status, and the calls of its last batch that have no stored result. */
  lastRun?: StoredRunStatus;
  unanswered?: ToolCallRequest[];
}

/** Threads a session keeps by default; the least recently used idle one goes first. */
const MAX_THREADS = 256;
/** Runs a session may have in progress by default. */
const MAX_RUNS = 16;
/** Session-wide updates a thread holds for its next model call; past this an idle thread catches up at once. */
export const MAX_QUEUED_UPDATES = 32;

export class Agent {
  private readonly threads = new Map<string, Thread>();
  private readonly budget: ContextBudget | undefined;

  constructor(
    private readonly host: AgentHost,
    private readonly config: AgentConfig,
  ) {
    this.budget = config.context ? new ContextBudget(config.context) : undefined;
  }

  private get historyLimits(): HistoryLimits {
    return this.config.history ?? DEFAULT_HISTORY_LIMITS;
  }

  /** Threads kept (the server keeps a detached session with threads over an idle one). */
  get threadCount(): number {
    return this.threads.size;
  }

  /** Runs in progress, from the user's message until the run has ended (a draining server waits for them). */
  get runCount(): number {
    let n = 0;
    for (const t of this.threads.values()) if (t.run) n++;
    return n;
  }

  userMessage(msg: UserMessage): void {
    const existing = this.threads.get(msg.threadId);
    if (existing?.run) {
      this.host.send({
        type: 'error',
        code: ErrorCode.RunBusy,
        message: `Thread "${msg.threadId}" already has a run in progress (${existing.run.id}); cancel it or wait for runFinished.`,
        relatedId: msg.threadId,
      });
      return;
    }
    // Checked before the thread is made or loaded: a refused message costs nothing.
    const limit = this.runLimit(existing === undefined);
    if (limit) {
      this.host.send({ type: 'error', code: ErrorCode.RunLimit, message: `No run was started on thread "${msg.threadId}": ${limit}`, relatedId: msg.threadId });
      return;
    }
    const thread = this.thread(msg.threadId);
    const run: ActiveRun = { id: `run_${randomUUID()}`, controller: new AbortController() };
    thread.run = run;
    this.track(thread, run, this.execute(thread, run, userText(msg)));
  }

  /**
   * Continues a run another replica started and could not finish (failover/adoption.ts): under the
   * same run id, with the thread's lease already taken, the collected results added to the history.
   */
  resumeRun(threadId: string, runId: string, ticket: RunTicket, collect: CollectOutcome): void {
    const thread = this.thread(threadId);
    if (thread.run) {
      ticket.release();
      return;
    }
    const run: ActiveRun = { id: runId, controller: new AbortController(), ticket };
    thread.run = run;
    this.track(thread, run, this.execute(thread, run, '', collect));
  }

  private track(thread: Thread, run: ActiveRun, running: Promise<void>): void {
    running
      .finally(() => {
        run.ticket?.release();
        void run.storeLease?.release();
        if (thread.run === run) thread.run = undefined;
        // Updates that arrived during the last model call are applied now, not at the next run.
        if (this.threads.get(thread.id) === thread) this.applyQueued(thread);
      })
      .catch((e: unknown) => this.host.log.error(`run ${run.id} ended badly: ${e instanceof Error ? (e.stack ?? e.message) : String(e)}`));
  }

  /** Cancels the runs that match (all of them when neither id is given); returns how many. */
  cancel(threadId?: string, runId?: string): number {
    let n = 0;
    for (const t of this.threads.values()) {
      if (!t.run || (threadId && t.id !== threadId) || (runId && t.run.id !== runId)) continue;
      t.run.controller.abort();
      n++;
    }
    return n;
  }

  /** The tokens a thread's runs used so far, as its last `runFinished` reported them; undefined when none were reported. */
  threadUsage(threadId: string): TokenCounts | undefined {
    return this.threads.get(threadId)?.usage;
  }

  /**
   * Why a new run cannot start now (the session's runs, or its threads when `newThread` needs room
   * and every thread kept has a run); undefined when it can.
   */
  private runLimit(newThread: boolean): string | undefined {
    const maxRuns = this.config.maxRuns ?? MAX_RUNS;
    const runs = this.runCount;
    if (runs >= maxRuns) return `this session already has ${runs} runs in progress (limit ${maxRuns}). Wait for one to end, or cancel one, and send the message again.`;
    if (newThread && this.threads.size >= this.maxThreads && runs >= this.threads.size) return `this session keeps ${this.threads.size} threads (limit ${this.maxThreads}) and every one has a run in progress.`;
    return undefined;
  }

  private get maxThreads(): number {
    return this.config.maxThreads ?? MAX_THREADS;
  }

  /** Forgets a thread's history and client tool state (its run, if any, is cancelled). */
  resetThread(threadId: string): void {
    const old = this.threads.get(threadId);
    old?.run?.controller.abort();
    if (old) old.forgotten = true;
    this.config.store?.delete(threadId).catch((e: unknown) => this.host.log.error(`could not delete a thread from the conversation store: ${describe(e)}`));
    this.budget?.results.forget(threadId);
    const fresh: Thread = { id: threadId, history: [], tools: this.host.freshToolState(), queued: [] };
    this.keep(fresh);
    this.sendState(fresh);
  }

  /**
   * Forgets every thread in memory: the session ended (the store keeps them, to be continued), or a
   * resumed hello asked for reset (`fromStore`: as if each got resetThread, so the store forgets them too).
   */
  resetAll(fromStore = false): void {
    this.cancel();
    for (const t of this.threads.values()) {
      if (!fromStore) continue;
      t.forgotten = true;
      this.config.store?.delete(t.id).catch((e: unknown) => this.host.log.error(`could not delete a thread from the conversation store: ${describe(e)}`));
    }
    this.threads.clear();
  }

  /** The session moved to another replica: runs stop without saving or releasing anything that replica now owns. */
  abandonAll(): void {
    for (const t of this.threads.values()) {
      t.forgotten = true;
      t.run?.ticket?.drop();
      t.run?.controller.abort();
    }
    this.threads.clear();
  }

  /**
   * Hands a session-wide tool-group update to every thread, which applies it at its next model call
   * (and then reports its state once). Doing it at once, with a toolGroupState per thread, turned
   * each update into hundreds of answers. An idle thread whose queue is full catches up silently, so
   * at most MAX_QUEUED_UPDATES updates are held per thread. A context-only update joins the
   * context-only update a thread holds last instead of taking a place of its own.
   */
  updateAll(aug: Augmentation): void {
    const contextOnly = isContextOnly(aug);
    // Threads that hold the same last update share one merged copy of it.
    const merged = new Map<Augmentation, Augmentation>();
    for (const t of this.threads.values()) {
      const tail = t.queued[t.queued.length - 1];
      if (contextOnly && tail !== undefined && isContextOnly(tail)) {
        let joined = merged.get(tail);
        if (!joined) merged.set(tail, (joined = mergeContext(tail, aug)));
        t.queued[t.queued.length - 1] = joined;
        continue;
      }
      if (!t.run && t.queued.length >= MAX_QUEUED_UPDATES) this.applyQueued(t, false);
      t.queued.push(aug);
    }
  }

  /** False when a thread with a run in progress has no place for `aug` among the updates it holds. */
  canQueueUpdate(aug: Augmentation): boolean {
    const contextOnly = isContextOnly(aug);
    for (const t of this.threads.values()) {
      if (!t.run || t.queued.length < MAX_QUEUED_UPDATES) continue;
      if (!(contextOnly && isContextOnly(t.queued[t.queued.length - 1]))) return false;
    }
    return true;
  }

  /** Re-syncs every thread with a resumed session's registered groups. */
  forEachToolState(fn: (state: ClientToolState) => void): void {
    for (const t of this.threads.values()) {
      // Updates the thread holds came before this resume: apply them first, as the session did.
      this.applyQueued(t, false);
      fn(t.tools);
      t.unannounced = false;
      this.sendState(t);
    }
  }

  private thread(id: string): Thread {
    let t = this.threads.get(id);
    if (t) {
      // Map order doubles as recency order.
      this.threads.delete(id);
      this.threads.set(id, t);
      return t;
    }
    t = { id, history: [], tools: this.host.freshToolState(), queued: [] };
    if (this.config.store) t.restored = this.restore(t, this.config.store);
    this.keep(t);
    return t;
  }

  /** Keeps `t` as the most recent thread; past the cap the least recently used idle ones go. */
  private keep(t: Thread): void {
    this.threads.delete(t.id);
    this.threads.set(t.id, t);
    for (const [key, old] of this.threads) {
      if (this.threads.size <= this.maxThreads) break;
      if (!old.run && old !== t) this.threads.delete(key);
    }
  }

  private async execute(thread: Thread, run: ActiveRun, text: string, collect?: CollectOutcome): Promise<void> {
    const { host, config } = this;
    const signal = run.controller.signal;
    const ref = { threadId: thread.id, runId: run.id };
    if (collect) {
      const continued = await this.continued(thread, run, collect).catch((e: unknown) => e);
      if (continued === false) return;
      if (continued !== true) {
        host.log.error(`run ${run.id} could not be continued: ${describe(continued)}`);
        host.send({ type: 'runError', ...ref, code: ErrorCode.StateUnavailable, message: `The run could not be continued after the backend replica running it stopped: ${describe(continued)}`.slice(0, 10_000), retryable: true });
        return this.finish(thread, run, 'error');
      }
    } else {
      if (!(await this.leased(thread, run))) return;
      const user: ChatMessage = { role: 'user', content: text };
      // The client hears of the run only once its message is saved.
      const saved = await this.saved(thread, [{ kind: 'run', run: { runId: run.id, status: 'started' } }, { kind: 'message', message: user }]);
      host.send({ type: 'runStarted', ...ref, model: config.model.name });
      if (!saved.ok) return this.saveFailed(thread, run, saved.error);
      thread.history.push(user);
      enforceBudget(thread.history, this.historyLimits.budgetBytes);
    }
    if (signal.aborted) return this.finish(thread, run, 'cancelled');
    try {
      for (let turn = 0; turn < config.maxTurns; turn++) {
        this.applyQueued(thread);
        let reply = '';
        const calls: ToolCallRequest[] = [];
        const announce = (note: ModelRetryNote) => host.send({ type: 'modelRetry', ...ref, attempt: note.attempt, of: note.of, delayMs: note.delayMs, code: note.failure.code, message: note.failure.summary.slice(0, 10_000) });
        for await (const raw of streamWithRetries(config.model, await this.fittedRequest(thread, ref, signal), signal, config.modelRetries ?? DEFAULT_MODEL_RETRIES, announce)) {
          if (signal.aborted) break;
          const chunk = fromModel(raw);
          if (!chunk) continue;
          if (chunk.type === 'text') {
            reply += chunk.text;
            host.send({ type: 'textDelta', ...ref, text: chunk.text });
            await host.drained();
          } else if (chunk.type === 'toolCall') {
            calls.push(chunk.call);
          } else if (chunk.type === 'usage') {
            run.usage = addUsage(run.usage, chunk);
            thread.usage = addUsage(thread.usage, chunk);
          }
        }
        if (signal.aborted) {
          if (reply) thread.history.push({ role: 'assistant', content: reply });
          if (reply) await this.save(thread, [{ kind: 'message', message: { role: 'assistant', content: reply } }]);
          return this.finish(thread, run, 'cancelled');
        }
        const toolCalls = withUniqueIds(calls);
        // The thread keeps a note in place of arguments over the limit; the calls run (or fail) from the text as sent.
        const kept = toolCalls.map((c) => keptCall(c, this.config.maxToolArgumentBytes ?? DEFAULT_MAX_TOOL_ARGUMENT_BYTES));
        const answer: ChatMessage = { role: 'assistant', content: reply, ...(kept.length ? { toolCalls: kept } : {}) };
        thread.history.push(answer);
        const answerSaved = this.save(thread, [{ kind: 'message', message: answer }]);
        enforceBudget(thread.history, this.historyLimits.budgetBytes);
        await answerSaved;
        if (!toolCalls.length) return this.finish(thread, run, 'completed');
        await this.runBatch(thread, run, toolCalls);
        if (signal.aborted) return this.finish(thread, run, 'cancelled');
      }
      this.finish(thread, run, 'maxTurns');
    } catch (e) {
      if (signal.aborted) return this.finish(thread, run, 'cancelled');
      let failed: ModelFailure;
      if (e instanceof ModelFailure) {
        failed = e;
      } else if (e instanceof SharedStateError) {
        // Replicas: the shared state went away (or another replica took the thread over) mid-run.
        failed = new ModelFailure(ErrorCode.StateUnavailable, `The run stopped: ${e.message}`, true);
      } else {
        host.log.error(`run ${run.id} failed: ${e instanceof Error ? (e.stack ?? e.message) : String(e)}`);
        failed = new ModelFailure(ErrorCode.Internal, `The backend failed: ${e instanceof Error ? e.message : String(e)}`, false);
      }
      host.send({ type: 'runError', ...ref, code: failed.code, message: failed.message.slice(0, 10_000), retryable: failed.retryable });
      this.finish(thread, run, 'error');
    }
  }

  private finish(thread: Thread, run: ActiveRun, reason: FinishReason): void {
    if (thread.run?.id === run.id) {
      this.save(thread, [{ kind: 'run', run: { runId: run.id, status: 'finished', reason } }]).catch((e: unknown) => this.host.log.error(`could not save a run's end: ${describe(e)}`));
    }
    const usage = runUsage(run.usage, thread.usage);
    this.host.send({ type: 'runFinished', threadId: thread.id, runId: run.id, reason, ...(usage ? { usage } : {}) });
  }

  /** With replicas, takes the thread's lease for the run; false (the client told why) when it cannot. */
  private async leased(thread: Thread, run: ActiveRun): Promise<boolean> {
    const guard = this.config.runGuard;
    if (!guard) return this.storeLeased(thread, run);
    try {
      run.ticket = await guard.begin(thread.id, run.id);
    } catch (e) {
      // A load that failed for the same outage is tried again with the next message.
      await thread.restored;
      if (thread.loadError !== undefined && this.config.store) {
        thread.loadError = undefined;
        thread.restored = this.restore(thread, this.config.store);
      }
      const ref = { threadId: thread.id, runId: run.id };
      this.host.send({ type: 'runStarted', ...ref, model: this.config.model.name });
      this.host.send({ type: 'runError', ...ref, code: ErrorCode.StateUnavailable, message: `The run did not start: the shared state could not be reached (${describe(e)}). Send the message again.`.slice(0, 10_000), retryable: true });
      this.host.send({ type: 'runFinished', ...ref, reason: 'error' });
      return false;
    }
    if (run.ticket) return true;
    this.host.send({ type: 'error', code: ErrorCode.RunBusy, message: `Thread "${thread.id}" has a run in progress on another backend replica; cancel it or wait for runFinished.`, relatedId: thread.id });
    return false;
  }

  /**
   * Without replicas, a store other processes share (a data folder two VS Code windows' backends
   * use): the thread's lease for the run, after waiting a little for another process's run on it;
   * a thread that process wrote meanwhile is loaded again, so no message is lost or interleaved.
   */
  private async storeLeased(thread: Thread, run: ActiveRun): Promise<boolean> {
    const { store } = this.config;
    if (!store) return true;
    await thread.restored;
    const ref = { threadId: thread.id, runId: run.id };
    let lease;
    try {
      lease = await waitForThreadLease(store, thread.id, run.controller.signal);
    } catch (e) {
      this.host.log.error(`run ${run.id}: the thread's lease could not be taken: ${describe(e)}`);
      this.host.send({ type: 'runStarted', ...ref, model: this.config.model.name });
      this.host.send({ type: 'runError', ...ref, code: ErrorCode.Internal, message: `The run did not start: the conversation store could not be locked for it (${describe(e)}). Send the message again.`.slice(0, 10_000), retryable: true });
      this.host.send({ type: 'runFinished', ...ref, reason: 'error' });
      return false;
    }
    if (lease === 'none') return true;
    if (!lease) {
      this.host.send({ type: 'error', code: ErrorCode.RunBusy, message: `Thread "${thread.id}" has a run in progress in another backend process that shares the data folder (another window); wait for it to end and send again.`, relatedId: thread.id });
      return false;
    }
    run.storeLease = lease;
    if (lease.stale) {
      thread.history = [];
      thread.savedToolState = undefined;
      thread.lastRun = undefined;
      thread.unanswered = undefined;
      thread.restored = this.restore(thread, store);
      await thread.restored;
    }
    return true;
  }

  /**
   * The start of a run taken over from a replica that stopped: the thread as the store has it, the
   * results of its last batch collected (a call that cannot be collected gets a coded error result,
   * as after a restart), told to the client and saved. False when the run had ended after all.
   */
  private async continued(thread: Thread, run: ActiveRun, collect: CollectOutcome): Promise<boolean> {
    await thread.restored;
    if (thread.lastRun?.runId === run.id && thread.lastRun.status === 'finished') {
      this.host.log.debug?.(`run ${run.id} had finished before its replica stopped; nothing to continue`);
      return false;
    }
    const calls = thread.unanswered ?? [];
    thread.unanswered = undefined;
    if (calls.length === 0) return true;
    const ref = { threadId: thread.id, runId: run.id };
    const collected = await Promise.all(calls.map((call) => collect(call.id)));
    // Client calls are recorded before they are sent: one without a record never went out, so it
    // runs now, once. A server tool's result that was not saved cannot be told from one that never ran.
    const serverTools = this.host.serverTools();
    const rerun = calls.filter((call, i) => collected[i] === undefined && !serverTools.has(call.name));
    const known = calls.flatMap((call, i) => (rerun.includes(call) ? [] : [{ call, result: collected[i] ?? failure(ErrorCode.Disconnected, `The backend replica running ${call.name} stopped, and its result could not be collected.`) }]));
    // The reload stood in an error for each missing result; the collected ones take their places.
    const missing = new Set(calls.map((c) => c.id));
    thread.history = thread.history.filter((m) => !(m.role === 'tool' && missing.has(m.toolCallId)));
    const messages: ChatMessage[] = known.map(({ call, result }) => ({
      role: 'tool',
      toolCallId: call.id,
      toolName: call.name,
      content: excerptContent(modelContent(call.name, result), this.historyLimits.resultBytes),
      ...(result.outcome !== 'succeeded' ? { errorCode: result.errorCode ?? ErrorCode.ToolFailed } : {}),
    }));
    thread.history.push(...messages);
    for (const { call, result } of known) this.sendEnded(ref, call.id, result, 0);
    await this.save(thread, messages.map((message) => ({ kind: 'message', message })));
    run.ticket?.batchSaved();
    for (const { result } of known) if (result.augmentation) this.applyToThread(thread, result.augmentation);
    if (rerun.length > 0) await this.runBatch(thread, run, rerun);
    else await this.saveToolState(thread);
    return true;
  }

  /** Loads a thread the store holds; a store that fails leaves the thread empty, with a warning. */
  private async restore(thread: Thread, store: ConversationStore): Promise<void> {
    let stored;
    try {
      stored = await store.load(thread.id);
    } catch (e) {
      // Out of reach is not empty: starting the thread empty would drop its history once the store is back.
      if (e instanceof SharedStateError && e.code === 'STATE_UNAVAILABLE') {
        thread.loadError = e;
        return;
      }
      this.host.log.warn(`a thread could not be loaded from the conversation store; it starts empty: ${describe(e)}`);
      return;
    }
    if (!stored || thread.forgotten) return;
    thread.lastRun = stored.lastRun;
    thread.unanswered = unansweredCalls(stored.messages);
    thread.history.unshift(...restoredHistory(stored.messages));
    enforceBudget(thread.history, this.historyLimits.budgetBytes);
    if (stored.toolState) {
      reapplyToolState(thread.tools, stored.toolState);
      thread.savedToolState = JSON.stringify(stored.toolState);
      thread.unannounced = true;
    }
  }

  /** Appends to the thread in the store (none, or a reset thread: nothing to do); resolves once durable. */
  private save(thread: Thread, records: StoredRecord[]): Promise<void> {
    const { store } = this.config;
    if (!store || thread.forgotten) return Promise.resolve();
    const ticket = thread.run?.ticket;
    if (ticket) return ticket.append(records);
    return store.append(thread.id, records);
  }

  /** `save` after the stored history is loaded, never throwing: what went wrong comes back. */
  private async saved(thread: Thread, records: StoredRecord[]): Promise<{ ok: true } | { ok: false; error: unknown }> {
    try {
      await thread.restored;
      if (thread.loadError !== undefined) {
        const error = thread.loadError;
        thread.loadError = undefined;
        // This message fails rather than run on an empty history; the next one finds the thread loaded again.
        if (this.config.store) thread.restored = this.restore(thread, this.config.store);
        throw error;
      }
      await this.save(thread, records);
      return { ok: true };
    } catch (error) {
      return { ok: false, error };
    }
  }

  private saveFailed(thread: Thread, run: ActiveRun, error: unknown): void {
    this.host.log.error(`run ${run.id}: the conversation store failed: ${describe(error)}`);
    // An outage of the shared state says so, whichever step met it first (the lease, the load or this save).
    const code = error instanceof SharedStateError && error.code === 'STATE_UNAVAILABLE' ? ErrorCode.StateUnavailable : ErrorCode.Internal;
    this.host.send({ type: 'runError', threadId: thread.id, runId: run.id, code, message: `The message could not be saved, so the run did not start: ${describe(error)}`.slice(0, 10_000), retryable: true });
    this.finish(thread, run, 'error');
  }

  private request(thread: Thread): ModelRequest {
    const system = [this.config.systemPrompt, thread.tools.systemPrompt()].filter(Boolean).join('\n\n');
    const resultTools = this.budget?.tools(thread.id) ?? [];
    const tools = this.functions(thread);
    return { messages: [{ role: 'system', content: system }, ...thread.history], tools: [...tools, ...resultTools.filter((t) => !tools.some((f) => f.name === t.name))] };
  }

  /** The request, fitted to the model's context window (compacting the thread's history when it must; the client is told). */
  private async fittedRequest(thread: Thread, ref: { threadId: string; runId: string }, signal: AbortSignal): Promise<ModelRequest> {
    if (!this.budget) return this.request(thread);
    const { request, compaction } = await this.budget.fit(thread.history, () => this.request(thread), signal);
    if (compaction) this.host.send({ type: 'contextCompacted', ...ref, ...compaction, contextWindow: this.budget.config.window });
    return request;
  }

  /** A server tool by name: the session's, else the budget's result pager for this thread. */
  private serverTool(thread: Thread, name: string): ServerTool | undefined {
    return this.host.serverTools().get(name) ?? this.budget?.tools(thread.id).find((t) => t.name === name);
  }

  /** Server tools, then the client functions whose names no server tool took. */
  private functions(thread: Thread): FunctionSpec[] {
    const server = [...this.host.serverTools().values()];
    const taken = new Set(server.map((t) => t.name));
    return [
      ...server.map((t) => ({ name: t.name, description: t.description, parameters: t.parameters })),
      ...thread.tools.functions().filter((f) => !taken.has(f.name)),
    ];
  }

  /**
   * One batch of calls. Container and skill calls are answered first (so a tool of the group called
   * in the same batch resolves), then every other call is resolved and validated; the valid ones run
   * (executeBatch: server first, concurrent unless sequential) and all results join the history in
   * the order the model asked.
   */
  private async runBatch(thread: Thread, run: ActiveRun, calls: ToolCallRequest[]): Promise<void> {
    const ref = { threadId: thread.id, runId: run.id };
    const serverTools = this.host.serverTools();
    const expansions = calls.map((call) => {
      if (serverTools.has(call.name)) return undefined;
      const r = thread.tools.resolve(call.name);
      if (r?.kind === 'container') return thread.tools.expand(r.group);
      if (r?.kind === 'skill') return thread.tools.activateSkill(r.group, r.skill.name);
      return undefined;
    });

    const results: (ToolCallResult | undefined)[] = new Array(calls.length);
    const toRun: { index: number; call: PreparedCall }[] = [];
    calls.forEach((call, i) => {
      const expansion = expansions[i];
      if (expansion) {
        results[i] = this.announceExpansion(ref, call, expansion);
        return;
      }
      const prepared = this.prepare(thread, run, call);
      if ('result' in prepared) results[i] = prepared.result;
      else toRun.push({ index: i, call: prepared.call });
    });
    if (expansions.some(Boolean)) this.sendState(thread);

    const ran = await executeBatch(toRun.map((r) => r.call));
    toRun.forEach((r, k) => (results[r.index] = ran[k]));

    const augmentations: Augmentation[] = [];
    const firstResult = thread.history.length;
    const { resultBytes, budgetBytes } = this.historyLimits;
    for (const [i, call] of calls.entries()) {
      const result = results[i] ?? failure(ErrorCode.Internal, 'the call produced no result');
      // Each result's admission counts its tokens: other sessions go between them, not after the whole batch.
      if (this.budget && i > 0) await yieldToLoop();
      thread.history.push({
        role: 'tool',
        toolCallId: call.id,
        toolName: call.name,
        content: excerptContent(this.budget?.admit(thread.id, call.name, modelContent(call.name, result)) ?? modelContent(call.name, result), resultBytes),
        ...(result.outcome !== 'succeeded' ? { errorCode: result.errorCode ?? ErrorCode.ToolFailed } : {}),
      });
      if (result.augmentation) augmentations.push(result.augmentation);
    }
    const resultsSaved = this.save(thread, thread.history.slice(firstResult).map((message) => ({ kind: 'message', message })));
    enforceBudget(thread.history, budgetBytes, firstResult);
    for (const aug of augmentations) this.applyToThread(thread, aug);
    await resultsSaved;
    run.ticket?.batchSaved();
    await this.saveToolState(thread);
  }

  private async saveToolState(thread: Thread): Promise<void> {
    if (!this.config.store) return;
    const state = storedToolState(thread.tools);
    const json = JSON.stringify(state);
    if (json === thread.savedToolState) return;
    await this.save(thread, [{ kind: 'toolState', state }]);
    thread.savedToolState = json;
  }

  private announceExpansion(ref: { threadId: string; runId: string }, call: ToolCallRequest, expansion: Expansion): ToolCallResult {
    const { host } = this;
    host.send({ type: 'toolCallStarted', ...ref, callId: call.id, toolName: call.name, arguments: {}, executor: 'server', group: expansion.group });
    host.send({ type: 'groupExpanded', ...ref, group: expansion.group, ...(expansion.skill ? { skill: expansion.skill } : {}), tools: expansion.tools });
    const content: ContentItem[] = [{ type: 'text', text: expansion.text }];
    host.send({ type: 'toolCallEnded', ...ref, callId: call.id, outcome: 'succeeded', content, durationMs: 0 });
    return { outcome: 'succeeded', content };
  }

  /** Resolves and validates a call: either an immediate (error) result, or a call ready to run. */
  private prepare(thread: Thread, run: ActiveRun, call: ToolCallRequest): { result: ToolCallResult } | { call: PreparedCall } {
    const { host } = this;
    const ref = { threadId: thread.id, runId: run.id };
    const parsed = parseArguments(call.arguments, this.config.maxToolArgumentBytes ?? DEFAULT_MAX_TOOL_ARGUMENT_BYTES);
    const serverTool = this.serverTool(thread, call.name);
    const resolved = serverTool ? undefined : thread.tools.resolve(call.name);
    const executor = serverTool ? 'server' : 'client';
    const group = resolved && 'group' in resolved ? resolved.group : undefined;

    // A call refused here never reaches the extension: the backend answers it, so its executor is
    // `server` and the chat draws its card from these events (PROTOCOL.md "toolCallStarted").
    const immediate = (result: ToolCallResult) => {
      host.send({ type: 'toolCallStarted', ...ref, callId: call.id, toolName: call.name, arguments: parsed.ok ? parsed.value : {}, executor: 'server', ...(group ? { group } : {}) });
      this.sendEnded(ref, call.id, result, 0);
      return { result };
    };

    let parameters: Record<string, unknown>;
    let sequential: boolean;
    if (serverTool) {
      parameters = serverTool.parameters;
      sequential = serverTool.sequential === true;
    } else if (resolved?.kind === 'tool') {
      parameters = resolved.tool.parameters;
      sequential = resolved.tool.sequential === true;
    } else if (resolved?.kind === 'unavailable') {
      const why = resolved.reason === 'hidden'
        ? `"${call.name}" is hidden right now and cannot be called.`
        : `"${call.name}" belongs to the collapsed tool group "${resolved.group}"; call the function "${resolved.container}" first to expand it.`;
      return immediate(failure(ErrorCode.ToolHidden, why));
    } else {
      const names = this.functions(thread).map((f) => f.name);
      return immediate(failure(ErrorCode.UnknownTool, `There is no function named "${call.name}". Available functions: ${names.join(', ') || '(none)'}.`));
    }

    if (!parsed.ok) return immediate(failure(parsed.code, `Invalid arguments for ${call.name}: ${parsed.reason}. The tool was not run.`));
    const validation = validate(call.name, parameters, parsed.value);
    if (!validation.ok) return immediate(validation.result);

    const info: ToolCallInfo = { callId: call.id, toolName: call.name, arguments: validation.value, executor, ...(group ? { group } : {}), ...ref };
    host.send({ type: 'toolCallStarted', ...ref, callId: call.id, toolName: call.name, arguments: validation.value, executor, ...(group ? { group } : {}) });
    const signal = run.controller.signal;
    return {
      call: {
        executor,
        sequential,
        run: async () => {
          const started = Date.now();
          let result = await this.beforeHooks(info, parameters);
          if (!result) {
            try {
              result = serverTool ? await this.runServerTool(serverTool, info, signal) : await this.runClientTool(info, signal);
            } catch (e) {
              result = failure(ErrorCode.ToolFailed, `${call.name} failed: ${e instanceof Error ? e.message : String(e)}`);
            }
          }
          result = await this.afterHooks(info, result);
          this.sendEnded(ref, call.id, result, Date.now() - started);
          return result;
        },
      },
    };
  }

  /** Runs the beforeToolCall hooks in order; a result means the call must not run. Rewritten arguments are validated again. */
  private async beforeHooks(info: ToolCallInfo, parameters: Record<string, unknown>): Promise<ToolCallResult | undefined> {
    for (const hook of this.host.hooks.beforeToolCall) {
      let decision;
      try {
        decision = await hook(info);
      } catch (e) {
        return failure(ErrorCode.ToolFailed, `The backend's beforeToolCall hook failed: ${e instanceof Error ? e.message : String(e)}`);
      }
      if (!decision) continue;
      if ('block' in decision) {
        return { outcome: 'denied', content: [], errorCode: ErrorCode.PermissionDenied, errorMessage: `The backend blocked ${info.toolName}: ${decision.reason}` };
      }
      const validation = validate(info.toolName, parameters, decision.arguments);
      if (!validation.ok) return validation.result;
      info.arguments = validation.value;
    }
    return undefined;
  }

  private async afterHooks(info: ToolCallInfo, result: ToolCallResult): Promise<ToolCallResult> {
    let current = result;
    for (const hook of this.host.hooks.afterToolCall) {
      try {
        current = (await hook(info, current)) ?? current;
      } catch (e) {
        this.host.log.error(`afterToolCall hook failed for ${info.toolName}: ${e instanceof Error ? e.message : String(e)}`);
      }
    }
    return current;
  }

  private async runServerTool(tool: ServerTool, info: ToolCallInfo, signal: AbortSignal): Promise<ToolCallResult> {
    const { host } = this;
    const ref = { threadId: info.threadId, runId: info.runId };
    const work = Promise.resolve().then(() =>
      tool.execute(info.arguments, {
        callId: info.callId,
        threadId: info.threadId,
        runId: info.runId,
        signal,
        progress: (details) => host.send({ type: 'toolCallUpdated', ...ref, callId: info.callId, status: 'progress', details: String(details).slice(0, 10_000) }),
      }),
    );
    const value = await untilAborted(work, signal);
    if (value === ABORTED) return { outcome: 'cancelled', content: [], errorCode: ErrorCode.Cancelled, errorMessage: `${tool.name} was cancelled.` };
    return toToolCallResult(value);
  }

  private runClientTool(info: ToolCallInfo, signal: AbortSignal): Promise<ToolCallResult> {
    const ref = { threadId: info.threadId, runId: info.runId };
    return this.host.invoker.invoke({ toolName: info.toolName, callId: info.callId, arguments: info.arguments, threadId: info.threadId, runId: info.runId }, signal, (status, details) =>
      this.host.send({ type: 'toolCallUpdated', ...ref, callId: info.callId, status, ...(details !== undefined ? { details } : {}) }),
    );
  }

  private sendEnded(ref: { threadId: string; runId: string }, callId: string, result: ToolCallResult, durationMs: number): void {
    this.host.send({
      type: 'toolCallEnded',
      ...ref,
      callId,
      outcome: result.outcome,
      content: result.content,
      ...(result.errorMessage !== undefined ? { errorMessage: result.errorMessage.slice(0, 10_000) } : {}),
      ...(result.outcome !== 'succeeded' ? { errorCode: (result.errorCode ?? ErrorCode.ToolFailed).slice(0, 64) } : {}),
      durationMs,
    });
  }

  /**
   * Applies the session-wide updates a thread holds, then (when `announce`) reports its state once.
   * Their problems were reported when the session applied them, so they are not repeated per thread.
   */
  private applyQueued(thread: Thread, announce = true): void {
    const queued = thread.queued.splice(0);
    for (const aug of queued) this.applyToThread(thread, aug, false);
    if (queued.length > 0) thread.unannounced = true;
    if (announce && thread.unannounced) {
      thread.unannounced = false;
      this.sendState(thread);
    }
  }

  private applyToThread(thread: Thread, aug: Augmentation, fromToolResult = true): void {
    const { problems, notes } = applyAugmentation(thread.tools, aug, this.host.serverTools().keys());
    if (!fromToolResult) return;
    this.host.reportProblems(problems);
    for (const note of notes) this.host.log.debug?.(`thread ${thread.id}: ${note}`);
    this.sendState(thread);
  }

  private sendState(thread: Thread): void {
    // A run that outlives a reset must not report the state of the thread it no longer belongs to.
    if (this.threads.get(thread.id) !== thread) return;
    this.host.send({ type: 'toolGroupState', threadId: thread.id, ...thread.tools.snapshot() });
  }
}

/** Checks a tool's arguments against its schema (with the usual coercions); a failure is the result the caller reports. */
export function validate(toolName: string, parameters: Record<string, unknown>, args: Record<string, unknown>): { ok: true; value: Record<string, unknown> } | { ok: false; result: ToolCallResult } {
  const schema = compileParameters(parameters);
  if (!schema.ok) return { ok: false, result: failure(ErrorCode.InvalidSchema, `${toolName} has an invalid parameter schema (${schema.reason}); it cannot be called.`) };
  const checked = checkArguments(schema.validate, args);
  if (!checked.ok) return { ok: false, result: failure(ErrorCode.InvalidArguments, `Invalid arguments for ${toolName}: ${checked.reason}. The tool was not run.`) };
  return { ok: true, value: checked.value };
}

/** The model's call ids, made non-empty, short enough for the protocol and unique in the batch. */
function withUniqueIds(calls: ToolCallRequest[]): ToolCallRequest[] {
  const seen = new Set<string>();
  return calls.map((c) => {
    let id = c.id;
    if (!id || id.length > 200 || seen.has(id)) id = `call_${randomUUID()}`;
    seen.add(id);
    return id === c.id ? c : { ...c, id };
  });
}

/** What the model reads for a result: the content when it succeeded, else an error (or skip) sentence first. */
export function modelContent(toolName: string, r: ToolCallResult): ContentItem[] {
  if (r.outcome === 'succeeded') return r.content.length ? r.content : [{ type: 'text', text: `${toolName} finished without output.` }];
  const message = r.errorMessage ?? `${toolName}: ${r.outcome}.`;
  const head = r.outcome === 'skipped' ? `Skipped: ${message}` : `Error (${r.errorCode ?? ErrorCode.ToolFailed}): ${message}`;
  return [{ type: 'text', text: head }, ...r.content.filter((c) => !(c.type === 'text' && c.text === message))];
}

function userText(msg: UserMessage): string {
  const c = msg.context;
  if (!c) return msg.text;
  const lines: string[] = [];
  if (c.file) lines.push(`File: ${c.file}${c.language ? ` (${c.language})` : ''}`);
  if (c.selection) {
    const s = c.selection;
    lines.push(`Selection: line ${s.startLine + 1}, column ${s.startCharacter + 1} to line ${s.endLine + 1}, column ${s.endCharacter + 1}`);
  }
  if (c.selectedText) lines.push(`Selected text:\n\`\`\`\n${c.selectedText}\n\`\`\``);
  return lines.length ? `${msg.text}\n\n${EDITOR_CONTEXT_MARK}\n${lines.join('\n')}` : msg.text;
}

function describe(e: unknown): string {
  return e instanceof Error ? e.message : String(e);
}

/** Separates the user's words from the editor context the backend appends to them. */
export const EDITOR_CONTEXT_MARK = '[Editor context]';

const ABORTED = Symbol('aborted');

function untilAborted<T>(work: Promise<T>, signal: AbortSignal): Promise<T | typeof ABORTED> {
  if (signal.aborted) return Promise.resolve(ABORTED);
  return new Promise((resolve, reject) => {
    const onAbort = () => resolve(ABORTED);
    signal.addEventListener('abort', onAbort, { once: true });
    work.then(
      (v) => {
        signal.removeEventListener('abort', onAbort);
        resolve(v);
      },
      (e: unknown) => {
        signal.removeEventListener('abort', onAbort);
        reject(e instanceof Error ? e : new Error(String(e)));
      },
    );
  });
}
