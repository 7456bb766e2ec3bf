/**
 * The backend's WebSocket endpoint.
 *
 * Before the upgrade, a request must (in this order) carry no `Origin` header and a loopback `Host`
 * (else 403: browsers and DNS rebinding), the right token in TOKEN_HEADER, compared in constant time
 * (else 401), and find a free connection slot (else 503). After the upgrade the first message must be
 * `hello` (anything else gets NOT_READY) within the handshake timeout; `welcome` names the session.
 * Every message is decoded by the protocol codec; a bad one gets a coded `error` and the connection's
 * other calls go on. Pings every `heartbeatMs`; a peer that misses two pongs is terminated.
 */
import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';
import * as http from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Duplex } from 'node:stream';
import { WebSocket, WebSocketServer } from 'ws';
import type { ServerToClient } from '../protocol';
import { decodeFromClient, ErrorCode, PROTOCOL, SUBPROTOCOL, TOKEN_HEADER } from '../protocol';
import { writeDiscoveryFile } from './discovery';
import { coalesceWrites } from '../net/coalesce';
import { receivedData, receiveFragments } from '../net/send';
import type { BackendDeps } from './session';
import { sendFrame, Session } from './session';

/** Close codes this server uses besides the standard ones. */
export const CloseCode = {
  ProtocolMismatch: 1002,
  PolicyViolation: 1008,
  GoingAway: 1001,
  HandshakeTimeout: 4008,
  InternalError: 1011,
} as const;

const LOOPBACK_HOST = /^(127\.0\.0\.1|localhost|\[::1\])(:\d{1,5})?$/i;
/** Sessions kept in all (attached or waiting to be resumed), per allowed connection. */
const SESSIONS_PER_CONNECTION = 4;

export class BackendServer {
  private readonly sockets = new Set<WebSocket>();
  private readonly sessions = new Map<string, Session>();
  private readonly tokenDigest: Buffer;
  private removeDiscovery: (() => void) | undefined;
  private removeProcessHooks: (() => void) | undefined;
  private closing: Promise<void> | undefined;

  private constructor(
    private readonly deps: BackendDeps,
    private readonly http: http.Server,
    private readonly wss: WebSocketServer,
    readonly token: string,
    readonly port: number,
    readonly host: string,
  ) {
    this.tokenDigest = digest(token);
  }

