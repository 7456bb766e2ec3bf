/**
 * The editor's MCP server: Streamable HTTP (the official SDK's transport and low-level `Server`) on
 * 127.0.0.1, a random port. Before the SDK sees a request: no `Origin` and a loopback `Host` (403,
 * the backend handshake's rules from src/base/localRequest.ts), `Authorization: Bearer <token>`
 * compared in constant time (401), the one path `/mcp` (404), a body size cap (413). A POST's body
 * is read here and measured against the structure limits before anything parses it (413 past
 * them), and the SDK gets it parsed. Each initialized client gets a session of its own (its
 * `clientInfo` names its calls); at most `maxSessions` live at once, the least recently used is
 * closed for a new one.
 */
import { AsyncLocalStorage } from 'node:async_hooks';
import { randomUUID } from 'node:crypto';
import * as http from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { CallToolRequestSchema, ListToolsRequestSchema, LoggingLevelSchema, SetLevelRequestSchema, type CallToolResult, type LoggingLevel } from '@modelcontextprotocol/sdk/types.js';
import type { Disposable } from '../../base/events';
import { refuseBrowserOrForeignHost, secretDigest, secretMatches } from '../../base/localRequest';
import { jsonStructureProblem, MCP_STRUCTURE_LIMITS } from '../../protocol';
import { silentLogger, type Logger } from '../../base/logger';
import { ErrorCode } from '../../protocol';
import { CallerLifetime } from '../consent/callerLifetime';
import { callerLabel } from '../callRecord';
import type { ToolRegistry } from '../registry';
import type { McpCalls } from './mcpCalls';
import { toCallToolResult } from './mcpResults';
import { listMcpTools } from './mcpTools';

export const MCP_PATH = '/mcp';
/** readBody's answer when it refused the body itself. */
const ANSWERED = Symbol('answered');

export interface McpHttpServerOptions {
  registry: ToolRegistry;
  calls: McpCalls;
  /** The bearer token clients must send (from `newMcpToken()`). */
  token: string;
  serverVersion: string;
  logger?: Logger;
  /** Default 0: a port the system picks. */
  port?: number;
  /** Largest request body; default 1 MiB (tool arguments are small; files travel by path). */
  maxBodyBytes?: number;
  /** Sessions at once; default 16. */
  maxSessions?: number;
}

interface McpSession {
  transport: StreamableHTTPServerTransport;
  server: Server;
  lastUsed: number;
}

const INSTRUCTIONS = 'Tools of the VS Code window that runs this server (files, editor, diagnostics, terminal). Paths are relative to its workspace folders. The user is asked before anything that changes files; a declined call returns an error.';

export class McpHttpServer implements Disposable {
  private readonly sessions = new Map<string, McpSession>();
  private readonly tokenDigest: Buffer;
  private readonly logger: Logger;
  private readonly maxBodyBytes: number;
  private readonly maxSessions: number;
  private readonly sockets = new Set<Socket>();
  private readonly registryListener: Disposable;
  private listChangedQueued = false;
  private closed = false;
  /**
   * The HTTP response that carries the request being handled: the SDK runs a request's handler in
   * the async context of the `handleRequest` that read it, so a `tools/call` handler finds the
   * response its answer would go out on, and learns when the client closed it.
   */
  private readonly carriers = new AsyncLocalStorage<http.ServerResponse>();

  private constructor(private readonly options: McpHttpServerOptions, private readonly http: http.Server, readonly port: number) {
    this.tokenDigest = secretDigest(options.token);
    this.logger = options.logger ?? silentLogger;
    this.maxBodyBytes = options.maxBodyBytes ?? 1024 * 1024;
    this.maxSessions = options.maxSessions ?? 16;
    http.on('request', (req, res) => void this.onRequest(req, res));
    http.on('connection', (socket: Socket) => {
      this.sockets.add(socket);
      socket.on('close', () => this.sockets.delete(socket));
    });
    this.registryListener = options.registry.onDidChange(() => this.queueListChanged());
  }

  static async start(options: McpHttpServerOptions): Promise<McpHttpServer> {
    const server = http.createServer({ requestTimeout: 0, headersTimeout: 10_000, maxHeaderSize: 16 * 1024 });
    const port = await new Promise<number>((resolve, reject) => {
      server.once('error', reject);
      server.listen(options.port ?? 0, '127.0.0.1', () => {
        server.off('error', reject);
        resolve((server.address() as AddressInfo).port);
      });
    });
    return new McpHttpServer(options, server, port);
  }

  get url(): string {
    return `http://127.0.0.1:${this.port}${MCP_PATH}`;
  }

  get sessionCount(): number {
    return this.sessions.size;
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    this.registryListener.dispose();
    const sessions = [...this.sessions.values()];
    this.sessions.clear();
    await Promise.all(sessions.map((s) => s.server.close().catch(() => {})));
    await new Promise<void>((resolve) => {
      this.http.close(() => resolve());
      for (const socket of this.sockets) socket.destroy();
    });
  }

