/**
 * The agent loop, per thread. A `userMessage` starts a run; each turn sends the thread's history,
 * the system prompt (with the client-tool part of the thread's state) and the visible functions to
 * the model, streams its text as `textDelta`, then runs the tool calls it asked for (toolCalls.ts)
 * and loops until the model answers without calls, the run is cancelled, a model call fails, or
 * `maxTurns` is hit. The threads, their storage and leases are threads.ts.
 *
 * Every run ends with exactly one `runFinished`; a failure sends `runError` (code, message,
 * retryable) just before `runFinished { reason: 'error' }`. A tool that fails, throws, is refused
 * or times out is an error result the model reads, never the end of the run.
 */
import { randomUUID } from 'node:crypto';
import type { Augmentation, FinishReason, ServerToClient, Steer, TokenCounts, UserMessage, WithdrawSteer } from '../../protocol';
import { ErrorCode } from '../../protocol';
import { DEFAULT_MAX_TOOL_ARGUMENT_BYTES, keptCall } from './toolArguments';
import type { Logger } from '../log';
import type { ChatMessage, ModelRequest, ToolCallRequest } from '../model/chatModel';
import { ModelFailure } from '../model/chatModel';
import { DEFAULT_MODEL_RETRIES, streamWithRetries, type ModelRetryNote } from '../model/retry';
import { fromModel } from '../model/modelChunks';
import type { RegistrationProblem } from '../toolset/registration';
import type { HistoryLimits } from './historyBudget';
import { DEFAULT_HISTORY_LIMITS, enforceBudget } from './historyBudget';
import type { HookLists, ServerTool } from '../toolset/serverTools';
import type { ClientToolState, FunctionSpec } from '../toolset/toolState';
import { addUsage, runUsage } from './usage';
import { SharedStateError } from '../state/sharedState';
import type { Compaction, ContextBudgetConfig } from '../context/budget';
import { ContextBudget } from '../context/budget';
import type { RunTicket } from '../failover/sessionJournal';
import type { ClientToolRunner, RunRef } from './toolCalls';
import { ToolCalls, withUniqueIds } from './toolCalls';
import type { ActiveRun, CollectOutcome, Thread, ThreadsConfig } from './threads';
import { describe, Threads } from './threads';
import { MAX_STEERS_PER_RUN, SteerQueue } from './steering';
import { rewindPoint } from './truncation';

export type { CollectOutcome } from './threads';

/** What the agent needs from its session. */
export interface AgentHost {
  /** Sends to the client; buffered while the session waits for a resume. */
  send(message: ServerToClient): void;
  /** Resolves once the socket's send buffer is below its high-water mark. */
  drained(): Promise<void>;
  /** The session's client calls (session/invoker.ts). */
  readonly invoker: ClientToolRunner;
  /** A copy of the session's tool state, for a new or reset thread. */
  freshToolState(): ClientToolState;
  serverTools(): ReadonlyMap<string, ServerTool>;
  readonly hooks: HookLists;
  /** Refused tools of an injected group, told to the client as `error` messages. */
  reportProblems(problems: readonly RegistrationProblem[]): void;
  readonly log: Logger;
}

export interface AgentConfig extends ThreadsConfig {
  systemPrompt: string;
  maxTurns: number;
  /** Times a model request that got no answer in time is sent again (model/retry.ts); default 2. */
  modelRetries?: number;
  /** Bytes a tool result and a thread's history may keep (historyBudget.ts); defaults when omitted. */
  history?: HistoryLimits;
  /** Runs the session may have in progress (default 16); past them, or past `maxThreads` threads all running, a message gets RUN_LIMIT. */
  maxRuns?: number;
  /** UTF-8 bytes of one call's arguments that are parsed (toolArguments.ts); default 1 MiB. */
  maxToolArgumentBytes?: number;
  /** The model's context window and summariser (context/budget.ts); without it requests are not fitted to a window. */
  context?: ContextBudgetConfig;
}

/** Runs a session may have in progress by default. */
const MAX_RUNS = 16;

export class Agent {
  private readonly threads: Threads;
  private readonly toolCalls: ToolCalls;
  private readonly budget: ContextBudget | undefined;

