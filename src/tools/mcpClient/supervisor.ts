/**
 * Keeps one MCP server running for as long as it is configured: connects with the official SDK
 * client (stdio or Streamable HTTP), lists its tools (every page, capped), lists them again on
 * `notifications/tools/list_changed` (a burst of them is one re-list, and re-lists are at least
 * `minRelistIntervalMs` apart, so a flood costs a bounded amount of work), and when the server exits
 * or the connection drops, starts it
 * again after an exponential backoff (capped). A server that keeps failing to start ends in the
 * `failed` state with the reason, so the Tool Groups view can show it instead of a silent absence.
 * Its stderr goes to the log a line at a time, each line and the rate capped (stderrLines.ts).
 */
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import { McpError, ToolListChangedNotificationSchema } from '@modelcontextprotocol/sdk/types.js';
import { Emitter, type Event } from '../../base/events';
import type { Logger } from '../../base/logger';
import { CodedError, ErrorCode, type ContentItem } from '../../protocol';
import type { McpLaunch, McpServerConfig } from './config';
import type { McpToolInfo } from './group';
import { LinearOutputValidator } from './outputValidator';
import { LINE_TOO_LONG, useLineBuffer } from './lineBuffer';
import { mapCallResult } from './results';
import { StderrLines } from './stderrLines';

export type McpServerState =
  | { kind: 'starting'; attempt: number }
  | { kind: 'running'; tools: McpToolInfo[] }
  | { kind: 'restarting'; reason: string; delayMs: number; attempt: number }
  | { kind: 'failed'; reason: string }
  | { kind: 'stopped' };

export interface SupervisorOptions {
  /** First restart delay; doubles per consecutive failure up to `maxDelayMs`. */
  initialDelayMs?: number;
  maxDelayMs?: number;
  /** Consecutive failed starts before giving up (`failed`). A start that lists tools resets the count. */
  maxAttempts?: number;
  /** How long `initialize` plus the first `tools/list` may take. */
  startTimeoutMs?: number;
  /** A tool call's own limit; the dispatcher's signal usually ends it first. */
  callTimeoutMs?: number;
  clientVersion?: string;
  /** How long after a `list_changed` the tools are listed again, so a burst is one re-list. Default 100 ms. */
  listChangedDelayMs?: number;
  /** Least time between two re-lists (a flood of `list_changed` waits this long between them). Default 1 s. */
  minRelistIntervalMs?: number;
  /** For tests: makes the transport instead of the SDK's stdio or HTTP one. */
  makeTransport?: (launch: McpLaunch) => Transport;
}

/** More tools than this from one server are not listed (the protocol allows 512 per group). */
export const MAX_LISTED_TOOLS = 512;
/**
 * The longest message a stdio server may send (lineBuffer.ts): the SDK reads, parses and checks a
 * message in one turn of the extension host's event loop, so this bounds that turn. An image in a
 * result is then at most 3 MiB; a longer answer fails its call with RESULT_TOO_LARGE.
 */
export const MAX_MESSAGE_BYTES = 4 * 1024 * 1024;

export class McpServerSupervisor {
  private readonly stateEmitter = new Emitter<McpServerState>();
  /** Every state change: starting, running (with the tools), restarting, failed, stopped. */
  readonly onDidChangeState: Event<McpServerState> = this.stateEmitter.event;
  private current: McpServerState = { kind: 'starting', attempt: 1 };
  private client: Client | undefined;
  private timer: NodeJS.Timeout | undefined;
  private failures = 0;
  /** The current connection's attempt number (1 for the first start). */
  private attempt = 1;
  private stopped = false;
  /** A re-list is scheduled or running; more `list_changed` meanwhile only set `relistAgain`. */
  private relistTimer: NodeJS.Timeout | undefined;
  private relisting = false;
  private relistAgain = false;
  private lastRelistAt = 0;
  /** Checks results against the server's output schemas in linear time (the SDK's default does not). */
  private readonly outputValidator = new LinearOutputValidator();
  private readonly options: Required<Omit<SupervisorOptions, 'makeTransport'>> & Pick<SupervisorOptions, 'makeTransport'>;

