/**
 * Runs the editor's own client tools (ReadFile, OpenDiff, RunInTerminal, …) by name for an agent,
 * through a dispatcher over the same registry, consent and host as the backend's calls
 * (`ClientCore.createDispatcher`): the same lookup, argument schema, `prepare` with the path rules,
 * prompt, TOCTOU checks, run-time and result caps, and call records for the chat's cards. The
 * caller of each call is the agent: the user's while its turn runs, otherwise a background call.
 */
import type { ClientToolInvokeResponse, ProgressStatus } from '../protocol';
import type { Disposable, Event } from '../base/events';
import type { CallRecord } from '../core/callRecord';
import { LocalCaller, type LocalDispatcherFactory } from '../core/localCaller';
import type { AgentCaller } from './agentCallbacks';

export type RunnerDispatcherFactory = LocalDispatcherFactory;

export interface ToolRunOptions {
  /** Aborting cancels the call (an open prompt closes, a running command stops). */
  signal: AbortSignal;
  /** The dispatcher's progress: `running` once the user allowed the call (or it needed no prompt). */
  onProgress?: (status: ProgressStatus) => void;
  /** The action the call is about when the agent asked permission for it too: one decision for both (`ConsentAsk.binding`). */
  binding?: string;
}

export class ToolRunner implements Disposable {
  private readonly calls: LocalCaller;
  /** The extension's record of every call it ran for the agent. */
  readonly onCallRecord: Event<CallRecord>;

  /** @param caller the agent, the chat thread its session serves (on every call's record), and whether its turn runs */
  constructor(createDispatcher: RunnerDispatcherFactory, private readonly caller: AgentCaller) {
    this.calls = new LocalCaller(createDispatcher, 'agent');
    this.onCallRecord = this.calls.onCallRecord;
  }

  get inFlight(): number {
    return this.calls.inFlight;
  }

  /** Runs one call; always resolves with the dispatcher's answer (a result or a coded error). */
  run(toolName: string, args: Record<string, unknown>, options: ToolRunOptions): Promise<ClientToolInvokeResponse> {
    const { onProgress } = options;
    return this.calls.call(toolName, args, {
      caller: { kind: 'agent', label: this.caller.agent, userRun: this.caller.isRunning() },
      threadId: this.caller.threadId,
      ...(options.binding !== undefined ? { binding: options.binding } : {}),
      signal: options.signal,
      cancelReason: 'the agent withdrew the request',
      ...(onProgress ? { onProgress: (status: ProgressStatus) => onProgress(status) } : {}),
    });
  }

  /** Ends every call still running (their prompts close) with CANCELLED. */
  dispose(): void {
    this.calls.dispose();
  }
}