  constructor(
    private readonly host: AgentHost,
    private readonly config: AgentConfig,
  ) {
    this.budget = config.context ? new ContextBudget(config.context) : undefined;
    this.threads = new Threads(host, config, () => this.historyLimits, this.budget);
    this.toolCalls = new ToolCalls(host, config.maxToolArgumentBytes ?? DEFAULT_MAX_TOOL_ARGUMENT_BYTES);
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
    for (const t of this.threads.all()) if (t.run) n++;
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
    const thread = this.threads.open(msg.threadId);
    const run: ActiveRun = { id: `run_${randomUUID()}`, controller: new AbortController() };
    thread.run = run;
    this.track(thread, run, this.execute(thread, run, userText(msg)));
  }

  /**
   * Continues a run another replica started and could not finish (failover/adoption.ts): under the
   * same run id, with the thread's lease already taken, the collected results added to the history.
   */
  resumeRun(threadId: string, runId: string, ticket: RunTicket, collect: CollectOutcome): void {
    const thread = this.threads.open(threadId);
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
        if (this.threads.isCurrent(thread)) this.threads.applyQueued(thread);
      })
      .catch((e: unknown) => this.host.log.error(`run ${run.id} ended badly: ${e instanceof Error ? (e.stack ?? e.message) : String(e)}`));
  }

  /** Cancels the runs that match (all of them when neither id is given); returns how many. */
  cancel(threadId?: string, runId?: string): number {
    let n = 0;
    for (const t of this.threads.all()) {
      if (!t.run || (threadId && t.id !== threadId) || (runId && t.run.id !== runId)) continue;
      t.run.controller.abort();
      n++;
    }
    return n;
  }

  /** The tokens a thread's runs used so far, as its last `runFinished` reported them; undefined when none were reported. */
  /**
   * Queues (or replaces) a message for the run in progress, delivered at its next tool boundary;
   * NOT_RUNNING when that run is not in progress, LIMIT_EXCEEDED past MAX_STEERS_PER_RUN.
   */
  steer(msg: Steer): void {
    const run = this.runningRun(msg);
    if (!run) return;
    run.steers ??= new SteerQueue();
    if (!run.steers.put(msg.steerId, msg.text)) {
      this.host.send({ type: 'error', code: ErrorCode.LimitExceeded, message: `Run ${msg.runId} already holds ${MAX_STEERS_PER_RUN} messages for its next tool boundary; wait for them to be delivered.`, relatedId: msg.steerId });
      return;
    }
    this.host.send({ type: 'steerUpdated', threadId: msg.threadId, runId: msg.runId, steerId: msg.steerId, state: 'queued' });
  }

  /** Takes back a waiting steer; one already delivered or returned stays as it is (its state was sent). */
  withdrawSteer(msg: WithdrawSteer): void {
    const run = this.runningRun(msg);
    if (run?.steers?.withdraw(msg.steerId)) this.host.send({ type: 'steerUpdated', threadId: msg.threadId, runId: msg.runId, steerId: msg.steerId, state: 'withdrawn' });
  }

  private runningRun(msg: Steer | WithdrawSteer): ActiveRun | undefined {
    const run = this.threads.get(msg.threadId)?.run;
    if (run?.id === msg.runId && !run.controller.signal.aborted) return run;
    this.host.send({ type: 'error', code: ErrorCode.NotRunning, message: `Run ${msg.runId} is not in progress on thread "${msg.threadId}"; the message was not queued (send it as a userMessage).`, relatedId: msg.steerId });
    return undefined;
  }

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
    const { size, maxThreads } = this.threads;
    if (runs >= maxRuns) return `this session already has ${runs} runs in progress (limit ${maxRuns}). Wait for one to end, or cancel one, and send the message again.`;
    if (newThread && size >= maxThreads && runs >= size) return `this session keeps ${size} threads (limit ${maxThreads}) and every one has a run in progress.`;
    return undefined;
  }

  /** Forgets a thread's history and client tool state (its run, if any, is cancelled). */
  resetThread(threadId: string): void {
    this.threads.reset(threadId);
  }

  /**
   * Forgets every thread in memory: the session ended (the store keeps them, to be continued), or a
   * resumed hello asked for reset (`fromStore`: as if each got resetThread, so the store forgets them too).
   */
  resetAll(fromStore = false): void {
    this.cancel();
    this.threads.clear(fromStore);
  }

  /** The session moved to another replica: runs stop without saving or releasing anything that replica now owns. */
  abandonAll(): void {
    this.threads.abandonAll();
  }

  /** Hands a session-wide tool-group update to every thread (threads.ts `updateAll`). */
  updateAll(aug: Augmentation): void {
    this.threads.updateAll(aug);
  }

  /** False when a thread with a run in progress has no place for `aug` among the updates it holds. */
  canQueueUpdate(aug: Augmentation): boolean {
    return this.threads.canQueueUpdate(aug);
  }

  /** Re-syncs every thread with a resumed session's registered groups. */
  forEachToolState(fn: (state: ClientToolState) => void): void {
    this.threads.forEachToolState(fn);
  }

  private async execute(thread: Thread, run: ActiveRun, text: string, collect?: CollectOutcome): Promise<void> {
    const { host, config, threads } = this;
    const signal = run.controller.signal;
    const ref = { threadId: thread.id, runId: run.id };
    if (collect) {
      let rerun: ToolCallRequest[] | false;
      try {
        rerun = await threads.continued(thread, run, collect);
        if (rerun && rerun.length > 0) await this.runBatch(thread, run, rerun);
      } catch (e) {
        host.log.error(`run ${run.id} could not be continued: ${describe(e)}`);
        host.send({ type: 'runError', ...ref, code: ErrorCode.StateUnavailable, message: `The run could not be continued after the backend replica running it stopped: ${describe(e)}`.slice(0, 10_000), retryable: true });
        return this.finish(thread, run, 'error');
      }
      if (rerun === false) return;
    } else {
      if (!(await threads.leased(thread, run))) return;
      const user: ChatMessage = { role: 'user', content: text, runId: run.id };
      // The client hears of the run only once its message is saved.
      const saved = await threads.saved(thread, [{ kind: 'run', run: { runId: run.id, status: 'started' } }, { kind: 'message', message: user }]);
      host.send({ type: 'runStarted', ...ref, model: config.model.name });
      if (!saved.ok) return this.saveFailed(thread, run, saved.error);
      thread.history.push(user);
      enforceBudget(thread.history, this.historyLimits.budgetBytes);
    }
    if (signal.aborted) return this.finish(thread, run, 'cancelled');
    try {
      for (let turn = 0; turn < config.maxTurns; turn++) {
        threads.applyQueued(thread);
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
          if (reply) await threads.save(thread, [{ kind: 'message', message: { role: 'assistant', content: reply } }]);
          return this.finish(thread, run, 'cancelled');
        }
        const toolCalls = withUniqueIds(calls);
        // The thread keeps a note in place of arguments over the limit; the calls run (or fail) from the text as sent.
        const kept = toolCalls.map((c) => keptCall(c, this.config.maxToolArgumentBytes ?? DEFAULT_MAX_TOOL_ARGUMENT_BYTES));
        const answer: ChatMessage = { role: 'assistant', content: reply, ...(kept.length ? { toolCalls: kept } : {}) };
        thread.history.push(answer);
        const answerSaved = threads.save(thread, [{ kind: 'message', message: answer }]);
        enforceBudget(thread.history, this.historyLimits.budgetBytes);
        await answerSaved;
        if (!toolCalls.length) return this.finish(thread, run, 'completed');
        await this.runBatch(thread, run, toolCalls);
        if (signal.aborted) return this.finish(thread, run, 'cancelled');
        await this.deliverSteers(thread, run);
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

  /** The tool boundary: the user's waiting messages join the thread, so the next request carries them. */
  private async deliverSteers(thread: Thread, run: ActiveRun): Promise<void> {
    const steers = run.steers?.takeAll() ?? [];
    if (steers.length === 0) return;
    const messages: ChatMessage[] = steers.map((s) => ({ role: 'user', content: s.text }));
    thread.history.push(...messages);
    await this.threads.save(thread, messages.map((message) => ({ kind: 'message', message })));
    enforceBudget(thread.history, this.historyLimits.budgetBytes);
    for (const s of steers) this.host.send({ type: 'steerUpdated', threadId: thread.id, runId: run.id, steerId: s.steerId, state: 'delivered' });
  }

  private finish(thread: Thread, run: ActiveRun, reason: FinishReason): void {
    // Messages that found no tool boundary go back to the client, which sends them as a new message.
    for (const s of run.steers?.takeAll() ?? []) this.host.send({ type: 'steerUpdated', threadId: thread.id, runId: run.id, steerId: s.steerId, state: 'returned' });
    if (thread.run?.id === run.id) {
      this.threads.save(thread, [{ kind: 'run', run: { runId: run.id, status: 'finished', reason } }]).catch((e: unknown) => this.host.log.error(`could not save a run's end: ${describe(e)}`));
    }
    const usage = runUsage(run.usage, thread.usage);
    this.host.send({ type: 'runFinished', threadId: thread.id, runId: run.id, reason, ...(usage ? { usage } : {}) });
  }

  private saveFailed(thread: Thread, run: ActiveRun, error: unknown): void {
    this.host.log.error(`run ${run.id}: the conversation store failed: ${describe(error)}`);
    // An outage of the shared state says so, whichever step met it first (the lease, the load or this save).
    const code = error instanceof SharedStateError && error.code === 'STATE_UNAVAILABLE' ? ErrorCode.StateUnavailable : ErrorCode.Internal;
    this.host.send({ type: 'runError', threadId: thread.id, runId: run.id, code, message: `The message could not be saved, so the run did not start: ${describe(error)}`.slice(0, 10_000), retryable: true });
    this.finish(thread, run, 'error');
  }

  /** One batch of calls (toolCalls.ts), its results then added to the thread (threads.ts). */
  private async runBatch(thread: Thread, run: ActiveRun, calls: ToolCallRequest[]): Promise<void> {
    const results = await this.toolCalls.run(
      {
        ref: { threadId: thread.id, runId: run.id },
        signal: run.controller.signal,
        tools: thread.tools,
        serverTools: this.host.serverTools(),
        serverTool: (name) => this.serverTool(thread, name),
        functions: () => this.functions(thread),
        expanded: () => this.threads.sendState(thread),
      },
      calls,
    );
    await this.threads.recordResults(thread, run, calls, results);
  }

  private request(thread: Thread): ModelRequest {
    const system = [this.config.systemPrompt, thread.tools.systemPrompt()].filter(Boolean).join('\n\n');
    const resultTools = this.budget?.tools(thread.id) ?? [];
    const tools = this.functions(thread);
    return { messages: [{ role: 'system', content: system }, ...thread.history], tools: [...tools, ...resultTools.filter((t) => !tools.some((f) => f.name === t.name))] };
  }

  /** The request, fitted to the model's context window (compacting the thread's history when it must; the client is told). */
  private async fittedRequest(thread: Thread, ref: RunRef, signal: AbortSignal): Promise<ModelRequest> {
    if (!this.budget) return this.request(thread);
    const { request, compaction, tokens } = await this.budget.fit(thread.history, () => this.request(thread), signal);
    if (compaction) {
      await this.threads.saveWholeHistory(thread);
      this.host.send(compactedEvent(ref, compaction, this.budget.config.window));
    }
    this.host.send({ type: 'contextUsage', ...ref, tokens, contextWindow: this.budget.config.window, estimated: true });
    return request;
  }

  /**
   * Compact now: a run of its own that summarises (or elides) every turn before the newest, then
   * says how much of the window is used; RUN_BUSY while the thread has a run.
   */
  compactThread(threadId: string): void {
    const existing = this.threads.get(threadId);
    if (existing?.run) {
      this.host.send({ type: 'error', code: ErrorCode.RunBusy, message: `Thread "${threadId}" has a run in progress (${existing.run.id}); compact it once the run is over.`, relatedId: threadId });
      return;
    }
    const limit = this.runLimit(existing === undefined);
    if (limit) {
      this.host.send({ type: 'error', code: ErrorCode.RunLimit, message: `Thread "${threadId}" was not compacted: ${limit}`, relatedId: threadId });
      return;
    }
    const thread = this.threads.open(threadId);
    const run: ActiveRun = { id: `run_${randomUUID()}`, controller: new AbortController() };
    thread.run = run;
    this.track(thread, run, this.compactNow(thread, run));
  }

  private async compactNow(thread: Thread, run: ActiveRun): Promise<void> {
    const ref = { threadId: thread.id, runId: run.id };
    await thread.restored;
    this.host.send({ type: 'runStarted', ...ref, model: this.config.model.name });
    try {
      if (this.budget) {
        const { compaction, tokens } = await this.budget.compactNow(thread.history, () => this.request(thread), run.controller.signal);
        if (compaction) {
          await this.threads.saveWholeHistory(thread);
          this.host.send(compactedEvent(ref, compaction, this.budget.config.window));
        }
        this.host.send({ type: 'contextUsage', ...ref, tokens, contextWindow: this.budget.config.window, estimated: true });
      }
      this.finish(thread, run, run.controller.signal.aborted ? 'cancelled' : 'completed');
    } catch (e) {
      if (run.controller.signal.aborted) return this.finish(thread, run, 'cancelled');
      const failed = e instanceof ModelFailure ? e : new ModelFailure(ErrorCode.Internal, `The backend failed: ${describe(e)}`, false);
      this.host.send({ type: 'runError', ...ref, code: failed.code, message: `The thread was not compacted: ${failed.message}`.slice(0, 10_000), retryable: failed.retryable });
      this.finish(thread, run, 'error');
    }
  }

  /**
   * Rewind: drops the user message that started run `runId` and everything after it, saved as a
   * historyReset like a compaction (a restart, or another replica, loads the shorter history), then
   * answers `threadTruncated`. RUN_BUSY while the thread has a run; NOT_FOUND for a thread or run
   * the history does not hold. The thread is held meanwhile, so a message sent during it gets RUN_BUSY.
   */
  truncateThread(threadId: string, runId: string): void {
    const existing = this.threads.get(threadId);
    if (existing?.run) {
      this.host.send({ type: 'error', code: ErrorCode.RunBusy, message: `Thread "${threadId}" has a run in progress (${existing.run.id}); rewind it once the run is over.`, relatedId: threadId });
      return;
    }
    const thread = this.threads.open(threadId);
    const hold: ActiveRun = { id: `truncate_${randomUUID()}`, controller: new AbortController() };
    thread.run = hold;
    this.track(thread, hold, this.truncate(thread, runId));
  }

  private async truncate(thread: Thread, runId: string): Promise<void> {
    await thread.restored;
    const threadId = thread.id;
    if (thread.loadError !== undefined) {
      thread.loadError = undefined;
      if (this.config.store) thread.restored = this.threads.restore(thread, this.config.store);
      this.host.send({ type: 'error', code: ErrorCode.StateUnavailable, message: `Thread "${threadId}" could not be loaded, so it was not rewound; try again.`, relatedId: threadId });
      return;
    }
    if (thread.history.length === 0) {
      this.host.send({ type: 'error', code: ErrorCode.NotFound, message: `Thread "${threadId}" is unknown (or empty); nothing was rewound.`, relatedId: threadId });
      return;
    }
    const at = rewindPoint(thread.history, runId);
    if (at < 0) {
      this.host.send({ type: 'error', code: ErrorCode.NotFound, message: `Run ${runId} did not start a message in thread "${threadId}"'s history (unknown, or compacted into a summary); nothing was rewound.`, relatedId: runId });
      return;
    }
    const kept = thread.history.slice(0, at);
    try {
      await this.threads.saveWholeHistory(thread, kept);
    } catch (e) {
      this.host.log.error(`thread ${threadId} could not be rewound: ${describe(e)}`);
      this.host.send({ type: 'error', code: ErrorCode.Internal, message: `Thread "${threadId}" was not rewound: its history could not be saved (${describe(e)}).`.slice(0, 10_000), relatedId: runId });
      return;
    }
    const dropped = thread.history.length - at;
    thread.history = kept;
    thread.unanswered = undefined;
    this.host.send({ type: 'threadTruncated', threadId, runId, messages: dropped });
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

/** Separates the user's words from the editor context the backend appends to them. */
export const EDITOR_CONTEXT_MARK = '[Editor context]';

/** A compaction as the client hears of it, the summary cut to what the message carries. */
function compactedEvent(ref: RunRef, compaction: Compaction, contextWindow: number): ServerToClient {
  const { summary, ...counts } = compaction;
  return { type: 'contextCompacted', ...ref, ...counts, contextWindow, ...(summary !== undefined ? { summary: summary.slice(0, 10_000) } : {}) };
}
