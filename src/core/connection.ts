/**
 * The WebSocket connection to the agent backend: handshake, heartbeat, reconnect, resume.
 *
 * - `ws://` only to loopback, else `wss://`; no redirects, no per-message deflate, incoming messages
 *   capped at `maxMessageBytes`; the token in the `TOKEN_HEADER` header, never the URL.
 * - `hello` (built by the caller, with the current tool groups), then `welcome` within the timeout.
 * - A peer silent for 1.5 heartbeat intervals is terminated; reconnects back off with jitter and
 *   resume the session with its secret, through `fallbackUrls` in turn; after `maxAttempts` failures,
 *   or at once for 401, 403, a redirect or a protocol mismatch, the state is `stopped` until `retry()`.
 * - Past `maxBufferedBytes` unsent the connection is dropped as dead (answers are kept for the
 *   resume); below it `bufferedAmount` lets the dispatcher refuse new calls first.
 * - Frames to a loopback peer carry a zero mask (`unmaskedFramesSafe`); any other peer gets random ones.
 */
import { randomFillSync } from 'node:crypto';
import WebSocket from 'ws';
import {
  CodedError,
  DEFAULT_LIMITS,
  decodeFromServer,
  encodeParts,
  ErrorCode,
  PROTOCOL,
  SUBPROTOCOL,
  TOKEN_HEADER,
  type ClientToServer,
  type DecodeError,
  type Hello,
  type ServerToClient,
  type Welcome,
} from '../protocol';
import { coalesceWrites } from '../net/coalesce';
import { receivedData, receiveFragments, sendEncoded } from '../net/send';
import { receiveSliced } from '../net/slicedReceive';
import { Emitter, type Disposable, type Event } from '../base/events';
import { silentLogger, type Logger } from '../base/logger';
import { systemTimers, type Timers } from './timers';

export type ConnectionState =
  | { kind: 'idle' }
  | { kind: 'connecting'; target: string }
  | { kind: 'connected'; target: string; sessionId: string; resumed: boolean; welcome: Welcome }
  | { kind: 'reconnecting'; target: string; attempt: number; delayMs: number; reason: string }
  | { kind: 'stopped'; target: string; code: ErrorCode; reason: string };

export interface ReconnectOptions {
  /** Upper bound of the first retry's delay. Default 800 ms (so the first retry comes within 1 s). */
  initialDelayMs?: number;
  /** Longest delay between attempts. Default 30 s. */
  maxDelayMs?: number;
  /** Failed attempts in a row before stopping. Default 10. */
  maxAttempts?: number;
}

export interface ConnectionOptions {
  url: string;
  /** Other replicas of the same backend, tried in turn after `url` whenever a connection is lost or an attempt fails. */
  fallbackUrls?: readonly string[];
  token: string;
  /** Builds `hello` for each attempt; the connection adds `resumeSession` and `resumeSecret` itself. */
  buildHello: () => Hello;
  maxMessageBytes?: number;
  /** Largest JSON text of one message (codec.ts `DecodeOptions.maxJsonBytes`); default `maxMessageBytes`. */
  maxJsonBytes?: number;
  /** Bytes waiting to be sent past which the backend counts as not reading and the socket is dropped. Default 64 MiB. */
  maxBufferedBytes?: number;
  /** Upgrade plus hello/welcome must finish within this. Default 10 s. */
  handshakeTimeoutMs?: number;
  /** Default DEFAULT_LIMITS.heartbeatMs. */
  heartbeatMs?: number;
  reconnect?: ReconnectOptions;
  /** For tests: the jitter's random source, in [0, 1). */
  random?: () => number;
  timers?: Timers;
  logger?: Logger;
}

/** Default of `maxBufferedBytes`: room for a few of the largest results. */
export const DEFAULT_MAX_BUFFERED_BYTES = 64 * 1024 * 1024;

/** Failures that retrying cannot fix. */
interface Fatal {
  code: ErrorCode;
  reason: string;
}

