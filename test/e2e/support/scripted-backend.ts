/**
 * A scripted agent backend for the UI tests: the test process plays the backend the extension in a
 * real VS Code connects to. A real `ws` WebSocketServer on 127.0.0.1 checks the token header,
 * answers `hello` with `welcome` (resuming a session it handed out), lets the test send tool calls
 * and await their answers (decoded with the protocol codec, so binary content arrives as bytes),
 * records progress, and can drop the connection and refuse new ones for a while.
 */
import type { AddressInfo } from 'node:net';
import { WebSocketServer, type WebSocket } from 'ws';
import {
  decodeFromClient,
  encode,
  PROTOCOL,
  TOKEN_HEADER,
  type ClientToolInvokeRequest,
  type ClientToolInvokeResponse,
  type ClientToolProgress,
  type ClientToServer,
  type Hello,
  type ProgressStatus,
  type ServerToClient,
  type Welcome,
} from '../../../src/protocol';

export interface ScriptedBackendOptions {
  /** The token the extension must send in the upgrade request's `x-client-tools-token` header. */
  token: string;
  /** How long `invoke` and the other waits give up after, unless told otherwise. Default 30 s. */
  defaultTimeoutMs?: number;
}

/** A decoded message and how it travelled. */
export interface Received {
  message: ClientToServer;
  /** Whether it came as a binary frame (messages with binary content must). */
  binary: boolean;
  at: number;
}

/** A tool call in flight: its id, to correlate progress, and its answer. */
export interface Invocation {
  requestId: string;
  request: ClientToolInvokeRequest;
  response: Promise<ClientToolInvokeResponse>;
}

interface Waiter {
  match: (r: Received) => boolean;
  resolve: (r: Received) => void;
}

export class ScriptedBackend {
  /** Everything the extension sent, in order. */
  readonly received: Received[] = [];
  readonly hellos: Hello[] = [];
  readonly progress: ClientToolProgress[] = [];
  /** Sessions handed out in `welcome`, in order. */
  readonly sessions: string[] = [];
  /** Upgrade requests refused: a wrong or missing token, or while refusing connections. */
  readonly refusedUpgrades: { reason: string; token: string | undefined }[] = [];
  /** Messages from the extension that the protocol codec refused; should stay empty. */
  readonly protocolErrors: string[] = [];
  private readonly timeoutMs: number;
  private waiters: Waiter[] = [];
  private nextId = 1;
  private accepting = true;

  private readonly wss: WebSocketServer;
  private readonly token: string;

  private constructor(options: ScriptedBackendOptions) {
    this.token = options.token;
    this.timeoutMs = options.defaultTimeoutMs ?? 30_000;
    this.wss = new WebSocketServer({
      host: '127.0.0.1',
      port: 0,
      perMessageDeflate: false,
      verifyClient: (info, done) => {
        const raw = info.req.headers[TOKEN_HEADER];
        const token = Array.isArray(raw) ? raw[0] : raw;
        if (token !== this.token) {
          this.refusedUpgrades.push({ reason: 'token', token });
          done(false, 401, 'Unauthorized');
        } else if (!this.accepting) {
          this.refusedUpgrades.push({ reason: 'not accepting', token });
          done(false, 503, 'Service Unavailable');
        } else {
          done(true);
        }
      },
    });
    this.wss.on('connection', (ws) => this.onConnection(ws));
  }

  static async start(options: ScriptedBackendOptions): Promise<ScriptedBackend> {
    const backend = new ScriptedBackend(options);
    await new Promise<void>((resolve, reject) => {
      backend.wss.once('listening', resolve);
      backend.wss.once('error', reject);
    });
    return backend;
  }

  get port(): number {
    return (this.wss.address() as AddressInfo).port;
  }

  /** What `clientTools.backendUrl` should say. */
  get url(): string {
    return `ws://127.0.0.1:${this.port}`;
  }

  get connectedClients(): number {
    return this.wss.clients.size;
  }

  /** Sends a tool call; the answer is decoded, with binary content as `bytes`. */
  start(toolName: string, args: Record<string, unknown>, requestId = `req-${this.nextId++}`): Invocation {
    const request: ClientToolInvokeRequest = {
      type: 'clientToolInvokeRequest',
      requestId,
      toolName,
      callId: `call-${requestId}`,
      arguments: args,
    };
    return { requestId, request, response: this.sendRequest(request) };
  }

  /** Sends a tool call and resolves with its answer. */
  invoke(toolName: string, args: Record<string, unknown>): Promise<ClientToolInvokeResponse> {
    return this.start(toolName, args).response;
  }

  /** Sends this exact request (again, for a replay) and resolves with the next answer to its id. */
  sendRequest(request: ClientToolInvokeRequest, timeoutMs = this.timeoutMs): Promise<ClientToolInvokeResponse> {
    const answer = this.waitFor(
      (r) => r.message.type === 'clientToolInvokeResponse' && r.message.requestId === request.requestId,
      `the answer to ${request.toolName} ${request.requestId}`,
      timeoutMs,
    );
    this.send(request);
    return answer.then((r) => r.message as ClientToolInvokeResponse);
  }

