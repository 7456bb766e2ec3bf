/**
 * The threads of one session's agent: each thread's history and client tool state, kept in memory
 * (least recently used idle threads go first past the cap), loaded from and saved to the
 * conversation store, the thread's lease for a run (replicas, or a data folder other processes
 * share), and the start of a run another replica could not finish.
 */
import type { Augmentation, ServerToClient, TokenCounts } from '../../protocol';
import { ErrorCode } from '../../protocol';
import type { ContextBudget } from '../context/budget';
import { yieldToLoop } from '../context/tokens';
import { unansweredCalls } from '../failover/continuedRun';
import type { RunTicket } from '../failover/sessionJournal';
import type { HistoryLimits } from './historyBudget';
import { enforceBudget, excerptContent } from './historyBudget';
import type { Logger } from '../log';
import type { ChatMessage, ChatModel, ToolCallRequest } from '../model/chatModel';
import { isContextOnly, mergeContext } from './queuedUpdates';
import type { RegistrationProblem } from '../toolset/registration';
import { applyAugmentation } from '../toolset/registration';
import type { ServerTool, ToolCallResult } from '../toolset/serverTools';
import { SharedStateError } from '../state/sharedState';
import type { ConversationStore, StoredRecord, StoredRunStatus, ThreadLease } from '../store/conversationStore';
import { reapplyToolState, restoredHistory, storedToolState } from '../store/restoredHistory';
import { waitForThreadLease } from '../store/threadLease';
import { callEnded, failure, modelContent } from './toolCalls';
import type { ClientToolState } from '../toolset/toolState';
import type { SteerQueue } from './steering';

/** What the thread store needs from its session. */
export interface ThreadsHost {
  send(message: ServerToClient): void;
  /** A copy of the session's tool state, for a new or reset thread. */
  freshToolState(): ClientToolState;
  serverTools(): ReadonlyMap<string, ServerTool>;
  /** Refused tools of an injected group, told to the client as `error` messages. */
  reportProblems(problems: readonly RegistrationProblem[]): void;
  readonly log: Logger;
}

export interface ThreadsConfig {
  model: ChatModel;
  /** Where threads are saved as they grow and reloaded from when not in memory; none: memory only. */
  store?: ConversationStore;
  /** Threads the session keeps (default 256). */
  maxThreads?: number;
  /**
   * With replicas (failover/sessionJournal.ts): a run first takes its thread's lease; undefined means
   * another replica runs the thread now (RUN_BUSY). The ticket's fenced append replaces the store's.
   */
  runGuard?: { begin(threadId: string, runId: string): Promise<RunTicket | undefined> };
}

/** The outcome of the model's call `callId`, collected by the replica that took a run over; undefined when none can be. */
export type CollectOutcome = (callId: string) => Promise<ToolCallResult | undefined>;

export interface ActiveRun {
  id: string;
  controller: AbortController;
  /** The thread's lease while the run holds it (replicas only). */
  ticket?: RunTicket;
  /** The thread's lease in a store other processes share (a data folder), while the run holds it. */
  storeLease?: ThreadLease;
  /** Tokens the run's model requests reported so far. */
  usage?: TokenCounts;
  /** The user's messages waiting for the run's next tool boundary (steering.ts). */
  steers?: SteerQueue;
}

export interface Thread {
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
/** Session-wide updates a thread holds for its next model call; past this an idle thread catches up at once. */
export const MAX_QUEUED_UPDATES = 32;

export class Threads {
  private readonly threads = new Map<string, Thread>();

  constructor(
    private readonly host: ThreadsHost,
    private readonly config: ThreadsConfig,
    private readonly limits: () => HistoryLimits,
    private readonly budget: ContextBudget | undefined,
  ) {}

  get size(): number {
    return this.threads.size;
  }

  get maxThreads(): number {
    return this.config.maxThreads ?? MAX_THREADS;
  }

  all(): IterableIterator<Thread> {
    return this.threads.values();
  }

  get(id: string): Thread | undefined {
    return this.threads.get(id);
  }

  /** False once the thread was reset or dropped: a run that outlives it must not touch the new one. */
  isCurrent(thread: Thread): boolean {
    return this.threads.get(thread.id) === thread;
  }

