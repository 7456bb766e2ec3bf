/**
 * MCP `tools/call` requests turned into `clientToolInvokeRequest`s for a Dispatcher built from the
 * same registry, consent and host as the backend's (`ClientCore.createDispatcher`), so an MCP call
 * passes exactly the checks a backend's call passes: lookup, argument schema, `prepare` with the
 * path rules, consent, the run-time and result caps, a replay cache. Each call's caller is the MCP
 * client, named and with its lifetime. The dispatcher's answers and progress come back through
 * `send` and settle the MCP request.
 */
import type { ClientToolInvokeResponse, ProgressStatus } from '../../protocol';
import type { Disposable, Event } from '../../base/events';
import type { CallerLifetime } from '../consent/callerLifetime';
import type { CallRecord } from '../callRecord';
import { LocalCaller, type LocalDispatcherFactory } from '../localCaller';

export type DispatcherFactory = LocalDispatcherFactory;

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

export class McpCalls implements Disposable {
  private readonly calls: LocalCaller;
  /** The extension's record of every MCP call, for the chat's activity. */
  readonly onCallRecord: Event<CallRecord>;

  /**
   * @param userRun whether a run the user started carries the calls now (an ACP agent's turn, for its
   *   own MCP server); the window's MCP server has none, so its calls are background calls.
   * @param callerKind `agent` for an ACP agent's own MCP server (its calls are the agent's), else `mcp`.
   */
  constructor(createDispatcher: DispatcherFactory, private readonly userRun: () => boolean = () => false, private readonly callerKind: 'mcp' | 'agent' = 'mcp') {
    this.calls = new LocalCaller(createDispatcher, 'mcp');
    this.onCallRecord = this.calls.onCallRecord;
  }

  get inFlight(): number {
    return this.calls.inFlight;
  }

  /** Runs one call; always resolves, with the dispatcher's answer (success or a coded error). */
  call(toolName: string, args: Record<string, unknown>, options: McpCallOptions): Promise<ClientToolInvokeResponse> {
    return this.calls.call(toolName, args, {
      caller: { kind: this.callerKind, label: options.caller, userRun: this.userRun(), lifetime: options.lifetime },
      ...(options.onProgress ? { onProgress: options.onProgress } : {}),
    });
  }

  dispose(): void {
    // Every running call ends (open prompts close) and its MCP request is answered CANCELLED.
    this.calls.dispose();
  }
}
