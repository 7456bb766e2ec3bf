/**
 * The scripted agent backend every test layer uses: unit and adversarial tests (ClientCore in this
 * process), the extension-host suite (bundled into out/test/vscode by esbuild) and the UI tests
 * (the extension in code-server connects to this process). Plain Node: a real `ws` server on
 * 127.0.0.1 that checks the token header, answers `hello` with `welcome` (resuming the sessions it
 * knows), decodes what the client sends with the protocol codec (binary content arrives as bytes),
 * records it, and lets a test send requests, wait for answers and progress, and drop, refuse or
 * freeze connections.
 */
import type { AddressInfo } from 'node:net';
import { WebSocketServer, type RawData, type WebSocket } from 'ws';
import {
  decodeFromClient,
  encode,
  encodeInline,
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
} from '../../src/protocol';

export interface ScriptedBackendOptions {
  /** Listen on this port (for a restart on the same port). Default 0: any free port. */
  port?: number;
  /** The token the client must send in the upgrade request's token header. Default `test-token`. */
  token?: string;
  /** Session ids this backend accepts in `resumeSession` (shared across restarts to simulate a persistent backend). */
  sessions?: Set<string>;
  /** Don't answer `hello` (handshake-timeout tests). */
  silentHello?: boolean;
  /** What `welcome` says about the server; the model name shows in the extension's status bar. */
  server?: Welcome['server'];
  /** Limits announced in `welcome`, over the defaults (32 MiB, 64 in flight, 30 s). */
  limits?: Partial<Welcome['limits']>;
  /** How long waits give up after unless told otherwise. Default 5 s. */
  defaultTimeoutMs?: number;
  /**
   * What a message the codec refuses does: `throw` (default) fails the running test through an
   * uncaught exception; `record` keeps it in `protocolErrors` for a test to check later (UI tests,
   * where the sender is another process). Either way the socket is closed with 1002.
   */
  undecodable?: 'throw' | 'record';
}

/** A decoded message from the client and how it travelled. */
export interface Frame {
  message: ClientToServer;
  type: ClientToServer['type'];
  /** Whether it came as a binary frame (messages with binary content must). */
  binary: boolean;
  bytes: number;
  at: number;
}

/** A tool call in flight: its request (to send again for a replay) and its answer. */
export interface Invocation {
  requestId: string;
  request: ClientToolInvokeRequest;
  response: Promise<ClientToolInvokeResponse>;
}

type MessageOfType<T extends ClientToServer['type']> = Extract<ClientToServer, { type: T }>;

interface Waiter {
  match: (m: ClientToServer) => boolean;
  resolve: (m: ClientToServer) => void;
  timer: NodeJS.Timeout;
}

/** Process-wide, so a restarted backend never hands out an id an earlier one used. */
let sessionCounter = 0;
/** Process-wide, so no two backends of one run (one extension host) send the same request id. */
let requestCounter = 0;

const DEFAULT_SERVER: Welcome['server'] = { name: 'scripted-backend', version: '0.0.0', model: { name: 'scripted', offline: false } };
const DEFAULT_LIMITS: Welcome['limits'] = { maxMessageBytes: 32 * 1024 * 1024, maxInFlight: 64, invokeTimeoutMs: 30_000 };

export class ScriptedBackend {
  /** Every message the client sent, decoded, in order. */
  readonly received: ClientToServer[] = [];
  /** Each message of `received` (same index) with how it travelled. */
  readonly frames: Frame[] = [];
  readonly hellos: Hello[] = [];
  readonly progress: ClientToolProgress[] = [];
  /** Accepted client sockets, in order. */
  readonly sockets: WebSocket[] = [];
  /** Accepted upgrade requests' token headers, in order. */
  readonly tokens: (string | undefined)[] = [];
  /** Upgrade requests refused: a wrong or missing token, or while refusing connections. */
  readonly refusedUpgrades: { reason: 'token' | 'not accepting'; token: string | undefined }[] = [];
  /** Messages the protocol codec refused (with `undecodable: 'record'`); should stay empty. */
  readonly protocolErrors: string[] = [];
  readonly sessions: Set<string>;
  readonly token: string;
  /** Kept after `close()`, for a restart on the same port. */
  readonly port: number;
  private readonly timeoutMs: number;
  private waiters: Waiter[] = [];
  private accepting = true;
  private helloRefusal: { message: ServerToClient; closeCode: number } | undefined;

  private constructor(
    readonly wss: WebSocketServer,
    private readonly options: ScriptedBackendOptions,
  ) {
    this.token = options.token ?? 'test-token';
    this.port = (wss.address() as AddressInfo).port;
    this.sessions = options.sessions ?? new Set();
    this.timeoutMs = options.defaultTimeoutMs ?? 5000;
  }

