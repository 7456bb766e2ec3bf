/**
 * A scripted agent backend for unit tests: a real `ws` WebSocketServer on 127.0.0.1 that checks the
 * token header, answers `hello` with `welcome` (resuming sessions it knows), records what the client
 * sends, and lets a test send requests and wait for answers.
 */
import type { AddressInfo } from 'node:net';
import { WebSocket, WebSocketServer } from 'ws';
import {
  decodeFromClient,
  encode,
  encodeInline,
  PROTOCOL,
  TOKEN_HEADER,
  type ClientToolInvokeRequest,
  type ClientToolInvokeResponse,
  type ClientToServer,
  type Hello,
  type ServerToClient,
  type Welcome,
} from '../../src/protocol';

export interface FakeBackendOptions {
  /** Listen on this port (for a restart on the same port). Default 0: any free port. */
  port?: number;
  token?: string;
  /** Session ids this backend accepts in `resumeSession` (shared across restarts to simulate a persistent backend). */
  sessions?: Set<string>;
  /** Don't answer `hello` (handshake-timeout tests). */
  silentHello?: boolean;
  maxMessageBytes?: number;
}

type Waiter = { match: (m: ClientToServer) => boolean; resolve: (m: ClientToServer) => void };

/** Process-wide, so a restarted backend never hands out an id an earlier one used. */
let sessionCounter = 0;

export class FakeBackend {
  readonly received: ClientToServer[] = [];
  /** Each decoded message's frame: binary or text, and its size. */
  readonly frames: { type: string; binary: boolean; bytes: number }[] = [];
  readonly hellos: Hello[] = [];
  readonly sockets: WebSocket[] = [];
  /** Upgrade requests' token headers, in order. */
  readonly tokens: (string | undefined)[] = [];
  readonly sessions: Set<string>;
  private waiters: Waiter[] = [];
  private nextRequest = 1;

  private constructor(
    readonly wss: WebSocketServer,
    readonly port: number,
    readonly token: string,
    private readonly options: FakeBackendOptions,
  ) {
    this.sessions = options.sessions ?? new Set();
  }

  static async start(options: FakeBackendOptions = {}): Promise<FakeBackend> {
    const token = options.token ?? 'test-token';
    const wss = new WebSocketServer({
      host: '127.0.0.1',
      port: options.port ?? 0,
      verifyClient: (info, done) => {
        const got = info.req.headers[TOKEN_HEADER];
        done(got === token, 401, 'Unauthorized');
      },
    });
    await new Promise<void>((resolve, reject) => {
      wss.once('listening', resolve);
      wss.once('error', reject);
    });
    const port = (wss.address() as AddressInfo).port;
    const backend = new FakeBackend(wss, port, token, options);
    wss.on('connection', (ws, req) => backend.onConnection(ws, req.headers[TOKEN_HEADER] as string | undefined));
    return backend;
  }

  get url(): string {
    return `ws://127.0.0.1:${this.port}`;
  }

  /** The most recent client socket. */
  get socket(): WebSocket {
    const ws = this.sockets[this.sockets.length - 1];
    if (!ws) throw new Error('no client connected');
    return ws;
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
    const requestId = extra.requestId ?? `req-${this.nextRequest++}`;
    this.send({ type: 'clientToolInvokeRequest', requestId, toolName, callId: `call-${requestId}`, arguments: args, ...extra });
    return requestId;
  }

  /** Sends a request and waits for its answer. */
  async call(toolName: string, args: Record<string, unknown>, extra: Partial<ClientToolInvokeRequest> = {}): Promise<ClientToolInvokeResponse> {
    const id = this.invoke(toolName, args, extra);
    return this.response(id);
  }

  /**
   * The next message matching `match` that arrives from now on, or a timeout error. With
   * `fromIndex`, messages already received at or after that index in `received` count too.
   */
  waitFor(match: (m: ClientToServer) => boolean, timeoutMs = 5000, fromIndex?: number): Promise<ClientToServer> {
    if (fromIndex !== undefined) {
      const seen = this.received.slice(fromIndex).find(match);
      if (seen) return Promise.resolve(seen);
    }
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => {
        this.waiters = this.waiters.filter((w) => w !== waiter);
        reject(new Error(`fake backend: no matching message within ${timeoutMs} ms`));
      }, timeoutMs);
      const waiter: Waiter = {
        match,
        resolve: (m) => {
          clearTimeout(timer);
          resolve(m);
        },
      };
      this.waiters.push(waiter);
    });
  }

  /** Waits for a response to `requestId` that arrives after this call. */
  response(requestId: string, timeoutMs = 5000): Promise<ClientToolInvokeResponse> {
    return this.waitFor((m) => m.type === 'clientToolInvokeResponse' && m.requestId === requestId, timeoutMs) as Promise<ClientToolInvokeResponse>;
  }

  responsesFor(requestId: string): ClientToolInvokeResponse[] {
    return this.received.filter((m): m is ClientToolInvokeResponse => m.type === 'clientToolInvokeResponse' && m.requestId === requestId);
  }

  nextHello(timeoutMs = 5000): Promise<Hello> {
    return this.waitFor((m) => m.type === 'hello', timeoutMs) as Promise<Hello>;
  }

  /** Drops every client connection abruptly (no close frame). */
  dropClients(): void {
    for (const ws of this.wss.clients) ws.terminate();
  }

  /** Stops reading from every client socket: pings go unanswered, as with a hung peer. */
  freezeClients(): void {
    for (const ws of this.wss.clients) ws.pause();
  }

  async close(): Promise<void> {
    for (const ws of this.wss.clients) ws.terminate();
    await new Promise<void>((resolve) => this.wss.close(() => resolve()));
  }

  private onConnection(ws: WebSocket, token: string | undefined): void {
    this.sockets.push(ws);
    this.tokens.push(token);
    ws.on('message', (data, isBinary) => {
      const decoded = decodeFromClient(data as Buffer, isBinary);
      if (!decoded.ok) throw new Error(`fake backend: client sent an undecodable message: ${decoded.error.code} ${decoded.error.message}`);
      const message = decoded.message;
      this.received.push(message);
      this.frames.push({ type: message.type, binary: isBinary, bytes: (data as Buffer).length });
      if (message.type === 'hello') this.onHello(ws, message);
      const i = this.waiters.findIndex((w) => w.match(message));
      if (i >= 0) this.waiters.splice(i, 1)[0].resolve(message);
    });
  }

  private onHello(ws: WebSocket, hello: Hello): void {
    this.hellos.push(hello);
    if (this.options.silentHello) return;
    const resumed = hello.resumeSession !== undefined && this.sessions.has(hello.resumeSession);
    const sessionId = resumed ? (hello.resumeSession as string) : `session-${++sessionCounter}`;
    this.sessions.add(sessionId);
    const welcome: Welcome = {
      type: 'welcome',
      protocol: PROTOCOL,
      sessionId,
      resumed,
      server: { name: 'fake-backend', version: '0.0.0', model: { name: 'none', offline: true } },
      limits: { maxMessageBytes: this.options.maxMessageBytes ?? 32 * 1024 * 1024, maxInFlight: 64, invokeTimeoutMs: 30_000 },
    };
    this.send(welcome, ws);
  }
}