export class Connection implements Disposable {
  private readonly urls: readonly URL[];
  private urlIndex = 0;
  private url: URL;
  private target: string;
  private readonly timers: Timers;
  private readonly logger: Logger;
  private readonly random: () => number;
  private readonly handshakeTimeoutMs: number;
  private readonly heartbeatMs: number;
  private readonly maxMessageBytes: number;
  private readonly maxBufferedBytes: number;
  private readonly initialDelayMs: number;
  private readonly maxDelayMs: number;
  private readonly maxAttempts: number;

  private ws: WebSocket | undefined;
  private welcomed = false;
  private currentState: ConnectionState = { kind: 'idle' };
  private session: string | undefined;
  /**
   * The session's resume secret: a bearer credential, so it lives in this field only. It is not in
   * the state or the welcome this class hands on, and never logged.
   */
  private resumeSecret: string | undefined;
  /** Consecutive failed attempts; reset by a welcome. */
  private failures = 0;
  private lastFailure = '';
  private fatal: Fatal | undefined;
  private retryTimer: unknown;
  private handshakeTimer: unknown;
  private heartbeatTimer: unknown;
  private lastHeard = 0;
  private disposed = false;

  private readonly stateEmitter = new Emitter<ConnectionState>();
  private readonly welcomeEmitter = new Emitter<Welcome>();
  private readonly messageEmitter = new Emitter<ServerToClient>();
  private readonly decodeErrorEmitter = new Emitter<DecodeError>();
  readonly onDidChangeState: Event<ConnectionState> = this.stateEmitter.event;
  /** A `welcome` arrived: the session is (re)established. Fires after the state becomes `connected`. */
  readonly onWelcome: Event<Welcome> = this.welcomeEmitter.event;
  /** Every decoded message from the backend except `welcome`. */
  readonly onMessage: Event<ServerToClient> = this.messageEmitter.event;
  /** A message that failed to decode; the connection stays up. */
  readonly onDecodeError: Event<DecodeError> = this.decodeErrorEmitter.event;

  /** Throws CodedError (FORBIDDEN, UNAUTHORIZED) for a URL or token that must not be used. */
  constructor(private readonly options: ConnectionOptions) {
    this.urls = [options.url, ...(options.fallbackUrls ?? [])].map(validateBackendUrl);
    this.url = this.urls[0];
    if (options.token === '') throw new CodedError(ErrorCode.Unauthorized, 'no backend token is set');
    if (/[\r\n]/.test(options.token)) throw new CodedError(ErrorCode.Unauthorized, 'the backend token contains a line break');
    this.target = displayTarget(this.url);
    this.timers = options.timers ?? systemTimers;
    this.logger = options.logger ?? silentLogger;
    this.random = options.random ?? Math.random;
    this.handshakeTimeoutMs = options.handshakeTimeoutMs ?? 10_000;
    this.heartbeatMs = options.heartbeatMs ?? DEFAULT_LIMITS.heartbeatMs;
    this.maxMessageBytes = options.maxMessageBytes ?? DEFAULT_LIMITS.maxMessageBytes;
    this.maxBufferedBytes = options.maxBufferedBytes ?? DEFAULT_MAX_BUFFERED_BYTES;
    this.initialDelayMs = options.reconnect?.initialDelayMs ?? 800;
    this.maxDelayMs = options.reconnect?.maxDelayMs ?? 30_000;
    this.maxAttempts = options.reconnect?.maxAttempts ?? 10;
  }

  get state(): ConnectionState {
    return this.currentState;
  }

  /** Bytes handed to the socket and not sent yet: grows when the backend reads slowly or not at all. */
  get bufferedAmount(): number {
    return this.ws?.bufferedAmount ?? 0;
  }

  /** The session id from the last `welcome`; sent as `resumeSession` on reconnect. */
  get sessionId(): string | undefined {
    return this.session;
  }

