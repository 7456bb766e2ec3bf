/**
 * One ACP connection to one agent process, on the official SDK (`@agentclientprotocol/sdk`, ACP v1):
 * `initialize` with the client's file and terminal capabilities, then sessions. What the agent asks
 * of the client is routed by session id to that session's handlers (the SDK has already checked
 * each message against ACP's schema); an id this connection did not open is refused. Every request
 * to the agent except `session/prompt` has a time limit; when the process ends, everything pending
 * fails with AGENT_EXITED and `onClose` fires once.
 */
import { randomUUID } from 'node:crypto';
import * as acp from '@agentclientprotocol/sdk';
import { CodedError, ErrorCode, isCodedError } from '../protocol';
import { Emitter, type Disposable, type Event } from '../base/events';
import { silentLogger, type Logger } from '../base/logger';
import { AgentProcess, describeExit, type AgentCommand, type AgentExit } from './agentProcess';
import { agentLines, isRefusal } from './agentLines';

export interface ConnectionLimits {
  /** Time limit of every request to the agent but `session/prompt` (spawn and initialize included). */
  requestTimeoutMs: number;
  /** Largest ACP message accepted from the agent. */
  maxMessageBytes: number;
}

export const CONNECTION_LIMITS: ConnectionLimits = {
  requestTimeoutMs: 60_000,
  maxMessageBytes: 8 * 1024 * 1024,
};

/** How long a closed stream waits for the process's exit, to say how it ended. */
const EXIT_WAIT_MS = 500;

/** What one session answers for the agent; `DispatcherCallbacks` and the session's updates sit behind it. */
export interface SessionHandlers {
  update(update: acp.SessionUpdate): void;
  requestPermission(params: acp.RequestPermissionRequest, signal: AbortSignal): Promise<acp.RequestPermissionResponse>;
  readTextFile(params: acp.ReadTextFileRequest, signal: AbortSignal): Promise<acp.ReadTextFileResponse>;
  writeTextFile(params: acp.WriteTextFileRequest, signal: AbortSignal): Promise<acp.WriteTextFileResponse>;
  terminalCreate(params: acp.CreateTerminalRequest, signal: AbortSignal): Promise<acp.CreateTerminalResponse>;
  terminalOutput(params: acp.TerminalOutputRequest): Promise<acp.TerminalOutputResponse>;
  waitForTerminalExit(params: acp.WaitForTerminalExitRequest, signal: AbortSignal): Promise<acp.WaitForTerminalExitResponse>;
  killTerminal(params: acp.KillTerminalRequest): Promise<acp.KillTerminalResponse>;
  releaseTerminal(params: acp.ReleaseTerminalRequest): Promise<acp.ReleaseTerminalResponse>;
}

export interface AgentConnectionOptions {
  /** The agent's name, for messages. */
  name: string;
  command: AgentCommand;
  clientInfo: { name: string; version: string };
  logger?: Logger;
  limits?: Partial<ConnectionLimits>;
}

export interface AgentInfo {
  name: string;
  title?: string;
  version?: string;
  capabilities: acp.AgentCapabilities;
}

export class AgentConnection implements Disposable {
  private readonly closeEmitter = new Emitter<string>();
  /** Fires once, with the reason, when the connection ends (process exit, a broken stream, dispose). */
  readonly onClose: Event<string> = this.closeEmitter.event;
  private closedReason: string | undefined;
  private readonly closed = new AbortController();
  private resolveClosed: (reason: string) => void = () => {};
  /** Why the connection ended, once it has. */
  private readonly closedWith = new Promise<string>((resolve) => (this.resolveClosed = resolve));
  private readonly limits: ConnectionLimits;
  private readonly logger: Logger;
  private info_: AgentInfo | undefined;

  private constructor(
    private readonly options: AgentConnectionOptions,
    private readonly process: AgentProcess,
    private readonly connection: acp.ClientConnection,
    /** The open sessions' handlers by session id (the client app routes by it). */
    private readonly sessions: Map<string, SessionHandlers>,
    /** Marks the error answers the connection made for an answer it refused (agentLines.ts). */
    private readonly refusalMark: string,
  ) {
    this.limits = { ...CONNECTION_LIMITS, ...options.limits };
    this.logger = options.logger ?? silentLogger;
  }

