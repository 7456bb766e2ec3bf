/**
 * Runs the editor's own client tools (ReadFile, OpenDiff, RunInTerminal, …) by name for an agent,
 * through a dispatcher over the same registry, consent and host as the backend's calls
 * (`ClientCore.createDispatcher`): the same lookup, argument schema, `prepare` with the path rules,
 * prompt, TOCTOU checks, run-time and result caps, and call records for the chat's cards. The
 * caller of each call is the agent: the user's while its turn runs, otherwise a background call.
 */
import { randomUUID } from 'node:crypto';
import type { ClientToolInvokeResponse, ClientToServer, ProgressStatus } from '../protocol';
import type { Disposable, Event } from '../base/events';
import type { CallRecord } from '../core/callRecord';
import type { Dispatcher, DispatcherOptions } from '../core/dispatcher';
import type { AgentCaller } from './agentCallbacks';

export type RunnerDispatcherFactory = (options: Pick<DispatcherOptions, 'send'>) => Dispatcher;

export interface ToolRunOptions {
  /** Aborting cancels the call (an open prompt closes, a running command stops). */
  signal: AbortSignal;
  /** The dispatcher's progress: `running` once the user allowed the call (or it needed no prompt). */
  onProgress?: (status: ProgressStatus) => void;
  /** The action the call is about when the agent asked permission for it too: one decision for both (`ConsentAsk.binding`). */
  binding?: string;
}

interface Pending {
  resolve: (response: ClientToolInvokeResponse) => void;
  onProgress: ToolRunOptions['onProgress'];
}

export class ToolRunner implements Disposable {
  private readonly dispatcher: Dispatcher;
  private readonly pending = new Map<string, Pending>();
  /** The extension's record of every call it ran for the agent. */
  readonly onCallRecord: Event<CallRecord>;

  /** @param caller the agent, the chat thread its session serves (on every call's record), and whether its turn runs */
  constructor(createDispatcher: RunnerDispatcherFactory, private readonly caller: AgentCaller) {
    this.dispatcher = createDispatcher({ send: (message) => this.receive(message) });
    this.onCallRecord = this.dispatcher.onCallRecord;
  }

  get inFlight(): number {
    return this.dispatcher.inFlight;
  }

  /** Runs one call; always resolves with the dispatcher's answer (a result or a coded error). */
  run(toolName: string, args: Record<string, unknown>, options: ToolRunOptions): Promise<ClientToolInvokeResponse> {
    const requestId = `agent-${randomUUID()}`;
    return new Promise((resolve) => {
      const onAbort = (): void => this.dispatcher.handleCancel({ type: 'clientToolCancel', requestId, reason: 'the agent withdrew the request' });
      this.pending.set(requestId, {
        onProgress: options.onProgress,
        resolve: (response) => {
          options.signal.removeEventListener('abort', onAbort);
          resolve(response);
        },
      });
      options.signal.addEventListener('abort', onAbort, { once: true });
      this.dispatcher.handleInvoke(
        { type: 'clientToolInvokeRequest', requestId, callId: requestId, toolName, arguments: args, threadId: this.caller.threadId },
        { kind: 'agent', label: this.caller.agent, userRun: this.caller.isRunning() },
        options.binding,
      );
      if (options.signal.aborted) onAbort();
    });
  }

  /** Ends every call still running (their prompts close) with CANCELLED. */
  dispose(): void {
    this.dispatcher.dispose();
  }

  private receive(message: ClientToServer): boolean {
    if (message.type === 'clientToolInvokeResponse') {
      const pending = this.pending.get(message.requestId);
      this.pending.delete(message.requestId);
      pending?.resolve(message);
    } else if (message.type === 'clientToolProgress') {
      this.pending.get(message.requestId)?.onProgress?.(message.status);
    }
    return true;
  }
}