  dispose(): void {
    void this.close();
  }

  // ── requests ───────────────────────────────────────────────────────

  private async onRequest(req: http.IncomingMessage, res: http.ServerResponse): Promise<void> {
    try {
      const refusal = this.check(req);
      if (refusal) {
        this.logger.warn('MCP request refused', { status: refusal.status, method: req.method });
        sendPlain(res, refusal.status, refusal.text, refusal.status === 401 ? { 'WWW-Authenticate': 'Bearer' } : {});
        req.resume();
        return;
      }
      const body = await this.readBody(req, res);
      if (body === ANSWERED) return;
      const sessionId = req.headers['mcp-session-id'];
      if (typeof sessionId === 'string') {
        const session = this.sessions.get(sessionId);
        if (!session) {
          sendJsonRpcError(res, 404, -32001, 'Session not found; initialize again.');
          req.resume();
          return;
        }
        session.lastUsed = Date.now();
        await this.carriers.run(res, () => session.transport.handleRequest(req, res, body));
        return;
      }
      await this.carriers.run(res, () => this.newSession(req, res, body));
    } catch (e) {
      this.logger.error('MCP request failed', { reason: e instanceof Error ? e.message : String(e) });
      if (!res.headersSent) sendJsonRpcError(res, 500, -32603, 'Internal error');
      else res.end();
    }
  }

  /** The checks before the SDK sees anything; undefined means go on. */
  private check(req: http.IncomingMessage): { status: number; text: string } | undefined {
    const local = refuseBrowserOrForeignHost(req.headers);
    if (local) return local;
    const auth = req.headers.authorization;
    const match = typeof auth === 'string' ? /^Bearer (\S+)$/i.exec(auth) : null;
    if (!match) return { status: 401, text: 'Missing Authorization: Bearer <token>.' };
    if (!secretMatches(match[1], this.tokenDigest)) return { status: 401, text: 'Wrong token.' };
    const url = req.url ?? '';
    if (url !== MCP_PATH && !url.startsWith(`${MCP_PATH}?`)) return { status: 404, text: `Not found; the MCP endpoint is ${MCP_PATH}.` };
    const length = Number(req.headers['content-length'] ?? 0);
    if (Number.isFinite(length) && length > this.maxBodyBytes) return { status: 413, text: `Request body over ${this.maxBodyBytes} bytes.` };
    return undefined;
  }

  /**
   * A POST's body, at most maxBodyBytes, parsed once it kept the structure limits; undefined for
   * other methods. ANSWERED when it was refused (413, or 400 for JSON that does not parse).
   */
  private async readBody(req: http.IncomingMessage, res: http.ServerResponse): Promise<unknown> {
    if (req.method !== 'POST') return undefined;
    const chunks: Buffer[] = [];
    let size = 0;
    for await (const chunk of req as AsyncIterable<Buffer>) {
      size += chunk.length;
      if (size > this.maxBodyBytes) {
        res.setHeader('Connection', 'close');
        sendJsonRpcError(res, 413, -32000, `Request body over ${this.maxBodyBytes} bytes.`);
        req.destroy();
        return ANSWERED;
      }
      chunks.push(chunk);
    }
    const text = Buffer.concat(chunks).toString('utf8');
    const problem = jsonStructureProblem(text, MCP_STRUCTURE_LIMITS);
    if (problem) {
      this.logger.warn('MCP request refused', { status: 413, reason: problem });
      sendJsonRpcError(res, 413, -32000, `Request body refused unread: ${problem}.`);
      return ANSWERED;
    }
    try {
      return JSON.parse(text) as unknown;
    } catch {
      sendJsonRpcError(res, 400, -32700, 'Parse error: Invalid JSON');
      return ANSWERED;
    }
  }

  /** A request without a session: only an `initialize` makes one (the transport answers anything else 400). */
  private async newSession(req: http.IncomingMessage, res: http.ServerResponse, body: unknown): Promise<void> {
    const transport = new StreamableHTTPServerTransport({
      sessionIdGenerator: () => randomUUID(),
      maxRequestBodySize: this.maxBodyBytes,
      onsessioninitialized: (id) => {
        this.makeRoom();
        this.sessions.set(id, { transport, server, lastUsed: Date.now() });
      },
      onsessionclosed: (id) => {
        this.sessions.delete(id);
      },
    });
    const server = this.createServer();
    server.oninitialized = () => this.logger.info('MCP client connected', { client: callerLabel(server.getClientVersion()?.name), sessions: this.sessions.size });
    transport.onclose = () => {
      if (transport.sessionId !== undefined) this.sessions.delete(transport.sessionId);
    };
    await server.connect(transport);
    await transport.handleRequest(req, res, body);
    if (transport.sessionId === undefined || !this.sessions.has(transport.sessionId)) await server.close().catch(() => {});
  }

