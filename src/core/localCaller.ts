/**
 * Calls the editor's client tools from inside the extension (an MCP client's `tools/call`, an ACP
 * agent's request) through a Dispatcher built from the same registry, consent and host as the
 * backend's (`ClientCore.createDispatcher`), so such a call passes exactly the checks a backend's
 * call passes. Each call gets an id of its own (never the caller's: the replay cache and the chat's
 * cards key on it); the dispatcher's answer and progress, which it `send`s as to a backend, settle
 * the call's promise and reach its `onProgress`.
 */
import { randomUUID } from 'node:crypto';
import type { ClientToolInvokeResponse, ClientToServer, ProgressStatus } from '../protocol';
import type { Disposable, Event } from '../base/events';
import type { CallRecord } from './callRecord';
import type { Caller } from './consent/consent';
import type { Dispatcher, DispatcherOptions } from './dispatcher';

export type LocalDispatcherFactory = (options: Pick<DispatcherOptions, 'send'>) => Dispatcher;

export interface LocalCallOptions {
  /** Who asks, whether a run the user started carries the call, and its lifetime. */
  caller: Caller;
  /** The chat thread the call belongs to (on its record). */
  threadId?: string;
  /** The action the call is about when its caller asks about the same one elsewhere (`ConsentAsk.binding`). */
  binding?: string;
  /** Aborting cancels the call (an open prompt closes, a running command stops). */
  signal?: AbortSignal;
  /** The reason a cancel by `signal` gives. */
  cancelReason?: string;
  /** The dispatcher's progress: `running` once the call may run, then its details. */
  onProgress?: (status: ProgressStatus, details: string | undefined) => void;
}

interface Pending {
  resolve: (response: ClientToolInvokeResponse) => void;
  onProgress: LocalCallOptions['onProgress'];
}

export class LocalCaller implements Disposable {
  private readonly dispatcher: Dispatcher;
  private readonly pending = new Map<string, Pending>();
  /** The extension's record of every call made through this caller. */
  readonly onCallRecord: Event<CallRecord>;

  /** @param idPrefix starts every request id (`mcp`, `agent`), so a log tells the front doors apart */
  constructor(createDispatcher: LocalDispatcherFactory, private readonly idPrefix: string) {
    this.dispatcher = createDispatcher({ send: (message) => this.receive(message) });
    this.onCallRecord = this.dispatcher.onCallRecord;
  }

  get inFlight(): number {
    return this.dispatcher.inFlight;
  }

  /** Runs one call; always resolves, with the dispatcher's answer (a result or a coded error). */
  call(toolName: string, args: Record<string, unknown>, options: LocalCallOptions): Promise<ClientToolInvokeResponse> {
    const requestId = `${this.idPrefix}-${randomUUID()}`;
    const { signal } = options;
    return new Promise((resolve) => {
      const onAbort = (): void => this.dispatcher.handleCancel({ type: 'clientToolCancel', requestId, ...(options.cancelReason ? { reason: options.cancelReason } : {}) });
      this.pending.set(requestId, {
        onProgress: options.onProgress,
        resolve: (response) => {
          signal?.removeEventListener('abort', onAbort);
          resolve(response);
        },
      });
      signal?.addEventListener('abort', onAbort, { once: true });
      this.dispatcher.handleInvoke(
        { type: 'clientToolInvokeRequest', requestId, callId: requestId, toolName, arguments: args, ...(options.threadId !== undefined ? { threadId: options.threadId } : {}) },
        options.caller,
        options.binding,
      );
      if (signal?.aborted) onAbort();
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
      this.pending.get(message.requestId)?.onProgress?.(message.status, message.details);
    }
    return true;
  }
}