  static async start(deps: BackendDeps): Promise<BackendServer> {
    const { options } = deps;
    const token = options.token ?? randomBytes(32).toString('base64url');
    if (token.length < 16) throw new RangeError('The token must be at least 16 characters long.');
    const wss = new WebSocketServer({
      noServer: true,
      maxPayload: options.maxMessageBytes,
      perMessageDeflate: false,
      clientTracking: false,
      handleProtocols: (offered) => (offered.has(SUBPROTOCOL) ? SUBPROTOCOL : false),
    });
    const server = http.createServer((_req, res) => {
      res.writeHead(426, { 'Content-Type': 'text/plain; charset=utf-8', Connection: 'close' });
      res.end('This endpoint speaks WebSocket only.\n');
    });
    server.headersTimeout = 10_000;
    server.requestTimeout = 10_000;
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(options.port, options.host, () => {
        server.off('error', reject);
        resolve();
      });
    });
    const port = (server.address() as AddressInfo).port;
    const backend = new BackendServer(deps, server, wss, token, port, options.host);
    server.on('upgrade', (req: http.IncomingMessage, socket: Duplex, head: Buffer) => backend.onUpgrade(req, socket, head));
    if (options.discoveryFile) {
      try {
        backend.removeDiscovery = writeDiscoveryFile(options.discoveryFile, port, token);
      } catch (e) {
        await backend.close();
        throw e;
      }
      backend.removeProcessHooks = installExitCleanup(backend.removeDiscovery);
    }
    options.log('info', `listening on ${options.host}:${port} (protocol ${PROTOCOL}, model ${deps.model.name}${deps.model.offline ? ', offline demo' : ''})`);
    return backend;
  }

  /** The session with this id, or for 'any' the newest one whose client is connected. */
  findSession(id: string): Session | undefined {
    if (id !== 'any') return this.sessions.get(id);
    let found: Session | undefined;
    for (const s of this.sessions.values()) if (s.connected) found = s;
    return found;
  }

  close(): Promise<void> {
    this.closing ??= this.shutdown();
    return this.closing;
  }

  private async shutdown(): Promise<void> {
    const closed = [...this.sockets].map(
      (ws) =>
        new Promise<void>((resolve) => {
          if (ws.readyState === WebSocket.CLOSED) return resolve();
          ws.once('close', () => resolve());
          ws.close(CloseCode.GoingAway, 'backend shutting down');
          setTimeout(() => ws.terminate(), 500).unref();
        }),
    );
    for (const s of [...this.sessions.values()]) s.end('the backend is shutting down');
    await Promise.all(closed);
    this.wss.close();
    await new Promise<void>((resolve) => {
      this.http.close(() => resolve());
      this.http.closeAllConnections();
    });
    this.removeDiscovery?.();
    this.removeProcessHooks?.();
  }

  private onUpgrade(req: http.IncomingMessage, socket: Duplex, head: Buffer): void {
    socket.on('error', () => socket.destroy());
    const { log } = this.deps.options;
    const refusal = this.closing ? { status: 503, text: 'The backend is shutting down.' } : this.check(req);
    if (refusal) {
      log('warn', `refused a connection from ${req.socket.remoteAddress ?? '?'}: HTTP ${refusal.status} (${refusal.text})`);
      refuse(socket, refusal.status, refusal.text);
      return;
    }
    this.wss.handleUpgrade(req, socket, head, (ws) => {
      coalesceWrites(ws, socket);
      this.onConnection(ws);
    });
  }

  /** The checks before the upgrade; undefined means the request may connect. */
  private check(req: http.IncomingMessage): { status: number; text: string } | undefined {
    if (req.headers.origin !== undefined) return { status: 403, text: 'Requests with an Origin header are refused: browsers may not connect.' };
    const host = req.headers.host;
    if (!host || !LOOPBACK_HOST.test(host)) return { status: 403, text: 'Only a loopback Host (127.0.0.1, localhost, [::1]) is accepted.' };
    const token = req.headers[TOKEN_HEADER];
    if (typeof token !== 'string' || token.length === 0) return { status: 401, text: `Missing ${TOKEN_HEADER} header.` };
    if (!timingSafeEqual(digest(token), this.tokenDigest)) return { status: 401, text: `Wrong ${TOKEN_HEADER}.` };
    if (this.sockets.size >= this.deps.options.maxConnections) return { status: 503, text: 'Too many connections.' };
    return undefined;
  }

  private onConnection(ws: WebSocket): void {
    const { options } = this.deps;
    this.sockets.add(ws);
    receiveFragments(ws);
    let session: Session | undefined;
    let alive = true;
    let missed = 0;

    const handshakeTimer = setTimeout(() => {
      if (session) return;
      sendFrame(ws, { type: 'error', code: ErrorCode.HandshakeTimeout, message: `No hello within ${options.handshakeTimeoutMs} ms.` });
      ws.close(CloseCode.HandshakeTimeout, 'handshake timeout');
    }, options.handshakeTimeoutMs);
    handshakeTimer.unref();

    const heartbeat = setInterval(() => {
      if (!alive && ++missed >= 2) {
        options.log('warn', `terminating ${session ? session.logLabel : 'a connection'}: it missed two heartbeats`);
        ws.terminate();
        return;
      }
      alive = false;
      ws.ping();
    }, options.heartbeatMs);
    heartbeat.unref();

    ws.on('pong', () => {
      alive = true;
      missed = 0;
    });
    ws.on('error', (e) => options.log('warn', `connection error: ${e.message}`));
    ws.on('close', () => {
      clearTimeout(handshakeTimer);
      clearInterval(heartbeat);
      this.sockets.delete(ws);
      if (session) {
        session.detach(ws);
        this.deps.events.emit('disconnect', { sessionId: session.id });
      }
    });
    ws.on('message', (data, isBinary) => {
      const decoded = decodeFromClient(receivedData(data), isBinary, { maxMessageBytes: options.maxMessageBytes });
      try {
        if (!decoded.ok) {
          if (session) {
            session.decodeFailed(decoded.error);
          } else {
            const { code, message, relatedId } = decoded.error;
            sendFrame(ws, { type: 'error', code, message, ...(relatedId ? { relatedId } : {}) });
            if (code === ErrorCode.ProtocolMismatch) ws.close(CloseCode.ProtocolMismatch, 'protocol mismatch');
          }
          return;
        }
        if (session) {
          session.handle(decoded.message);
          return;
        }
        if (decoded.message.type !== 'hello') {
          sendFrame(ws, { type: 'error', code: ErrorCode.NotReady, message: `The first message must be hello, not ${decoded.message.type}.` });
          return;
        }
        clearTimeout(handshakeTimer);
        session = this.handshake(ws, decoded.message);
      } catch (e) {
        options.log('error', `handling a message failed: ${e instanceof Error ? (e.stack ?? e.message) : String(e)}`);
        const reply: ServerToClient = { type: 'error', code: ErrorCode.Internal, message: `The backend failed to handle the message: ${e instanceof Error ? e.message : String(e)}` };
        if (ws.readyState === WebSocket.OPEN) sendFrame(ws, reply);
        // A hello that failed left no session behind: the client starts over on a new connection.
        if (!session && decoded.ok && decoded.message.type === 'hello') ws.close(CloseCode.InternalError, 'handshake failed');
      }
    });
  }

  /**
   * A session id is no proof of ownership: only a hello with the session's resume secret resumes it.
   * Anyone else gets a fresh session and the owner's session is left alone. All or nothing: a new
   * session is registered only once its attach succeeded; a resumed one that failed half-way is
   * detached again, so it keeps its grace period instead of hanging on a connection that does not
   * know it.
   */
  private handshake(ws: WebSocket, hello: Parameters<Session['attach']>[1]): Session {
    const existing = hello.resumeSession ? this.sessions.get(hello.resumeSession) : undefined;
    if (existing?.owns(hello.resumeSecret)) {
      try {
        existing.attach(ws, hello, 'resumed');
      } catch (e) {
        existing.detach(ws);
        throw e;
      }
      this.deps.events.emit('session', { sessionId: existing.id, resumed: true });
      return existing;
    }
    const session = new Session({ ...this.deps, onEnded: (s) => this.sessions.delete(s.id) });
    try {
      session.attach(ws, hello, hello.resumeSession ? 'unknownSession' : 'new');
    } catch (e) {
      session.discard();
      throw e;
    }
    this.evictIfFull();
    this.sessions.set(session.id, session);
    this.deps.events.emit('session', { sessionId: session.id, resumed: false });
    return session;
  }

  /** Keeps the number of sessions bounded: the oldest one waiting to be resumed goes first. */
  private evictIfFull(): void {
    const max = this.deps.options.maxConnections * SESSIONS_PER_CONNECTION;
    if (this.sessions.size < max) return;
    for (const s of this.sessions.values()) {
      if (!s.attached) {
        s.end('too many sessions');
        return;
      }
    }
  }
}

function digest(value: string): Buffer {
  return createHash('sha256').update(value, 'utf8').digest();
}

function refuse(socket: Duplex, status: number, text: string): void {
  const body = `${text}\n`;
  socket.end(
    `HTTP/1.1 ${status} ${http.STATUS_CODES[status] ?? ''}\r\nConnection: close\r\nContent-Type: text/plain; charset=utf-8\r\nContent-Length: ${Buffer.byteLength(body)}\r\n\r\n${body}`,
  );
}


/**
 * Removes the discovery file when the process exits or is told to stop. On a signal with no other
 * listener, the signal is raised again after cleanup so the process still stops.
 */
function installExitCleanup(cleanup: () => void): () => void {
  const onSignal = (signal: NodeJS.Signals) => {
    cleanup();
    if (process.listenerCount(signal) === 0) process.kill(process.pid, signal);
  };
  process.once('exit', cleanup);
  process.once('SIGINT', onSignal);
  process.once('SIGTERM', onSignal);
  return () => {
    process.off('exit', cleanup);
    process.off('SIGINT', onSignal);
    process.off('SIGTERM', onSignal);
  };
}