  private makeRoom(): void {
    while (this.sessions.size >= this.maxSessions) {
      let oldest: [string, McpSession] | undefined;
      for (const entry of this.sessions) if (!oldest || entry[1].lastUsed < oldest[1].lastUsed) oldest = entry;
      if (!oldest) return;
      this.sessions.delete(oldest[0]);
      this.logger.warn('MCP session closed to make room for a new one', { limit: this.maxSessions });
      void oldest[1].server.close().catch(() => {});
    }
  }

  private createServer(): Server {
    const server = new Server(
      { name: 'client-tools', title: 'Client Tools (VS Code)', version: this.options.serverVersion },
      { capabilities: { tools: { listChanged: true }, logging: {} }, instructions: INSTRUCTIONS },
    );
    // Log messages go only to a client that asked for them (`logging/setLevel`), at that level or above.
    let logLevel: LoggingLevel | undefined;
    server.setRequestHandler(SetLevelRequestSchema, (request) => {
      logLevel = request.params.level;
      return {};
    });
    server.setRequestHandler(ListToolsRequestSchema, () => ({ tools: listMcpTools(this.options.registry) }));
    server.setRequestHandler(CallToolRequestSchema, async (request, extra): Promise<CallToolResult> => {
      const caller = callerLabel(server.getClientVersion()?.name);
      const progressToken = request.params._meta?.progressToken;
      const toolName = request.params.name;
      let step = 0;
      const lifetime = this.callerLifetime(extra.signal);
      const response = await this.options.calls.call(toolName, request.params.arguments ?? {}, {
        caller,
        lifetime,
        // The call's state and the tool's own progress: as progress when the client gave a token,
        // and as `info` log messages when it set a level that shows them.
        onProgress: (status, details) => {
          step += 1;
          const message = status === 'awaiting-permission' ? 'waiting for the user to allow or deny' : status === 'running' ? 'running' : details ?? 'running';
          if (progressToken !== undefined) void extra.sendNotification({ method: 'notifications/progress', params: { progressToken, progress: step, message } }).catch(() => {});
          if (logLevel !== undefined && logs(logLevel, 'info')) void extra.sendNotification({ method: 'notifications/message', params: { level: 'info', logger: 'client-tools', data: `${toolName}: ${message}` } }).catch(() => {});
        },
      });
      return toCallToolResult(response, this.options.registry.get(request.params.name)?.tool.outputSchema !== undefined);
    });
    return server;
  }

  /**
   * A call's caller: it ends when the client cancels or its session ends (`signal`), or when the HTTP
   * response that carries the call closes before it was written to the end (the client process
   * exited, its connection dropped). The server keeps no event store, so a closed stream cannot be
   * resumed: whatever the call would answer could reach nobody, and it must not run.
   */
  private callerLifetime(signal: AbortSignal): CallerLifetime {
    const lifetime = CallerLifetime.until(signal, ErrorCode.Cancelled, 'the MCP client cancelled the request, or its session ended');
    const carrier = this.carriers.getStore();
    if (!carrier) return lifetime;
    const gone = () => lifetime.end(ErrorCode.Cancelled, 'the MCP client went away: the HTTP request that carried the call closed before its answer');
    if (carrier.destroyed && !carrier.writableFinished) gone();
    const onClose = () => {
      if (!carrier.writableFinished) gone();
    };
    carrier.once('close', onClose);
    lifetime.onEnd(() => carrier.off('close', onClose));
    return lifetime;
  }

  /** The registry changed (a group registered, trust granted, a tool shown): tell every session once. */
  private queueListChanged(): void {
    if (this.listChangedQueued || this.closed) return;
    this.listChangedQueued = true;
    setImmediate(() => {
      this.listChangedQueued = false;
      for (const s of this.sessions.values()) void s.server.sendToolListChanged().catch(() => {});
    });
  }
}

/** Whether a client that set `level` gets messages of `severity` (MCP's syslog order). */
function logs(level: LoggingLevel, severity: LoggingLevel): boolean {
  const order = LoggingLevelSchema.options;
  return order.indexOf(severity) >= order.indexOf(level);
}

function sendPlain(res: http.ServerResponse, status: number, text: string, headers: Record<string, string>): void {
  res.writeHead(status, { 'Content-Type': 'text/plain; charset=utf-8', ...headers });
  res.end(text);
}

function sendJsonRpcError(res: http.ServerResponse, status: number, code: number, message: string): void {
  res.writeHead(status, { 'Content-Type': 'application/json' });
  res.end(JSON.stringify({ jsonrpc: '2.0', error: { code, message }, id: null }));
}