  /** Connects if idle or stopped; does nothing while connecting, connected or reconnecting. */
  start(): void {
    if (this.disposed) return;
    if (this.currentState.kind !== 'idle' && this.currentState.kind !== 'stopped') return;
    this.failures = 0;
    this.fatal = undefined;
    this.open();
  }

  /** Drops any attempt or connection and connects again now, keeping the session to resume. */
  retry(): void {
    if (this.disposed) return;
    this.teardown(1000, 'retrying');
    this.failures = 0;
    this.fatal = undefined;
    this.open();
  }

  /** Closes the connection on purpose; the state becomes `idle` and the session is forgotten. */
  close(): void {
    this.teardown(1000, 'client closed');
    this.session = undefined;
    this.resumeSecret = undefined;
    this.setState({ kind: 'idle' });
  }

  /**
   * Sends a message. Returns false, without calling `onSent`, when there is no open session to send
   * on (only `hello` may go before `welcome`). Otherwise `onSent` is called once the data is written,
   * with an error if the socket failed first.
   */
  send(message: ClientToServer, onSent?: (error?: Error) => void): boolean {
    const ws = this.ws;
    if (!ws || ws.readyState !== WebSocket.OPEN) return false;
    if (!this.welcomed && message.type !== 'hello') return false;
    sendEncoded(ws, encodeParts(message), onSent);
    // The message is queued either way; if the peer stopped reading, dropping the socket fails its
    // callback (and those of everything queued with it), so the caller keeps it for the resume.
    if (ws.bufferedAmount > this.maxBufferedBytes) {
      this.fail(ws, `the backend is not reading: ${ws.bufferedAmount} bytes wait to be sent (limit ${this.maxBufferedBytes})`);
    }
    return true;
  }

  dispose(): void {
    if (this.disposed) return;
    this.close();
    this.disposed = true;
    this.stateEmitter.dispose();
    this.welcomeEmitter.dispose();
    this.messageEmitter.dispose();
    this.decodeErrorEmitter.dispose();
  }

  // ── one attempt ────────────────────────────────────────────────────

  private open(): void {
    this.clearTimer('retryTimer');
    if (this.failures === 0) this.setState({ kind: 'connecting', target: this.target });
    this.welcomed = false;
    let direct = false; // both the URL and the socket's peer are loopback (set at the upgrade)
    const ws = new WebSocket(this.url, SUBPROTOCOL, {
      headers: { [TOKEN_HEADER]: this.options.token },
      followRedirects: false,
      perMessageDeflate: false,
      maxPayload: this.maxMessageBytes,
      handshakeTimeout: this.handshakeTimeoutMs,
      generateMask: (mask) => (direct ? mask.fill(0) : randomFillSync(mask)),
    });
    this.ws = ws;
    receiveFragments(ws);
    this.handshakeTimer = this.timers.setTimeout(() => {
      if (this.ws !== ws) return;
      this.fail(ws, `no welcome within ${this.handshakeTimeoutMs} ms (${ErrorCode.HandshakeTimeout})`);
    }, this.handshakeTimeoutMs);

    ws.on('upgrade', (res) => {
      // A backend that does not select our subprotocol does not speak this protocol (or is not a
      // Client Tools backend at all): retrying cannot help, so say so once instead of backing off.
      // ws then refuses the upgrade itself ("Server sent no subprotocol").
      const selected = res.headers['sec-websocket-protocol'];
      if (selected !== SUBPROTOCOL) {
        this.fatal = { code: ErrorCode.ProtocolMismatch, reason: `the backend did not select the WebSocket subprotocol ${SUBPROTOCOL} (it sent ${selected === undefined ? 'none' : JSON.stringify(selected)})` };
      }
      direct = unmaskedFramesSafe(this.url.hostname, res.socket.remoteAddress);
      coalesceWrites(ws, res.socket);
    });
    ws.on('unexpected-response', (_req, res) => {
      const status = res.statusCode ?? 0;
      res.resume();
      if (this.ws !== ws) {
        ws.terminate();
        return;
      }
      if (status === 401) this.fatal = { code: ErrorCode.Unauthorized, reason: 'the backend refused the token (HTTP 401)' };
      else if (status === 403) this.fatal = { code: ErrorCode.Forbidden, reason: 'the backend refused the connection (HTTP 403)' };
      else if (status >= 300 && status < 400) this.fatal = { code: ErrorCode.Forbidden, reason: `the backend answered with a redirect (HTTP ${status}); redirects are not followed` };
      this.lastFailure = `HTTP ${status} instead of a WebSocket upgrade`;
      ws.terminate();
    });
    ws.on('open', () => {
      if (this.ws !== ws) return;
      this.lastHeard = this.timers.now();
      let hello: Hello;
      try {
        hello = this.options.buildHello();
      } catch (e) {
        this.fatal = { code: ErrorCode.Internal, reason: `could not build hello: ${(e as Error).message}` };
        ws.terminate();
        return;
      }
      if (this.session !== undefined) {
        hello = { ...hello, resumeSession: this.session, ...(this.resumeSecret !== undefined ? { resumeSecret: this.resumeSecret } : {}) };
      }
      this.send(hello);
    });
    // A burst is handled a slice per event-loop turn: the extension host is shared (src/net/slicedReceive.ts).
    receiveSliced(ws, (data, isBinary) => {
      if (this.ws !== ws) return;
      this.lastHeard = this.timers.now();
      this.onData(ws, receivedData(data), isBinary);
    }, (code, reason) => {
      if (this.ws !== ws) return;
      const text = reason.toString('utf8');
      this.onClosed(this.lastFailure || `connection closed (${code}${text ? `: ${text}` : ''})`);
    });
    ws.on('pong', () => {
      if (this.ws === ws) this.lastHeard = this.timers.now();
    });
    ws.on('error', (error) => {
      if (this.ws === ws && !this.lastFailure) this.lastFailure = error.message;
    });
  }