  static async start(options: ScriptedBackendOptions = {}): Promise<ScriptedBackend> {
    const wss = new WebSocketServer({ host: '127.0.0.1', port: options.port ?? 0, perMessageDeflate: false, verifyClient: (info, done) => backend.verify(info.req.headers[TOKEN_HEADER], done) });
    await new Promise<void>((resolve, reject) => {
      wss.once('listening', resolve);
      wss.once('error', reject);
    });
    const backend = new ScriptedBackend(wss, options);
    wss.on('connection', (ws, req) => backend.onConnection(ws, firstHeader(req.headers[TOKEN_HEADER])));
    return backend;
  }

  /** What the client connects to (`clientTools.backendUrl` in an editor). */
  get url(): string {
    return `ws://127.0.0.1:${this.port}`;
  }

  /** The most recent client socket. */
  get socket(): WebSocket {
    const ws = this.sockets[this.sockets.length - 1];
    if (!ws) throw new Error('scripted backend: no client connected');
    return ws;
  }

  get connectedClients(): number {
    return this.wss.clients.size;
  }

  send(message: ServerToClient, ws: WebSocket = this.socket): void {
    const frame = encode(message);
    ws.send(frame.data, { binary: frame.binary });
  }

  /** Sends raw text, for malformed-message tests. */
  sendRaw(text: string, ws: WebSocket = this.socket): void {
    ws.send(text);
  }

  sendInline(message: ServerToClient, ws: WebSocket = this.socket): void {
    ws.send(encodeInline(message));
  }

  /** Sends a tool request; returns its id. */
  invoke(toolName: string, args: Record<string, unknown>, extra: Partial<ClientToolInvokeRequest> = {}): string {
    return this.startCall(toolName, args, extra).requestId;
  }

  /** Sends a tool request and resolves with its answer. */
  call(toolName: string, args: Record<string, unknown>, extra: Partial<ClientToolInvokeRequest> = {}): Promise<ClientToolInvokeResponse> {
    return this.startCall(toolName, args, extra).response;
  }

  /** Sends a tool request; the answer comes later, and the request can be sent again as a replay. */
  startCall(toolName: string, args: Record<string, unknown>, extra: Partial<ClientToolInvokeRequest> = {}): Invocation {
    const requestId = extra.requestId ?? `req-${++requestCounter}`;
    const request: ClientToolInvokeRequest = { type: 'clientToolInvokeRequest', requestId, toolName, callId: `call-${requestId}`, arguments: args, ...extra };
    return { requestId, request, response: this.sendRequest(request) };
  }

  /** Sends this exact request (again, for a replay) and resolves with the next answer to its id. */
  sendRequest(request: ClientToolInvokeRequest, timeoutMs = this.timeoutMs): Promise<ClientToolInvokeResponse> {
    const answer = this.response(request.requestId, timeoutMs);
    this.send(request);
    return answer;
  }

  /**
   * The next message matching `match` that arrives from now on, or a timeout error. With
   * `fromIndex`, messages already received at or after that index in `received` count too.
   */
  waitFor(match: (m: ClientToServer) => boolean, timeoutMs = this.timeoutMs, fromIndex?: number): Promise<ClientToServer> {
    if (fromIndex !== undefined) {
      const seen = this.received.slice(fromIndex).find(match);
      if (seen) return Promise.resolve(seen);
    }
    return new Promise((resolve, reject) => {
      const waiter: Waiter = {
        match,
        resolve,
        timer: setTimeout(() => {
          this.waiters = this.waiters.filter((w) => w !== waiter);
          const got = this.received.slice(-10).map((m) => m.type).join(', ') || 'nothing';
          reject(new Error(`scripted backend: no matching message within ${timeoutMs} ms (last received: ${got})`));
        }, timeoutMs),
      };
      this.waiters.push(waiter);
    });
  }

  /** The first message of `type` that matches, already received or still to come. */
  async first<T extends ClientToServer['type']>(type: T, match: (m: MessageOfType<T>) => boolean = () => true, timeoutMs = this.timeoutMs): Promise<MessageOfType<T>> {
    const m = await this.waitFor((x) => x.type === type && match(x as MessageOfType<T>), timeoutMs, 0);
    return m as MessageOfType<T>;
  }

  /** Waits for a response to `requestId` that arrives after this call. */
  response(requestId: string, timeoutMs = this.timeoutMs): Promise<ClientToolInvokeResponse> {
    return this.waitFor((m) => m.type === 'clientToolInvokeResponse' && m.requestId === requestId, timeoutMs) as Promise<ClientToolInvokeResponse>;
  }

  responsesFor(requestId: string): ClientToolInvokeResponse[] {
    return this.responseFrames(requestId).map((f) => f.message as ClientToolInvokeResponse);
  }

  /** How the answers to a request id travelled, in order. */
  responseFrames(requestId: string): Frame[] {
    return this.frames.filter((f) => f.message.type === 'clientToolInvokeResponse' && f.message.requestId === requestId);
  }

  progressFor(requestId: string): ClientToolProgress[] {
    return this.progress.filter((p) => p.requestId === requestId);
  }

