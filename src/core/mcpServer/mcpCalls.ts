/**
 * MCP `tools/call` requests turned into `clientToolInvokeRequest`s for a Dispatcher built from the
 * same registry, consent and host as the backend's (`ClientCore.createDispatcher`), so an MCP call
 * passes exactly the checks a backend's call passes: lookup, argument schema, `prepare` with the
 * path rules, consent, the run-time and result caps, a replay cache. Each call's caller is the MCP
 * client, named and with its lifetime. The dispatcher's answers and progress come back through
 * `send` and settle the MCP request.
 */
import { randomUUID } from 'node:crypto';
import type { ClientToolInvokeResponse, ClientToServer, ProgressStatus } from '../../protocol';
import type { Disposable, Event } from '../../base/events';
import type { CallerLifetime } from '../consent/callerLifetime';
import type { CallRecord } from '../callRecord';
import type { Dispatcher, DispatcherOptions } from '../dispatcher';

export type DispatcherFactory = (options: Pick<DispatcherOptions, 'send'>) => Dispatcher;

export interface McpCallOptions {
  /** `callerLabel(...)` of the MCP client; shown on the call's card and its prompt. */
  caller: string;
  /**
   * Ends when the client cancels (`notifications/cancelled`), its session ends, or the HTTP request
   * that carries the call closes before its answer (the client is gone): the call is then cancelled.
   */
  lifetime: CallerLifetime;
  /** Set when the client asked for progress (it sent a `progressToken`). */
  onProgress?: (status: ProgressStatus, details: string | undefined) => void;
}

interface Pending {
  resolve: (response: ClientToolInvokeResponse) => void;
  onProgress: McpCallOptions['onProgress'];
}

export class McpCalls implements Disposable {
  private readonly dispatcher: Dispatcher;
  private readonly pending = new Map<string, Pending>();
  /** The extension's record of every MCP call, for the chat's activity. */
  readonly onCallRecord: Event<CallRecord>;

  /**
   * @param userRun whether a run the user started carries the calls now (an ACP agent's turn, for its
   *   own MCP server); the window's MCP server has none, so its calls are background calls.
   * @param callerKind `agent` for an ACP agent's own MCP server (its calls are the agent's), else `mcp`.
   */
  constructor(createDispatcher: DispatcherFactory, private readonly userRun: () => boolean = () => false, private readonly callerKind: 'mcp' | 'agent' = 'mcp') {
    this.dispatcher = createDispatcher({ send: (message) => this.receive(message) });
    this.onCallRecord = this.dispatcher.onCallRecord;
  }

  get inFlight(): number {
    return this.dispatcher.inFlight;
  }

  /** Runs one call; always resolves, with the dispatcher's answer (success or a coded error). */
  call(toolName: string, args: Record<string, unknown>, options: McpCallOptions): Promise<ClientToolInvokeResponse> {
    // Our own id, never the client's: the replay cache and the chat's cards key on it.
    const requestId = `mcp-${randomUUID()}`;
    return new Promise((resolve) => {
      this.pending.set(requestId, { onProgress: options.onProgress, resolve });
      this.dispatcher.handleInvoke(
        { type: 'clientToolInvokeRequest', requestId, callId: requestId, toolName, arguments: args },
        { kind: this.callerKind, label: options.caller, userRun: this.userRun(), lifetime: options.lifetime },
      );
    });
  }

  dispose(): void {
    // Every running call ends (open prompts close) and its MCP request is answered CANCELLED.
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
