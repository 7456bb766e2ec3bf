/**
 * The kit's side of one connection to a backend under test, playing the extension: it upgrades with
 * whatever headers a check wants (right, wrong or missing token, an Origin, another Host or
 * subprotocol), keeps every message the backend sends, decoded against the protocol's schema, and
 * lets a check wait for the one it expects. A message that does not decode is kept too, as a
 * schema violation, so the report can say which message broke the rules.
 */
import { WebSocket } from 'ws';
import type { AnyMessage, DecodeError, ServerToClient } from '../protocol';
import { decodeFromServer, encode, encodeInline, SUBPROTOCOL, TOKEN_HEADER } from '../protocol';
import { Intake, MAX_FRAME_BYTES } from './intake';

export interface UpgradeOptions {
  token?: string;
  origin?: string;
  host?: string;
  /** Subprotocols to offer; default the protocol's own. */
  protocols?: string[];
  timeoutMs: number;
}

export type Upgrade =
  | { kind: 'open'; peer: BackendPeer }
  | { kind: 'refused'; status: number }
  | { kind: 'failed'; message: string };

/** Upgrades to `url`; never rejects: a refusal or failure is an outcome the checks judge. */
export function upgrade(url: string, options: UpgradeOptions): Promise<Upgrade> {
  const headers: Record<string, string> = {};
  if (options.token !== undefined) headers[TOKEN_HEADER] = options.token;
  if (options.origin !== undefined) headers.Origin = options.origin;
  if (options.host !== undefined) headers.Host = options.host;
  return new Promise((resolve) => {
    const ws = new WebSocket(url, options.protocols ?? [SUBPROTOCOL], { headers, perMessageDeflate: false, handshakeTimeout: options.timeoutMs, followRedirects: false, maxPayload: MAX_FRAME_BYTES });
    ws.binaryType = 'nodebuffer';
    const peer = new BackendPeer(ws);
    ws.once('unexpected-response', (_req, res) => {
      resolve({ kind: 'refused', status: res.statusCode ?? 0 });
      res.resume();
      ws.terminate();
    });
    ws.once('open', () => resolve({ kind: 'open', peer }));
    ws.once('error', (e) => resolve({ kind: 'failed', message: e.message }));
  });
}

export interface Received {
  /** Position in arrival order, for waiting on what came after a point. */
  index: number;
  message?: ServerToClient;
  /** Why the message did not decode (the backend broke the schema or framing rules). */
  invalid?: DecodeError;
  binary: boolean;
}

export class BackendPeer {
  readonly received: Received[] = [];
  readonly closed: Promise<{ code: number; reason: string }>;
  private waiters: (() => void)[] = [];

  constructor(
    readonly ws: WebSocket,
    maxKeptBytes?: number,
  ) {
    this.closed = new Promise((resolve) => ws.once('close', (code, reason) => resolve({ code, reason: reason.toString() })));
    const intake = new Intake(ws, maxKeptBytes);
    ws.on('message', (data, isBinary) => {
      const index = this.received.length;
      const admitted = intake.admit((data as Buffer).length);
      if (!admitted.ok) {
        if (admitted.violation) this.received.push({ index, invalid: admitted.violation, binary: isBinary });
        this.wake();
        return;
      }
      const decoded = decodeFromServer(data as Buffer, isBinary);
      this.received.push(decoded.ok ? { index, message: decoded.message, binary: isBinary } : { index, invalid: decoded.error, binary: isBinary });
      this.wake();
    });
    ws.on('close', () => this.wake());
    // A backend may close or fail the socket at any time; the checks read that from `closed`.
    ws.on('error', () => undefined);
  }

  get protocol(): string {
    return this.ws.protocol;
  }

  get open(): boolean {
    return this.ws.readyState === WebSocket.OPEN;
  }

  /** Where the next message will land: pass it to `waitFor` to ignore what came before. */
  mark(): number {
    return this.received.length;
  }

  /**
   * The first decoded message from `since` on that `match` accepts; rejects with `what` when none
   * came within `timeoutMs` or the connection closed first.
   */
  async waitFor<T extends ServerToClient>(match: (m: ServerToClient) => m is T, what: string, timeoutMs: number, since?: number): Promise<T>;
  async waitFor(match: (m: ServerToClient) => boolean, what: string, timeoutMs: number, since?: number): Promise<ServerToClient>;
  async waitFor(match: (m: ServerToClient) => boolean, what: string, timeoutMs: number, since = 0): Promise<ServerToClient> {
    const deadline = Date.now() + timeoutMs;
    let from = since;
    for (;;) {
      for (; from < this.received.length; from++) {
        const m = this.received[from].message;
        if (m && match(m)) return m;
      }
      if (!this.open) throw new Error(`${what}: the connection closed first (${this.describeLast()})`);
      const left = deadline - Date.now();
      if (left <= 0) throw new Error(`${what}: nothing within ${timeoutMs} ms (${this.describeLast()})`);
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, left);
        this.waiters.push(() => {
          clearTimeout(timer);
          resolve();
        });
      });
    }
  }

  /** The decoded messages from `since` on. */
  messages(since = 0): ServerToClient[] {
    return this.received.slice(since).flatMap((r) => (r.message ? [r.message] : []));
  }

  /** Sends a message as the codec frames it: a binary frame when it has binary content. */
  send(message: AnyMessage): void {
    const frame = encode(message);
    this.ws.send(frame.data, { binary: frame.binary });
  }

  /** Sends a message with binary content inline as base64, in a text frame. */
  sendInline(message: AnyMessage): void {
    this.ws.send(encodeInline(message), { binary: false });
  }

  /** Sends bytes or text exactly as given (for malformed input). */
  sendRaw(data: string | Buffer, binary: boolean): void {
    this.ws.send(data, { binary });
  }

  /** Resolves true when the backend answers a ping within `timeoutMs`: the connection is still served. */
  alive(timeoutMs: number): Promise<boolean> {
    if (!this.open) return Promise.resolve(false);
    return new Promise((resolve) => {
      const timer = setTimeout(() => resolve(false), timeoutMs);
      this.ws.once('pong', () => {
        clearTimeout(timer);
        resolve(true);
      });
      this.ws.ping();
    });
  }

  close(): Promise<void> {
    if (this.ws.readyState === WebSocket.CLOSED) return Promise.resolve();
    this.ws.close(1000);
    const timer = setTimeout(() => this.ws.terminate(), 1_000);
    return this.closed.then(() => clearTimeout(timer));
  }

  private wake(): void {
    const waiters = this.waiters.splice(0);
    for (const w of waiters) w();
  }

  private describeLast(): string {
    const last = this.received.at(-1);
    if (!last) return 'no message received';
    return last.message ? `last message: ${describeMessage(last.message)}` : `last message did not decode: ${last.invalid?.code}`;
  }
}

/** A message in one short line for the report. */
export function describeMessage(m: ServerToClient): string {
  if (m.type === 'error') return `error ${m.code}${m.relatedId ? ` (relatedId ${m.relatedId})` : ''}: ${m.message.slice(0, 160)}`;
  if (m.type === 'welcome') return `welcome (protocol ${m.protocol}, resumed ${m.resumed})`;
  if (m.type === 'runFinished') return `runFinished (${m.reason})`;
  if (m.type === 'clientToolInvokeRequest') return `clientToolInvokeRequest ${m.toolName}`;
  if (m.type === 'toolCallEnded') return `toolCallEnded (${m.outcome})`;
  return m.type;
}