  /** The first progress of this status for the request, already received or still to come. */
  waitForProgress(requestId: string, status: ProgressStatus, timeoutMs = this.timeoutMs): Promise<ClientToolProgress> {
    return this.first('clientToolProgress', (p) => p.requestId === requestId && p.status === status, timeoutMs);
  }

  nextHello(timeoutMs = this.timeoutMs): Promise<Hello> {
    return this.waitFor((m) => m.type === 'hello', timeoutMs) as Promise<Hello>;
  }

  /** The `index`-th hello (0-based), already received or still to come. */
  async hello(index: number, timeoutMs = this.timeoutMs): Promise<Hello> {
    while (this.hellos.length <= index) await this.nextHello(timeoutMs);
    return this.hellos[index];
  }

  /**
   * Drops every client connection abruptly (no close frame), as a crashed backend or a dropped
   * network would. With `refuseNew`, upgrades are answered HTTP 503 until `acceptConnections()`.
   */
  dropClients({ refuseNew = false } = {}): void {
    if (refuseNew) this.accepting = false;
    for (const ws of this.wss.clients) ws.terminate();
  }

  /**
   * From now on, answers every hello with `message` (an `error`, say) and then closes the socket
   * with `closeCode`, as a backend that refuses the handshake.
   */
  refuseHellos(message: ServerToClient, closeCode = 1008): void {
    this.helloRefusal = { message, closeCode };
  }

  acceptConnections(): void {
    this.accepting = true;
  }

  /** Stops reading from every client socket: pings go unanswered, as with a hung peer. */
  freezeClients(): void {
    for (const ws of this.wss.clients) ws.pause();
  }

  async close(): Promise<void> {
    this.accepting = false;
    for (const ws of this.wss.clients) ws.terminate();
    await new Promise<void>((resolve) => this.wss.close(() => resolve()));
    // Nothing can arrive any more; a wait still pending would only keep the process alive.
    for (const w of this.waiters) clearTimeout(w.timer);
    this.waiters = [];
  }

  private verify(header: string | string[] | undefined, done: (ok: boolean, code?: number, message?: string) => void): void {
    const token = firstHeader(header);
    if (token !== this.token) {
      this.refusedUpgrades.push({ reason: 'token', token });
      done(false, 401, 'Unauthorized');
    } else if (!this.accepting) {
      this.refusedUpgrades.push({ reason: 'not accepting', token });
      done(false, 503, 'Service Unavailable');
    } else {
      done(true);
    }
  }

  private onConnection(ws: WebSocket, token: string | undefined): void {
    this.sockets.push(ws);
    this.tokens.push(token);
    ws.on('message', (data, isBinary) => this.onMessage(ws, toBuffer(data), isBinary));
  }

  private onMessage(ws: WebSocket, data: Buffer, isBinary: boolean): void {
    const decoded = decodeFromClient(data, isBinary);
    if (!decoded.ok) {
      const error = `${decoded.error.code}: ${decoded.error.message}`;
      ws.close(1002, decoded.error.code);
      if (this.options.undecodable !== 'record') throw new Error(`scripted backend: the client sent an undecodable message: ${error}`);
      this.protocolErrors.push(error);
      return;
    }
    const message = decoded.message;
    this.received.push(message);
    this.frames.push({ message, type: message.type, binary: isBinary, bytes: data.length, at: Date.now() });
    if (message.type === 'hello') this.onHello(ws, message);
    if (message.type === 'clientToolProgress') this.progress.push(message);
    const matching = this.waiters.filter((w) => w.match(message));
    this.waiters = this.waiters.filter((w) => !matching.includes(w));
    for (const w of matching) {
      clearTimeout(w.timer);
      w.resolve(message);
    }
  }

  private onHello(ws: WebSocket, hello: Hello): void {
    this.hellos.push(hello);
    if (this.helloRefusal) {
      const { message, closeCode } = this.helloRefusal;
      const frame = encode(message);
      ws.send(frame.data, { binary: frame.binary }, () => ws.close(closeCode, 'hello refused'));
      return;
    }
    if (this.options.silentHello) return;
    const resumed = hello.resumeSession !== undefined && this.sessions.has(hello.resumeSession);
    const sessionId = resumed ? (hello.resumeSession as string) : `session-${++sessionCounter}`;
    this.sessions.add(sessionId);
    this.send({
      type: 'welcome',
      protocol: PROTOCOL,
      sessionId,
      resumed,
      server: this.options.server ?? DEFAULT_SERVER,
      limits: { ...DEFAULT_LIMITS, ...this.options.limits },
    }, ws);
  }
}

function firstHeader(header: string | string[] | undefined): string | undefined {
  return Array.isArray(header) ? header[0] : header;
}

function toBuffer(data: RawData): Buffer {
  if (Array.isArray(data)) return Buffer.concat(data);
  return Buffer.isBuffer(data) ? data : Buffer.from(data);
}