  private onData(ws: WebSocket, data: Buffer | Buffer[], isBinary: boolean): void {
    const decoded = decodeFromServer(data, isBinary, { maxMessageBytes: this.maxMessageBytes, maxJsonBytes: this.options.maxJsonBytes });
    if (!decoded.ok) {
      if (!this.welcomed && decoded.error.messageType === 'welcome') {
        this.fatal = { code: ErrorCode.ProtocolMismatch, reason: `the backend's welcome is not understood: ${decoded.error.message}` };
        ws.close(1002, 'bad welcome');
        return;
      }
      this.logger.warn('message from the backend refused', { code: decoded.error.code, type: decoded.error.messageType, requestId: decoded.error.relatedId });
      this.decodeErrorEmitter.fire(decoded.error);
      return;
    }
    const message = decoded.message;
    if (message.type === 'welcome') {
      this.onWelcomeMessage(message);
      return;
    }
    if (message.type === 'error' && !this.welcomed) {
      // The backend refused the hello: a wrong protocol or token will not get better by retrying.
      const fatalCodes: readonly string[] = [ErrorCode.ProtocolMismatch, ErrorCode.Unauthorized, ErrorCode.Forbidden];
      if (fatalCodes.includes(message.code)) this.fatal = { code: message.code as ErrorCode, reason: message.message };
      this.lastFailure = `${message.code}: ${message.message}`;
    }
    this.messageEmitter.fire(message);
  }

  private onWelcomeMessage(received: Welcome): void {
    if (this.welcomed) {
      this.logger.warn('a second welcome was ignored');
      return;
    }
    if (received.protocol !== PROTOCOL) return; // the schema already pins it; kept as a guard
    const { resumeSecret, ...welcome } = received;
    this.welcomed = true;
    this.clearTimer('handshakeTimer');
    const resumed = this.session !== undefined && welcome.resumed && welcome.sessionId === this.session;
    this.session = welcome.sessionId;
    // A backend without secrets (an older one) resumes by id alone: then there is nothing to keep.
    this.resumeSecret = resumeSecret;
    this.failures = 0;
    this.lastFailure = '';
    this.startHeartbeat();
    this.logger.info(resumed ? 'connected; session resumed' : 'connected; new session', { target: this.target });
    this.setState({ kind: 'connected', target: this.target, sessionId: welcome.sessionId, resumed, welcome });
    this.welcomeEmitter.fire(welcome);
  }