  /** Starts the agent and runs `initialize`; throws AGENT_UNAVAILABLE or TIMEOUT (the process is stopped then). */
  static async start(options: AgentConnectionOptions): Promise<AgentConnection> {
    const logger = options.logger ?? silentLogger;
    const limits = { ...CONNECTION_LIMITS, ...options.limits };
    const process = new AgentProcess(options.command, logger);
    const sessions = new Map<string, SessionHandlers>();
    const app = clientApp((sessionId) => sessions.get(sessionId));
    // One writer for the agent's stdin, shared by the SDK and the answers to refused lines (agentLines.ts).
    const toAgent = process.input.getWriter();
    const input = new WritableStream<Uint8Array>({ write: (chunk) => toAgent.write(chunk) });
    const refusalMark = randomUUID();
    const lines = agentLines(process.output, {
      agentName: options.name, maxMessageBytes: limits.maxMessageBytes, logger, refusalMark,
      send: (line) => void toAgent.write(line).catch(() => undefined),
    });
    const stream = acp.ndJsonStream(input, lines, { maxMessageBytes: limits.maxMessageBytes });
    const connection = app.connect(stream);
    const conn = new AgentConnection(options, process, connection, sessions, refusalMark);
    void process.exited.then((exit) => conn.close(describeExit(options.name, exit), exit));
    // The stream usually ends just before the process does: give the exit a moment to say why.
    void connection.closed.then(async () => {
      const exit = await Promise.race([process.exited, new Promise<undefined>((r) => setTimeout(() => r(undefined), EXIT_WAIT_MS))]);
      conn.close(exit ? describeExit(options.name, exit) : `${options.name} closed the connection`, exit);
    });
    try {
      const init = await conn.request(acp.methods.agent.initialize, {
        protocolVersion: acp.PROTOCOL_VERSION,
        clientCapabilities: { fs: { readTextFile: true, writeTextFile: true }, terminal: true },
        clientInfo: options.clientInfo,
      });
      conn.info_ = {
        name: init.agentInfo?.name ?? options.name,
        ...(init.agentInfo?.title ? { title: init.agentInfo.title } : {}),
        ...(init.agentInfo?.version ? { version: init.agentInfo.version } : {}),
        capabilities: init.agentCapabilities ?? {},
      };
      logger.info('agent initialized', { agent: options.name, protocol: init.protocolVersion, version: conn.info_.version });
      return conn;
    } catch (e) {
      conn.dispose();
      if (isCodedError(e) && e.code === ErrorCode.Timeout) throw e;
      const exit = await Promise.race([process.exited, new Promise<undefined>((r) => setTimeout(() => r(undefined), 200))]);
      throw new CodedError(ErrorCode.AgentUnavailable, exit ? describeExit(options.name, exit) : `${options.name} failed its ACP handshake: ${messageOf(e)}`);
    }
  }

  get info(): AgentInfo {
    return this.info_ ?? { name: this.options.name, capabilities: {} };
  }

  get isClosed(): boolean {
    return this.closedReason !== undefined;
  }

  /** Routes a session's callbacks and updates (from `session/new`, `load` or `resume` on). */
  attach(sessionId: string, handlers: SessionHandlers): Disposable {
    this.sessions.set(sessionId, handlers);
    return { dispose: () => {
      if (this.sessions.get(sessionId) === handlers) this.sessions.delete(sessionId);
    } };
  }

  /**
   * A request to the agent. `timeoutMs` 0 means none (a prompt turn). Rejects with a CodedError:
   * TIMEOUT, AGENT_EXITED, or the agent's own error as TOOL_FAILED-like AGENT_UNAVAILABLE text.
   */
  async request<M extends acp.AgentRequestMethod>(
    method: M,
    params: acp.AgentRequestParamsByMethod[M],
    options: { timeoutMs?: number; signal?: AbortSignal } = {},
  ): Promise<acp.AgentRequestResponsesByMethod[M]> {
    if (this.closedReason !== undefined) throw new CodedError(ErrorCode.AgentExited, this.closedReason);
    const timeoutMs = options.timeoutMs ?? this.limits.requestTimeoutMs;
    const stop = new AbortController();
    const onClosed = () => stop.abort();
    this.closed.signal.addEventListener('abort', onClosed, { once: true });
    let timer: ReturnType<typeof setTimeout> | undefined;
    const limits: Promise<never>[] = [
      new Promise<never>((_, reject) => stop.signal.addEventListener('abort', () => reject(new CodedError(ErrorCode.AgentExited, this.closedReason ?? `${this.options.name} went away`)), { once: true })),
    ];
    if (timeoutMs > 0) {
      limits.push(new Promise<never>((_, reject) => {
        timer = setTimeout(() => reject(new CodedError(ErrorCode.Timeout, `${this.options.name} did not answer ${method} within ${Math.round(timeoutMs / 1000)} s`)), timeoutMs);
      }));
    }
    const sent = this.connection.agent.request(method, params, options.signal ? { cancellationSignal: options.signal } : undefined);
    sent.catch(() => undefined);
    try {
      return await Promise.race([sent.catch(async (e: unknown) => {
        if (isCodedError(e)) throw e;
        if (isRefusal(e, this.refusalMark)) throw new CodedError(ErrorCode.MessageTooLarge, `${this.options.name}'s answer to ${method} was refused: ${e.message}`);
        // Pending requests fail when the stream ends: that is the agent going away, said once known.
        if (this.connection.signal.aborted) throw new CodedError(ErrorCode.AgentExited, await this.closedWith);
        throw new CodedError(ErrorCode.AgentError, `${this.options.name} answered ${method} with an error: ${messageOf(e)}`);
      }), ...limits]);
    } finally {
      if (timer !== undefined) clearTimeout(timer);
      this.closed.signal.removeEventListener('abort', onClosed);
      stop.abort();
      for (const l of limits) l.catch(() => undefined);
    }
  }