  constructor(
    readonly config: McpServerConfig,
    private readonly logger: Logger,
    options: SupervisorOptions = {},
  ) {
    this.options = {
      initialDelayMs: options.initialDelayMs ?? 1000,
      maxDelayMs: options.maxDelayMs ?? 60_000,
      maxAttempts: options.maxAttempts ?? 8,
      startTimeoutMs: options.startTimeoutMs ?? 30_000,
      callTimeoutMs: options.callTimeoutMs ?? 3_600_000,
      clientVersion: options.clientVersion ?? '0.0.0',
      listChangedDelayMs: options.listChangedDelayMs ?? 100,
      minRelistIntervalMs: options.minRelistIntervalMs ?? 1000,
      makeTransport: options.makeTransport,
    };
  }

  get state(): McpServerState {
    return this.current;
  }

  /** Starts the first connection (call once). */
  start(): void {
    void this.connect(1);
  }

  /**
   * Calls a tool on the running server; TOOL_FAILED while it is not running. `structured`: the tool
   * declared an output schema, so its `structuredContent` is its result (results.ts).
   */
  async callTool(name: string, args: Record<string, unknown>, signal: AbortSignal, structured = false): Promise<ContentItem[]> {
    const client = this.client;
    if (!client || this.current.kind !== 'running') throw new CodedError(ErrorCode.ToolFailed, `MCP server ${this.config.name} is not running right now (${this.current.kind})`);
    let result: unknown;
    try {
      result = await client.callTool({ name, arguments: args }, undefined, { signal, timeout: this.options.callTimeoutMs, resetTimeoutOnProgress: true });
    } catch (e) {
      if (signal.aborted) throw new CodedError(ErrorCode.Cancelled, `the call to ${name} was cancelled`);
      if (e instanceof McpError && e.code === LINE_TOO_LONG) throw new CodedError(ErrorCode.ResultTooLarge, `MCP server ${this.config.name}: ${e.message.replace(/^MCP error -?\d+: /, '')}`);
      // An HTTP server that went away is noticed only by the next request (there is no process to
      // watch): anything but the server's own JSON-RPC error means connect again, with the backoff.
      if (this.config.launch.type === 'http' && !(e instanceof McpError) && this.client === client) {
        this.client = undefined;
        void client.close().catch(() => undefined);
        this.failed(`the connection failed: ${(e as Error).message}`, this.attempt);
      }
      throw new CodedError(ErrorCode.ToolFailed, `MCP server ${this.config.name}: ${(e as Error).message}`);
    }
    return mapCallResult(result, this.config.name, structured);
  }

  /** Stops the server for good (the config changed or the extension ends). */
  async stop(): Promise<void> {
    this.stopped = true;
    clearTimeout(this.timer);
    clearTimeout(this.relistTimer);
    const client = this.client;
    this.client = undefined;
    this.setState({ kind: 'stopped' });
    await client?.close().catch(() => undefined);
    this.stateEmitter.dispose();
  }

  private async connect(attempt: number): Promise<void> {
    if (this.stopped) return;
    this.attempt = attempt;
    this.setState({ kind: 'starting', attempt });
    const client = new Client({ name: 'client-tools-vscode', version: this.options.clientVersion }, { capabilities: {}, jsonSchemaValidator: this.outputValidator });
    const transport = this.makeTransport();
    let connected = false;
    client.onclose = () => {
      // Before the tools are listed, a close is the start failing: the catch below reports it once.
      if (this.client !== client || !connected) return;
      this.client = undefined;
      this.failed('the server closed the connection', attempt);
    };
    client.onerror = (e) => this.logger.debug?.('MCP server transport error', { server: this.config.name, error: e.message });
    client.setNotificationHandler(ToolListChangedNotificationSchema, () => {
      if (this.client === client) this.scheduleRelist();
    });
    this.client = client;
    const timeout = new Promise<never>((_resolve, reject) => {
      const t = setTimeout(() => reject(new Error(`no answer within ${Math.round(this.options.startTimeoutMs / 1000)} s`)), this.options.startTimeoutMs);
      t.unref();
    });
    try {
      await Promise.race([client.connect(transport), timeout]);
      const tools = await Promise.race([listAll(client), timeout]);
      if (this.stopped || this.client !== client) return;
      connected = true;
      this.failures = 0;
      this.setState({ kind: 'running', tools });
    } catch (e) {
      if (this.stopped || this.client !== client) return;
      this.client = undefined;
      await client.close().catch(() => undefined);
      this.failed(`could not start: ${(e as Error).message}`, attempt);
    }
  }

