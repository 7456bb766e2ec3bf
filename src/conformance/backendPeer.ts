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

/** How often a wait looks whether the peer started to close (a close frame read sets no event). */
const CLOSING_POLL_MS = 20;
/** How long a close the peer started may take before the kit drops the socket. */
const CLOSE_GRACE_MS = 500;

export interface Closed {
  code: number;
  reason: string;
}

export interface Received {
  /** Position in arrival order, for waiting on what came after a point. */
  index: number;
  message?: ServerToClient;
  /** Why the message did not decode (the backend broke the schema or framing rules). */
  invalid?: DecodeError;
  binary: boolean;
  /** Its size on the wire (attachments included). */
  bytes: number;
  /** Its JSON text's size: the whole text frame, or a binary frame's JSON part (as its header says). */
  jsonBytes: number;
}

export class BackendPeer {
  readonly received: Received[] = [];
  readonly closed: Promise<Closed>;
  private waiters: (() => void)[] = [];

  constructor(
    readonly ws: WebSocket,
    maxKeptBytes?: number,
  ) {
    this.closed = new Promise((resolve) => ws.once('close', (code, reason) => resolve({ code, reason: reason.toString() })));
    const intake = new Intake(ws, maxKeptBytes);
    ws.on('message', (data, isBinary) => {
      const index = this.received.length;
      const bytes = (data as Buffer).length;
      const jsonBytes = isBinary && bytes >= 4 ? (data as Buffer).readUInt32BE(0) : bytes;
      const admitted = intake.admit(bytes);
      if (!admitted.ok) {
        if (admitted.violation) this.received.push({ index, invalid: admitted.violation, binary: isBinary, bytes, jsonBytes });
        this.wake();
        return;
      }
      const decoded = decodeFromServer(data as Buffer, isBinary);
      this.received.push(decoded.ok ? { index, message: decoded.message, binary: isBinary, bytes, jsonBytes } : { index, invalid: decoded.error, binary: isBinary, bytes, jsonBytes });
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
    const outcome = await this.nextOf(match, timeoutMs, since);
    if ('message' in outcome) return outcome.message;
    if ('closed' in outcome) throw new Error(`${what}: the connection closed first (close code ${outcome.closed.code}; ${this.describeLast()})`);
    throw new Error(`${what}: nothing within ${timeoutMs} ms (${this.describeLast()})`);
  }

  /**
   * Whichever comes first from `since` on: a decoded message `match` accepts, the peer closing the
   * connection, or `timeoutMs` passing. A close counts from the moment the peer starts it (its close
   * frame read, or its end of the TCP stream), not from the TCP close, which may wait behind the
   * kit's own unsent output; see `closeCode`.
   */
  async nextOf(match: (m: ServerToClient) => boolean, timeoutMs: number, since = 0): Promise<{ message: ServerToClient } | { closed: Closed } | { timedOut: true }> {
    const deadline = Date.now() + timeoutMs;
    let from = since;
    for (;;) {
      for (; from < this.received.length; from++) {
        const m = this.received[from].message;
        if (m && match(m)) return { message: m };
      }
      if (!this.open) return { closed: await this.finishClose() };
      const left = deadline - Date.now();
      if (left <= 0) return { timedOut: true };
      await this.change(Math.min(left, CLOSING_POLL_MS));
    }
  }

  /** The peer's close code once it closes (or starts to) within `timeoutMs`; undefined while the connection stays open. */
  async closeCode(timeoutMs: number): Promise<Closed | undefined> {
    const outcome = await this.nextOf(() => false, timeoutMs);
    return 'closed' in outcome ? outcome.closed : undefined;
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

  /**
   * Completes a close the peer started. RFC 6455 lets a server close TCP first, and a backend may
   * half-close right after its close frame while the kit's own output (a large message it refused)
   * still waits to be written: `ws` would report the close only once that output is gone. So the kit
   * drops the socket at once when output of its own is waiting, else after `CLOSE_GRACE_MS`; the
   * code is the one of the peer's close frame either way (1006 when the peer sent none).
   */
  private async finishClose(): Promise<Closed> {
    const timer = setTimeout(() => this.ws.terminate(), this.ws.bufferedAmount > 0 ? 0 : CLOSE_GRACE_MS);
    const closed = await this.closed;
    clearTimeout(timer);
    return closed;
  }

  /** Resolves on the next message or close, or after `ms` (`ws` has no event for a close frame read, so waiting polls). */
  private change(ms: number): Promise<void> {
    return new Promise<void>((resolve) => {
      const waiter = () => {
        clearTimeout(timer);
        resolve();
      };
      const timer = setTimeout(() => {
        this.waiters = this.waiters.filter((w) => w !== waiter);
        resolve();
      }, ms);
      this.waiters.push(waiter);
    });
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