  private startHeartbeat(): void {
    const ws = this.ws;
    this.clearInterval();
    this.lastHeard = this.timers.now();
    let lastTick = this.lastHeard;
    this.heartbeatTimer = this.timers.setInterval(() => {
      if (!ws || this.ws !== ws) return;
      const now = this.timers.now();
      // If this process itself was stalled (a busy event loop, a laptop waking up), pongs may be
      // sitting unread in the socket: give the peer a fresh interval instead of blaming it.
      if (now - lastTick > this.heartbeatMs * 1.5) this.lastHeard = now;
      lastTick = now;
      const silentFor = now - this.lastHeard;
      if (silentFor > this.heartbeatMs * 1.5) {
        this.fail(ws, `no answer to heartbeats for ${silentFor} ms`);
        return;
      }
      try {
        ws.ping();
      } catch {
        // The socket is closing; its close event does the rest.
      }
    }, this.heartbeatMs);
  }

  private fail(ws: WebSocket, reason: string): void {
    if (this.ws !== ws) return;
    this.lastFailure = reason;
    this.logger.warn('connection failed', { reason, target: this.target });
    ws.terminate();
  }

  private onClosed(reason: string): void {
    const wasWelcomed = this.welcomed;
    this.ws = undefined;
    this.welcomed = false;
    this.lastFailure = '';
    this.clearTimer('handshakeTimer');
    this.clearInterval();
    if (this.fatal) {
      this.stop(this.fatal.code, this.fatal.reason);
      return;
    }
    this.failures++;
    this.nextUrl();
    if (this.failures > this.maxAttempts) {
      this.stop(ErrorCode.Disconnected, `gave up after ${this.maxAttempts} attempts in a row: ${reason}`);
      return;
    }
    const delayMs = backoffDelay(this.failures, this.initialDelayMs, this.maxDelayMs, this.random);
    this.logger.warn(wasWelcomed ? 'connection lost; reconnecting' : 'connection attempt failed; retrying', { reason, attempt: this.failures, delayMs });
    this.setState({ kind: 'reconnecting', target: this.target, attempt: this.failures, delayMs, reason });
    this.retryTimer = this.timers.setTimeout(() => {
      this.retryTimer = undefined;
      this.open();
    }, delayMs);
  }

  /** The replica that failed may be gone for good: the next attempt goes to the next URL of the list. */
  private nextUrl(): void {
    if (this.urls.length < 2) return;
    this.urlIndex = (this.urlIndex + 1) % this.urls.length;
    this.url = this.urls[this.urlIndex];
    this.target = displayTarget(this.url);
  }

  private stop(code: ErrorCode, reason: string): void {
    this.logger.error('connection stopped', { code, reason, target: this.target });
    this.setState({ kind: 'stopped', target: this.target, code, reason });
  }

  /** Ends the current socket and timers without reconnecting or changing the state. */
  private teardown(code: number, reason: string): void {
    this.clearTimer('retryTimer');
    this.clearTimer('handshakeTimer');
    this.clearInterval();
    const ws = this.ws;
    this.ws = undefined;
    this.welcomed = false;
    this.lastFailure = '';
    if (!ws) return;
    if (ws.readyState === WebSocket.OPEN) {
      ws.close(code, reason);
      // A dead peer never completes the closing handshake; do not wait for ws's 30 s timeout.
      const kill = this.timers.setTimeout(() => ws.terminate(), 1000);
      ws.once('close', () => this.timers.clearTimeout(kill));
    } else {
      ws.terminate();
    }
    ws.on('error', () => {}); // late errors of a socket we no longer care about
  }