  /** The thread, made the most recent one; a new one is loaded from the store. */
  open(id: string): Thread {
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

  /** Forgets a thread's history and client tool state (its run, if any, is cancelled). */
  reset(threadId: string): void {
    const old = this.threads.get(threadId);
    old?.run?.controller.abort();
    if (old) old.forgotten = true;
    this.config.store?.delete(threadId).catch((e: unknown) => this.host.log.error(`could not delete a thread from the conversation store: ${describe(e)}`));
    this.budget?.results.forget(threadId);
    const fresh: Thread = { id: threadId, history: [], tools: this.host.freshToolState(), queued: [] };
    this.keep(fresh);
    this.sendState(fresh);
  }

  /** Forgets every thread in memory; `fromStore`: the store forgets them too. */
  clear(fromStore: boolean): void {
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
   * (and then reports its state once), so an update is not one toolGroupState per thread. An idle
   * thread whose queue is full catches up silently, so at most MAX_QUEUED_UPDATES updates are held
   * per thread. A context-only update joins the context-only update a thread holds last instead of
   * taking a place of its own.
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

  /**
   * Applies the session-wide updates a thread holds, then (when `announce`) reports its state once.
   * Their problems were reported when the session applied them, so they are not repeated per thread.
   */
  applyQueued(thread: Thread, announce = true): void {
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

  sendState(thread: Thread): void {
    // A run that outlives a reset must not report the state of the thread it no longer belongs to.
    if (!this.isCurrent(thread)) return;
    this.host.send({ type: 'toolGroupState', threadId: thread.id, ...thread.tools.snapshot() });
  }

  /**
   * Adds a batch's results to the history in the order the model asked, each admitted to the
   * context budget and cut to the result limit, saves them, then applies the tool-group updates
   * they carried.
   */
  async recordResults(thread: Thread, run: ActiveRun, calls: ToolCallRequest[], results: readonly (ToolCallResult | undefined)[]): Promise<void> {
    const augmentations: Augmentation[] = [];
    const firstResult = thread.history.length;
    const { resultBytes, budgetBytes } = this.limits();
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

  /** With replicas, takes the thread's lease for the run; false (the client told why) when it cannot. */
  async leased(thread: Thread, run: ActiveRun): Promise<boolean> {
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
   * as after a restart), told to the client and saved. Returns the client calls that never went out
   * (the caller runs them now, once); false when the run had ended after all.
   */
  async continued(thread: Thread, run: ActiveRun, collect: CollectOutcome): Promise<ToolCallRequest[] | false> {
    await thread.restored;
    if (thread.lastRun?.runId === run.id && thread.lastRun.status === 'finished') {
      this.host.log.debug?.(`run ${run.id} had finished before its replica stopped; nothing to continue`);
      return false;
    }
    const calls = thread.unanswered ?? [];
    thread.unanswered = undefined;
    if (calls.length === 0) return [];
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
      content: excerptContent(modelContent(call.name, result), this.limits().resultBytes),
      ...(result.outcome !== 'succeeded' ? { errorCode: result.errorCode ?? ErrorCode.ToolFailed } : {}),
    }));
    thread.history.push(...messages);
    for (const { call, result } of known) this.host.send(callEnded(ref, call.id, result, 0));
    await this.save(thread, messages.map((message) => ({ kind: 'message', message })));
    run.ticket?.batchSaved();
    for (const { result } of known) if (result.augmentation) this.applyToThread(thread, result.augmentation);
    if (rerun.length === 0) await this.saveToolState(thread);
    return rerun;
  }

  /** Loads a thread the store holds; a store that fails leaves the thread empty, with a warning. */
  async restore(thread: Thread, store: ConversationStore): Promise<void> {
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
    enforceBudget(thread.history, this.limits().budgetBytes);
    if (stored.toolState) {
      reapplyToolState(thread.tools, stored.toolState);
      thread.savedToolState = JSON.stringify(stored.toolState);
      thread.unannounced = true;
    }
  }

  /** Appends to the thread in the store (none, or a reset thread: nothing to do); resolves once durable. */
  save(thread: Thread, records: StoredRecord[]): Promise<void> {
    const { store } = this.config;
    if (!store || thread.forgotten) return Promise.resolve();
    const ticket = thread.run?.ticket;
    if (ticket) return ticket.append(records);
    return store.append(thread.id, records);
  }

  /** Saves the history as it now is in place of what the store holds (after a compaction, so a reload does not bring back what was compacted). */
  saveWholeHistory(thread: Thread, history: readonly ChatMessage[] = thread.history): Promise<void> {
    return this.save(thread, [{ kind: 'historyReset' }, ...history.map((message): StoredRecord => ({ kind: 'message', message }))]);
  }

  /** `save` after the stored history is loaded, never throwing: what went wrong comes back. */
  async saved(thread: Thread, records: StoredRecord[]): Promise<{ ok: true } | { ok: false; error: unknown }> {
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
}

export function describe(e: unknown): string {
  return e instanceof Error ? e.message : String(e);
}
