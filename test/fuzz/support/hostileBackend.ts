/**
 * The fuzzer as a backend the extension connects to: a `ws` server on 127.0.0.1 that answers each
 * `hello` with the welcome it is given (a valid one unless a case sets hostile text), sends JSON text
 * as it is, and takes the extension's messages out of an inbox by predicate. Unlike
 * test/support/scripted-backend.ts it keeps nothing past a case and never throws on what it gets.
 */
import type { AddressInfo } from 'node:net';
import { WebSocketServer, type WebSocket } from 'ws';
import { decodeFromClient, DEFAULT_LIMITS, PROTOCOL, type ClientToServer, type Welcome } from '../../../src/protocol';

export const BACKEND_TOKEN = 'fuzz-backend-token';

export function validWelcome(sessionId: string): Welcome {
  return { type: 'welcome', protocol: PROTOCOL, sessionId, resumed: false, server: { name: 'fuzz-backend', version: '0.0.0', model: { name: 'fuzz-model', offline: false } }, limits: { ...DEFAULT_LIMITS } };
}

export class HostileBackend {
  private readonly inbox: ClientToServer[] = [];
  private readonly waiters = new Set<() => void>();
  private current: WebSocket | undefined;
  private sessions = 0;
  /** The text the next hello is answered with, once; then valid welcomes again. */
  nextWelcome: string | undefined;
  /** Resolves on every hello, with the socket it came on. */
  private helloWaiters: ((ws: WebSocket) => void)[] = [];

  private constructor(private readonly wss: WebSocketServer) {
    wss.on('connection', (ws) => {
      ws.on('error', () => {});
      ws.on('close', () => {
        if (ws !== this.current) return;
        this.current = undefined;
        for (const w of [...this.waiters]) w();
      });
      ws.on('message', (data, isBinary) => {
        const decoded = decodeFromClient(data as Buffer, isBinary, { maxMessageBytes: 256 * 1024 * 1024 });
        if (!decoded.ok) return;
        if (decoded.message.type === 'hello') return this.onHello(ws);
        if (ws !== this.current) return;
        this.inbox.push(decoded.message);
        for (const w of [...this.waiters]) w();
      });
    });
  }

  static async start(): Promise<HostileBackend> {
    const wss = new WebSocketServer({ host: '127.0.0.1', port: 0, maxPayload: 256 * 1024 * 1024, perMessageDeflate: false });
    await new Promise<void>((resolve) => wss.once('listening', () => resolve()));
    return new HostileBackend(wss);
  }

  get url(): string {
    return `ws://127.0.0.1:${(this.wss.address() as AddressInfo).port}`;
  }

  get connected(): boolean {
    return this.current?.readyState === 1;
  }

  sendText(text: string): void {
    if (this.current?.readyState === 1) this.current.send(text);
  }

  send(message: unknown): void {
    this.sendText(JSON.stringify(message));
  }

  /** Drops the current connection without a close frame; the extension reconnects. */
  drop(): void {
    this.current?.terminate();
    this.current = undefined;
  }

  /** The next hello (after this call), once answered. */
  nextHello(timeoutMs = 10_000): Promise<boolean> {
    return new Promise((resolve) => {
      const timer = setTimeout(() => resolve(false), timeoutMs);
      this.helloWaiters.push(() => {
        clearTimeout(timer);
        resolve(true);
      });
    });
  }

  /** The first message (received or to come) that `match` accepts; undefined after `timeoutMs` or when the connection closes. */
  next(match: (m: ClientToServer) => boolean, timeoutMs = 10_000): Promise<ClientToServer | undefined> {
    return new Promise((resolve) => {
      const find = () => {
        const i = this.inbox.findIndex(match);
        if (i < 0 && this.current) return false;
        const m = i < 0 ? undefined : this.inbox.splice(i, 1)[0];
        clearTimeout(timer);
        this.waiters.delete(check);
        resolve(m);
        return true;
      };
      const check = () => void find();
      const timer = setTimeout(() => {
        this.waiters.delete(check);
        resolve(undefined);
      }, timeoutMs);
      if (!find()) this.waiters.add(check);
    });
  }

  /** Forgets what the extension sent so far. */
  clear(): void {
    this.inbox.length = 0;
  }

  async close(): Promise<void> {
    for (const ws of this.wss.clients) ws.terminate();
    await new Promise<void>((resolve) => this.wss.close(() => resolve()));
  }

  private onHello(ws: WebSocket): void {
    if (this.current && this.current !== ws) this.current.terminate();
    this.current = ws;
    const hostile = this.nextWelcome;
    this.nextWelcome = undefined;
    ws.send(hostile ?? JSON.stringify(validWelcome(`session-${++this.sessions}`)));
    for (const w of this.helloWaiters.splice(0)) w(ws);
  }
}