  /** `session/cancel` (a notification; the turn then ends with `cancelled`). */
  async cancel(sessionId: string): Promise<void> {
    if (this.closedReason !== undefined) return;
    await this.connection.agent.notify(acp.methods.agent.session.cancel, { sessionId }).catch(() => undefined);
  }

  dispose(): void {
    this.close(`${this.options.name} was stopped`);
  }

  private close(reason: string, exit?: AgentExit): void {
    if (this.closedReason !== undefined) return;
    this.closedReason = reason;
    this.resolveClosed(reason);
    if (exit) this.logger.warn('agent ended', { agent: this.options.name, code: exit.code ?? undefined, signal: exit.signal ?? undefined });
    this.closed.abort();
    this.sessions.clear();
    this.connection.close(new CodedError(ErrorCode.AgentExited, reason));
    this.process.dispose();
    this.closeEmitter.fire(reason);
    this.closeEmitter.dispose();
  }
}

/** The client side of ACP: every client method, routed to the session it names. */
function clientApp(sessionOf: (sessionId: string) => SessionHandlers | undefined): acp.ClientApp {
  const route = (sessionId: string): SessionHandlers => {
    const handlers = sessionOf(sessionId);
    if (!handlers) throw new acp.RequestError(-32002, `no open session ${sessionId.slice(0, 100)}`, { code: ErrorCode.SessionUnknown });
    return handlers;
  };
  const guarded = <T>(work: () => Promise<T>): Promise<T> => work().catch((e: unknown) => {
    throw toRequestError(e);
  });
  return acp.client({ name: 'client-tools' })
    .onNotification(acp.methods.client.session.update, ({ params }) => {
      sessionOf(params.sessionId)?.update(params.update);
    })
    .onRequest(acp.methods.client.session.requestPermission, ({ params, signal }) => guarded(() => route(params.sessionId).requestPermission(params, signal)))
    .onRequest(acp.methods.client.fs.readTextFile, ({ params, signal }) => guarded(() => route(params.sessionId).readTextFile(params, signal)))
    .onRequest(acp.methods.client.fs.writeTextFile, ({ params, signal }) => guarded(() => route(params.sessionId).writeTextFile(params, signal)))
    .onRequest(acp.methods.client.terminal.create, ({ params, signal }) => guarded(() => route(params.sessionId).terminalCreate(params, signal)))
    .onRequest(acp.methods.client.terminal.output, ({ params }) => guarded(() => route(params.sessionId).terminalOutput(params)))
    .onRequest(acp.methods.client.terminal.waitForExit, ({ params, signal }) => guarded(() => route(params.sessionId).waitForTerminalExit(params, signal)))
    .onRequest(acp.methods.client.terminal.kill, ({ params }) => guarded(() => route(params.sessionId).killTerminal(params)))
    .onRequest(acp.methods.client.terminal.release, ({ params }) => guarded(() => route(params.sessionId).releaseTerminal(params)));
}

/** JSON-RPC codes for the editor's codes; the sentence and the code (`data.code`) reach the agent. */
const RPC_CODES: Partial<Record<string, number>> = {
  [ErrorCode.NotFound]: -32002,
  [ErrorCode.SessionUnknown]: -32002,
  [ErrorCode.PathInvalid]: -32602,
  [ErrorCode.PathOutsideWorkspace]: -32602,
  [ErrorCode.InvalidArguments]: -32602,
  [ErrorCode.IsDirectory]: -32602,
  [ErrorCode.Cancelled]: -32800,
};

export function toRequestError(e: unknown): acp.RequestError {
  if (e instanceof acp.RequestError) return e;
  if (isCodedError(e)) return new acp.RequestError(RPC_CODES[e.code] ?? -32603, e.message, { code: e.code });
  return new acp.RequestError(-32603, messageOf(e), { code: ErrorCode.Internal });
}

export function messageOf(e: unknown): string {
  if (e instanceof acp.RequestError) return `${e.message} (${e.code})`;
  return e instanceof Error ? e.message : String(e);
}