  /** One re-list for a burst of `list_changed`, and at most one per `minRelistIntervalMs`. */
  private scheduleRelist(): void {
    if (this.relistTimer !== undefined || this.relisting) {
      this.relistAgain = true;
      return;
    }
    const wait = Math.max(this.options.listChangedDelayMs, this.lastRelistAt + this.options.minRelistIntervalMs - Date.now());
    this.relistTimer = setTimeout(() => {
      this.relistTimer = undefined;
      const client = this.client;
      if (!client || this.stopped) return;
      this.relistAgain = false;
      this.relisting = true;
      void this.refreshTools(client).finally(() => {
        this.relisting = false;
        this.lastRelistAt = Date.now();
        if (this.relistAgain && !this.stopped) {
          this.relistAgain = false;
          this.scheduleRelist();
        }
      });
    }, wait);
  }

  private async refreshTools(client: Client): Promise<void> {
    try {
      const tools = await listAll(client);
      if (this.client === client && !this.stopped) this.setState({ kind: 'running', tools });
    } catch (e) {
      this.logger.warn('MCP server: listing its tools again failed', { server: this.config.name, error: (e as Error).message });
    }
  }

  private failed(reason: string, attempt: number): void {
    if (this.stopped) return;
    this.failures++;
    if (this.failures >= this.options.maxAttempts) {
      this.logger.error('MCP server failed; not restarting it again', { server: this.config.name, reason, attempts: this.failures });
      this.setState({ kind: 'failed', reason: `${reason} (gave up after ${this.failures} attempts)` });
      return;
    }
    const delayMs = Math.min(this.options.maxDelayMs, this.options.initialDelayMs * 2 ** (this.failures - 1));
    this.logger.warn('MCP server stopped; restarting it', { server: this.config.name, reason, delayMs });
    this.setState({ kind: 'restarting', reason, delayMs, attempt: attempt + 1 });
    this.timer = setTimeout(() => void this.connect(attempt + 1), delayMs);
  }

  private makeTransport(): Transport {
    const launch = this.config.launch;
    if (this.options.makeTransport) return this.options.makeTransport(launch);
    if (launch.type === 'http') {
      return new StreamableHTTPClientTransport(new URL(launch.url), { requestInit: { headers: launch.headers, redirect: 'error' } });
    }
    const transport = new StdioClientTransport({
      command: launch.command,
      args: launch.args,
      env: launch.env,
      ...(launch.cwd !== undefined ? { cwd: launch.cwd } : {}),
      stderr: 'pipe',
      maxBufferSize: MAX_MESSAGE_BYTES,
    });
    useLineBuffer(transport, MAX_MESSAGE_BYTES);
    const lines = new StderrLines((line) => this.logger.info(`[${this.config.name}] ${line}`));
    transport.stderr?.on('data', (chunk: Buffer) => lines.push(chunk));
    return transport;
  }

  private setState(state: McpServerState): void {
    this.current = state;
    this.stateEmitter.fire(state);
  }
}

/** Every page of `tools/list`, up to MAX_LISTED_TOOLS. */
async function listAll(client: Client): Promise<McpToolInfo[]> {
  const tools: McpToolInfo[] = [];
  let cursor: string | undefined;
  for (let page = 0; page < 100 && tools.length < MAX_LISTED_TOOLS; page++) {
    const result = await client.listTools(cursor === undefined ? undefined : { cursor });
    tools.push(...result.tools.slice(0, MAX_LISTED_TOOLS - tools.length));
    cursor = result.nextCursor;
    if (cursor === undefined) break;
  }
  return tools;
}