  private setState(state: ConnectionState): void {
    this.currentState = state;
    this.stateEmitter.fire(state);
  }

  private clearTimer(name: 'retryTimer' | 'handshakeTimer'): void {
    if (this[name] !== undefined) this.timers.clearTimeout(this[name]);
    this[name] = undefined;
  }

  private clearInterval(): void {
    if (this.heartbeatTimer !== undefined) this.timers.clearInterval(this.heartbeatTimer);
    this.heartbeatTimer = undefined;
  }
}

/**
 * Parses and checks a backend URL. Throws CodedError FORBIDDEN for anything but `ws:`/`wss:`,
 * credentials in the URL, or `ws:` to a host that is not loopback.
 */
export function validateBackendUrl(raw: string): URL {
  let url: URL;
  try {
    url = new URL(raw.trim());
  } catch {
    throw new CodedError(ErrorCode.Forbidden, `the backend URL is not a valid URL: ${JSON.stringify(raw.slice(0, 200))}`);
  }
  if (url.protocol !== 'ws:' && url.protocol !== 'wss:') {
    throw new CodedError(ErrorCode.Forbidden, `the backend URL must start with ws:// or wss://, not ${url.protocol}//`);
  }
  if (url.username !== '' || url.password !== '') {
    throw new CodedError(ErrorCode.Forbidden, 'the backend URL must not carry a user name or password; set the token instead');
  }
  if (url.protocol === 'ws:' && !isLoopbackHost(url.hostname)) {
    throw new CodedError(ErrorCode.Forbidden, `wss:// is required for ${url.hostname}: plain ws:// is only allowed to this machine (127.0.0.1, ::1, localhost)`);
  }
  url.hash = '';
  return url;
}

/**
 * Whether frames may go out with a zero masking key (which ws then skips XOR-ing on both ends).
 * Masking exists for proxies between a client and its server (RFC 6455 §10.3), so the key is zero
 * only when the URL names this machine AND the socket's peer is this machine. The peer alone is not
 * enough: with VS Code's http.proxy, an extension's socket to a remote URL ends at a proxy on
 * localhost. A program on loopback that forwards the bytes on (an SSH tunnel) is the user's own and
 * cannot be told apart; the threat masking covers is a shared HTTP intermediary, not that.
 */
export function unmaskedFramesSafe(urlHostname: string, peerAddress: string | undefined): boolean {
  return isLoopbackHost(urlHostname) && peerAddress !== undefined && isLoopbackHost(peerAddress) && peerAddress.toLowerCase() !== 'localhost';
}

/** 127.0.0.0/8, ::1 (also as an IPv4-mapped address) and `localhost`. */
export function isLoopbackHost(hostname: string): boolean {
  const h = hostname.toLowerCase().replace(/^\[(.*)\]$/, '$1');
  if (h === 'localhost' || h === '::1') return true;
  if (/^127\.\d{1,3}\.\d{1,3}\.\d{1,3}$/.test(h)) return true;
  // WHATWG URL writes ::ffff:127.0.0.1 as ::ffff:7f00:1; a socket's remoteAddress keeps the dots.
  return /^::ffff:7f[0-9a-f]{2}:[0-9a-f]{1,4}$/.test(h) || /^::ffff:127\.\d{1,3}\.\d{1,3}\.\d{1,3}$/.test(h);
}

/**
 * Delay before attempt `n` (1-based): half of min(max, initial·2^(n-1)) plus up to the other half
 * at random ("equal jitter"), so clients that lost the same backend do not all return at once.
 */
export function backoffDelay(attempt: number, initialMs: number, maxMs: number, random: () => number): number {
  const ceiling = Math.min(maxMs, initialMs * 2 ** Math.min(attempt - 1, 30));
  return Math.round(ceiling / 2 + random() * (ceiling / 2));
}

function displayTarget(url: URL): string {
  return `${url.protocol}//${url.host}${url.pathname === '/' ? '' : url.pathname}`;
}

