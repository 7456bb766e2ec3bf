/**
 * A scripted agent backend for extension-host tests: a real `ws` server on 127.0.0.1 that speaks
 * the protocol through the project's codec and lets a test see and send messages.
 */
import { WebSocketServer, type WebSocket } from 'ws';
import { decodeFromClient, encode, PROTOCOL, TOKEN_HEADER, type ClientToServer, type ServerToClient } from '../../../src/protocol';

export class ScriptedBackend {
  readonly received: ClientToServer[] = [];
  private socket: WebSocket | undefined;
  private waiters: { pred: (m: ClientToServer) => boolean; resolve: (m: ClientToServer) => void }[] = [];
  private constructor(private readonly wss: WebSocketServer, readonly token: string) {}

  static async start(token: string): Promise<ScriptedBackend> {
    const wss = new WebSocketServer({ host: '127.0.0.1', port: 0 });
    await new Promise<void>((resolve) => wss.once('listening', () => resolve()));
    const backend = new ScriptedBackend(wss, token);
    wss.on('connection', (socket, req) => {
      if (req.headers[TOKEN_HEADER] !== token) {
        socket.close(1008, 'bad token');
        return;
      }
      backend.socket = socket;
      socket.on('message', (data, isBinary) => backend.onMessage(data as Buffer, isBinary));
    });
    return backend;
  }

  get url(): string {
    const addr = this.wss.address();
    if (typeof addr === 'string' || addr === null) throw new Error('not listening');
    return `ws://127.0.0.1:${addr.port}`;
  }

  send(message: ServerToClient): void {
    const frame = encode(message);
    this.socket?.send(frame.data, { binary: frame.binary });
  }

  /** Resolves with the first received message (past or future) of this type that matches. */
  waitFor<T extends ClientToServer['type']>(type: T, pred: (m: Extract<ClientToServer, { type: T }>) => boolean = () => true, timeoutMs = 10_000): Promise<Extract<ClientToServer, { type: T }>> {
    const match = (m: ClientToServer) => m.type === type && pred(m as Extract<ClientToServer, { type: T }>);
    const seen = this.received.find(match);
    if (seen) return Promise.resolve(seen as Extract<ClientToServer, { type: T }>);
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`no ${type} within ${timeoutMs} ms; got ${this.received.map((m) => m.type).join(', ')}`)), timeoutMs);
      this.waiters.push({ pred: match, resolve: (m) => { clearTimeout(timer); resolve(m as Extract<ClientToServer, { type: T }>); } });
    });
  }

  /** Drops the connection without a close frame, as a crashed backend would. */
  dropConnection(): void {
    this.socket?.terminate();
    this.socket = undefined;
  }

  async close(): Promise<void> {
    for (const c of this.wss.clients) c.terminate();
    await new Promise<void>((resolve) => this.wss.close(() => resolve()));
  }

  private onMessage(data: Buffer, isBinary: boolean): void {
    const decoded = decodeFromClient(data, isBinary);
    if (!decoded.ok) throw new Error(`extension sent an invalid message: ${decoded.error.code} ${decoded.error.message}`);
    const m = decoded.message;
    this.received.push(m);
    if (m.type === 'hello') {
      this.send({
        type: 'welcome', protocol: PROTOCOL, sessionId: 'scripted-session', resumed: false,
        server: { name: 'scripted', version: '0', model: { name: 'scripted-model', offline: false } },
        limits: { maxMessageBytes: 1 << 20, maxInFlight: 16, invokeTimeoutMs: 30_000 },
      });
    }
    for (const w of [...this.waiters]) {
      if (w.pred(m)) {
        this.waiters.splice(this.waiters.indexOf(w), 1);
        w.resolve(m);
      }
    }
  }
}