  /** How the answers to a request id travelled, in order. */
  answersTo(requestId: string): Received[] {
    return this.received.filter((r) => r.message.type === 'clientToolInvokeResponse' && r.message.requestId === requestId);
  }

  progressFor(requestId: string): ClientToolProgress[] {
    return this.progress.filter((p) => p.requestId === requestId);
  }

  /** The first progress of this status for the request, already received or still to come. */
  async waitForProgress(requestId: string, status: ProgressStatus, timeoutMs = this.timeoutMs): Promise<ClientToolProgress> {
    const seen = this.progress.find((p) => p.requestId === requestId && p.status === status);
    if (seen) return seen;
    const r = await this.waitFor(
      (m) => m.message.type === 'clientToolProgress' && m.message.requestId === requestId && m.message.status === status,
      `progress "${status}" for ${requestId}`,
      timeoutMs,
    );
    return r.message as ClientToolProgress;
  }

  /** The `index`-th hello (0-based), already received or still to come. */
  async hello(index: number, timeoutMs = this.timeoutMs): Promise<Hello> {
    const seen = this.hellos[index];
    if (seen) return seen;
    while (this.hellos.length <= index) {
      await this.waitFor((r) => r.message.type === 'hello', `hello #${index + 1}`, timeoutMs);
    }
    return this.hellos[index];
  }

  /**
   * Ends every connection abruptly, as a crashed backend or a dropped network would (no close
   * frame). With `refuseNew`, reconnect attempts are answered HTTP 503 until `acceptConnections()`.
   */
  dropConnections({ refuseNew = false } = {}): void {
    if (refuseNew) this.accepting = false;
    for (const ws of this.wss.clients) ws.terminate();
  }

  acceptConnections(): void {
    this.accepting = true;
  }

  async close(): Promise<void> {
    this.accepting = false;
    for (const ws of this.wss.clients) ws.terminate();
    await new Promise<void>((resolve) => this.wss.close(() => resolve()));
    for (const w of this.waiters) w.resolve = () => undefined;
    this.waiters = [];
  }

  private send(message: ServerToClient): void {
    const clients = [...this.wss.clients];
    if (clients.length !== 1) throw new Error(`scripted backend: expected one connected client, have ${clients.length}`);
    const frame = encode(message);
    clients[0].send(frame.data, { binary: frame.binary });
  }

  /** Resolves with the first message matching `match` that arrives after this call. */
  private waitFor(match: (r: Received) => boolean, what: string, timeoutMs: number): Promise<Received> {
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => {
        this.waiters = this.waiters.filter((w) => w !== waiter);
        reject(new Error(`scripted backend: no ${what} within ${timeoutMs} ms`));
      }, timeoutMs);
      const waiter: Waiter = {
        match,
        resolve: (r) => {
          clearTimeout(timer);
          resolve(r);
        },
      };
      this.waiters.push(waiter);
    });
  }

  private onConnection(ws: WebSocket): void {
    ws.on('message', (data, isBinary) => {
      const buffer = Array.isArray(data) ? Buffer.concat(data) : Buffer.isBuffer(data) ? data : Buffer.from(data);
      const decoded = decodeFromClient(buffer, isBinary);
      if (!decoded.ok) {
        // The extension must never send what its own codec cannot read back; the tests check this list.
        this.protocolErrors.push(`${decoded.error.code}: ${decoded.error.message}`);
        ws.close(1002, decoded.error.code);
        return;
      }
      const received: Received = { message: decoded.message, binary: isBinary, at: Date.now() };
      this.received.push(received);
      if (decoded.message.type === 'hello') this.onHello(ws, decoded.message);
      if (decoded.message.type === 'clientToolProgress') this.progress.push(decoded.message);
      for (const w of this.waiters.filter((candidate) => candidate.match(received))) {
        this.waiters = this.waiters.filter((other) => other !== w);
        w.resolve(received);
      }
    });
  }

  private onHello(ws: WebSocket, hello: Hello): void {
    this.hellos.push(hello);
    const resumed = hello.resumeSession !== undefined && this.sessions.includes(hello.resumeSession);
    const sessionId = resumed ? (hello.resumeSession as string) : `scripted-session-${this.sessions.length + 1}`;
    if (!resumed) this.sessions.push(sessionId);
    const welcome: Welcome = {
      type: 'welcome',
      protocol: PROTOCOL,
      sessionId,
      resumed,
      server: { name: 'scripted-backend', version: '0.0.0', model: { name: 'scripted', offline: false } },
      limits: { maxMessageBytes: 32 * 1024 * 1024, maxInFlight: 64, invokeTimeoutMs: 30_000 },
    };
    const frame = encode(welcome);
    ws.send(frame.data, { binary: frame.binary });
  }
}
