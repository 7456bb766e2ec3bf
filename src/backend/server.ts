/**
 * The backend's WebSocket endpoint.
 *
 * A TCP connection must send its whole upgrade request within `headersTimeoutMs`, and at most
 * `maxPendingSockets` may wait at once (admission.ts). Before the upgrade, a request must (in this
 * order) carry no `Origin` header and a loopback `Host` (else 403: browsers and DNS rebinding), and
 * a credential that proves a user (else 401; auth/authenticator.ts): the shared token in TOKEN_HEADER,
 * compared in constant time (user `anonymous`), a named token, or a JWT. A session belongs to that
 * user: resuming it takes both its secret and the same user. At most `maxConnections`
 * upgraded connections may wait for their hello (past it the oldest is closed). After the upgrade the
 * first message must be `hello` (anything else gets NOT_READY) within the handshake timeout; `welcome`
 * names the session. A new session past `maxConnections` attached sessions, or past `maxSessions`
 * when no idle detached session can make room, gets SERVER_BUSY and close code 1013; a resume is
 * never refused for room, and a detached session that holds threads or calls is never evicted for a
 * new one.
 * Every message is decoded by the protocol codec; a bad one gets a coded `error` and the connection's
 * other calls go on. Pings every `heartbeatMs`; a peer that misses two pongs is terminated. Past
 * `maxBufferedBytes` of unsent output the connection is closed with SLOW_CONSUMER (close code 4009).
 */
import { randomBytes } from 'node:crypto';
import * as http from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import type { Duplex } from 'node:stream';
import { WebSocket, WebSocketServer } from 'ws';
import type { ClientToServer, ServerToClient } from '../protocol';
import { decodeFromClient, ErrorCode, PROTOCOL, SUBPROTOCOL } from '../protocol';
import { writeDiscoveryFile } from './discovery';
import { refuseBrowserOrForeignHost } from '../base/localRequest';
import { coalesceWrites } from '../net/coalesce';
import { capUnsentOutput, receivedData, receiveFragments } from '../net/send';
import { PendingSockets } from './admission';
import { Authenticator } from './auth/authenticator';
import type { AuthenticatedUser, AuthOutcome, AuthRefusal } from './auth/user';
import { startHeartbeat } from './heartbeat';
import type { DrainReport } from './ops/drain';
import { drainSessions } from './ops/drain';
import type { NotReady } from './ops/health';
import { answerHealth, probeAll } from './ops/health';
import type { ServerStats } from './ops/metrics';
import type { BackendDeps } from './session';
import { sendFrame, Session } from './session';
import { replicatedHandshake } from './failover/replicaHandshake';
import { replicatedState } from './failover/replicated';
import { startCredentialSweep } from './auth/credentialSweep';
import { pruneHelloGroups, type RegistrationProblem } from './registration';
import { refuseNewSession, roomForNewSession, type NoRoom } from './sessionRoom';

/** Close codes this server uses besides the standard ones. */
export const CloseCode = {
  ProtocolMismatch: 1002,
  PolicyViolation: 1008,
  GoingAway: 1001,
  HandshakeTimeout: 4008,
  InternalError: 1011,
  /** The peer stopped reading and its unsent output passed `maxBufferedBytes` (SLOW_CONSUMER). */
  SlowConsumer: 4009,
  /** Standard "Try Again Later": no room for a new session (SERVER_BUSY). */
  TryAgainLater: 1013,
  /** Standard "Service Restart": the backend drains; reconnect at once (another replica resumes the session). */
  ServiceRestart: 1012,
} as const;

/** Messages a client may send after its hello before the hello is registered (the next turn); more get NOT_READY. */
const HELD_MESSAGES = 64;
const SHUTTING_DOWN: AuthRefusal = { status: 503, text: 'The backend is shutting down.' };
const DRAINING: AuthRefusal = { status: 503, text: 'The backend is draining: connect to another replica.' };
/** How long a close frame may take before the socket (and its memory) is dropped. */
const CLOSE_GRACE_MS = 1_000;

export class BackendServer {
  private readonly sockets = new Set<WebSocket>();
  /** Upgraded connections that have not sent hello yet; they have their own cap. */
  private readonly handshaking = new Set<WebSocket>();
  private readonly sessions = new Map<string, Session>();
  private removeDiscovery: (() => void) | undefined;
  private removeProcessHooks: (() => void) | undefined;
  private closing: Promise<void> | undefined;
  private draining: Promise<DrainReport> | undefined;
  private stopSweep: (() => void) | undefined;

  private constructor(
    private readonly deps: BackendDeps,
    private readonly http: http.Server,
    private readonly wss: WebSocketServer,
    readonly token: string,
    readonly port: number,
    readonly host: string,
    private readonly authenticator: Authenticator,
  ) {}

  static async start(deps: BackendDeps): Promise<BackendServer> {
    const { options } = deps;
    const token = options.token ?? randomBytes(32).toString('base64url');
    if (token.length < 16) throw new RangeError('The token must be at least 16 characters long.');
    const authenticator = await Authenticator.create({ token, tokensFile: options.tokensFile, jwt: options.jwt, log: options.log });
    const wss = new WebSocketServer({
      noServer: true,
      maxPayload: options.maxMessageBytes,
      perMessageDeflate: false,
      clientTracking: false,
      handleProtocols: (offered) => (offered.has(SUBPROTOCOL) ? SUBPROTOCOL : false),
    });
    // The sweep interval bounds how late Node's own headersTimeout fires; each socket also has its
    // own timer (admission.ts), so the sweep only backs it up.
    const server = http.createServer({ connectionsCheckingInterval: 1_000 }, (req, res) => {
      // Requests come only after listen() resolved, when `backend` is set.
      if (answerHealth(req, res, backend)) return;
      res.writeHead(426, { 'Content-Type': 'text/plain; charset=utf-8', Connection: 'close' });
      res.end('This endpoint speaks WebSocket only.\n');
    });
    server.headersTimeout = options.headersTimeoutMs;
    server.requestTimeout = options.headersTimeoutMs;
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(options.port, options.host, () => {
        server.off('error', reject);
        resolve();
      });
    });
    const port = (server.address() as AddressInfo).port;
    const backend = new BackendServer(deps, server, wss, token, port, options.host, authenticator);
    backend.stopSweep = startCredentialSweep(() => backend.sessions.values(), authenticator, options.credentialCheckMs, options.log);
    const pending = new PendingSockets({ max: options.maxPendingSockets, deadlineMs: options.headersTimeoutMs }, options.log);
    server.on('connection', (socket: Socket) => pending.accepted(socket));
    server.on('upgrade', (req: http.IncomingMessage, socket: Duplex, head: Buffer) => {
      pending.settled(req.socket);
      backend.onUpgrade(req, socket, head);
    });
    if (options.discoveryFile) {
      try {
        backend.removeDiscovery = writeDiscoveryFile(options.discoveryFile, port, token);
      } catch (e) {
        await backend.close();
        throw e;
      }
      backend.removeProcessHooks = installExitCleanup(backend.removeDiscovery);
    }
    options.log.info(`listening on ${options.host}:${port} (protocol ${PROTOCOL}, model ${deps.model.name}${deps.model.offline ? ', offline demo' : ''})`);
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

  /**
   * Stops admitting (503 to new upgrades and to `/readyz`), then hands every attached session over
   * once it is idle, waiting for runs in progress up to `timeoutMs` (ops/drain.ts). Does not close:
   * the caller closes once it returns.
   */
  drain(timeoutMs: number): Promise<DrainReport> {
    this.draining ??= this.drainNow(timeoutMs);
    return this.draining;
  }

  private async drainNow(timeoutMs: number): Promise<DrainReport> {
    const { log } = this.deps.options;
    log.info(`draining: ${this.stats().attachedSessions} sessions attached; waiting up to ${timeoutMs} ms for runs in progress`);
    const report = await drainSessions(
      () =>
        [...this.sessions.values()].map((s) => ({
          attached: s.attached,
          busy: s.busy,
          handOver: () => s.closeForDrain(CloseCode.ServiceRestart, 'backend draining: reconnect'),
        })),
      timeoutMs,
    );
    log.info(`drained in ${report.elapsedMs} ms: ${report.handedOverIdle} sessions handed over idle, ${report.handedOverAtDeadline} at the deadline`, { timedOut: report.timedOut });
    return report;
  }

  /** For `/readyz`: undefined when new connections are welcome. */
  async notReady(): Promise<NotReady | undefined> {
    if (this.closing) return 'shutting down';
    if (this.draining) return 'draining';
    const { readinessProbes, log } = this.deps.options;
    return probeAll(readinessProbes, (reason) => log.warn(`not ready: a readiness probe failed: ${reason}`));
  }

  /** What the metrics read at each scrape. */
  stats(): ServerStats {
    const stats: ServerStats = { attachedSessions: 0, detachedSessions: 0, clientCallsInFlight: 0, runsInProgress: 0, threadsKept: 0, draining: this.draining !== undefined };
    for (const s of this.sessions.values()) {
      if (s.attached) stats.attachedSessions++;
      else stats.detachedSessions++;
      stats.clientCallsInFlight += s.invoker.pendingCount;
      stats.runsInProgress += s.agent.runCount;
      stats.threadsKept += s.agent.threadCount;
    }
    return stats;
  }

  private async shutdown(): Promise<void> {
    this.stopSweep?.();
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
    void this.admit(req, socket, head);
  }

  private async admit(req: http.IncomingMessage, socket: Duplex, head: Buffer): Promise<void> {
    const outcome = await this.admission(req);
    if (!outcome.ok) {
      const { refusal } = outcome;
      this.deps.options.log.warn(`refused a connection from ${req.socket.remoteAddress ?? '?'}: HTTP ${refusal.status} (${refusal.text})`);
      refuse(socket, refusal.status, refusal.text);
      return;
    }
    this.wss.handleUpgrade(req, socket, head, (ws) => {
      coalesceWrites(ws, socket);
      this.onConnection(ws, outcome.user);
    });
  }

  /** Origin and Host first (a browser's credential is never looked at), then who the caller is. */
  private async admission(req: http.IncomingMessage): Promise<AuthOutcome> {
    const early = this.closing ? SHUTTING_DOWN : this.draining ? DRAINING : this.check(req);
    if (early) return { ok: false, refusal: early };
    const outcome = await this.authenticator.authenticate(req).catch((e: unknown): AuthOutcome => {
      this.deps.options.log.error(`checking credentials failed: ${e instanceof Error ? e.message : String(e)}`);
      return { ok: false, refusal: { status: 503, text: 'The backend cannot check credentials right now; try again later.' } };
    });
    // A JWKS fetch may take seconds; a backend that began to shut down meanwhile admits nobody.
    return this.closing ? { ok: false, refusal: SHUTTING_DOWN } : outcome;
  }

  /** The checks before the upgrade; undefined means the request may connect. */
  private check(req: http.IncomingMessage): AuthRefusal | undefined {
    return refuseBrowserOrForeignHost(req.headers);
  }

  private onConnection(ws: WebSocket, user: AuthenticatedUser): void {
    const { options } = this.deps;
    this.makeRoomToHandshake();
    this.sockets.add(ws);
    this.handshaking.add(ws);
    receiveFragments(ws);
    let session: Session | undefined;
    /** The problems of hello groups dropped before validation (registration.ts pruneHelloGroups). */
    let pruned: RegistrationProblem[] = [];
    const beforeValidation = (type: string, message: Record<string, unknown>) => {
      if (type === 'hello') pruned = pruneHelloGroups(message);
    };
    /** With replicas the handshake waits for the shared state; nothing else may come meanwhile. */
    let handshakePending = false;
    /** Messages that came right after a hello whose registration waits for the next turn (at most HELD_MESSAGES). */
    let held: ClientToServer[] | undefined;
    let slowConsumer = false;
    capUnsentOutput(ws, options.maxBufferedBytes, (buffered) => {
      if (slowConsumer) return;
      slowConsumer = true;
      // No session id in the log: an id is a handle on someone's session.
      options.log.warn(`closing ${session ? "a session's connection" : 'a connection'}: ${ErrorCode.SlowConsumer}, it stopped reading with ${buffered} bytes unsent (limit ${options.maxBufferedBytes})`);
      ws.close(CloseCode.SlowConsumer, `${ErrorCode.SlowConsumer}: unsent output passed ${options.maxBufferedBytes} bytes`);
      // The close frame waits behind the unread output; drop the socket (and that memory) soon.
      setTimeout(() => ws.terminate(), CLOSE_GRACE_MS).unref();
    });

    const handshakeTimer = setTimeout(() => {
      if (session) return;
      sendFrame(ws, { type: 'error', code: ErrorCode.HandshakeTimeout, message: `No hello within ${options.handshakeTimeoutMs} ms.` });
      ws.close(CloseCode.HandshakeTimeout, 'handshake timeout');
    }, options.handshakeTimeoutMs);
    handshakeTimer.unref();

    const stopHeartbeat = startHeartbeat(ws, options.heartbeatMs, () => {
      options.log.warn(`terminating ${session ? session.logLabel : 'a connection'}: it missed two heartbeats`);
      ws.terminate();
    });

    ws.on('error', (e) => options.log.warn(`connection error: ${e.message}`));
    ws.on('close', () => {
      clearTimeout(handshakeTimer);
      stopHeartbeat();
      this.sockets.delete(ws);
      this.handshaking.delete(ws);
      if (session) {
        session.detach(ws);
        this.deps.events.emit('disconnect', { sessionId: session.id });
      }
    });
    ws.on('message', (data, isBinary) => {
      // Once this side closes a connection (SERVER_BUSY, SLOW_CONSUMER, shutdown), nothing it still
      // sends counts: a slow consumer's requests would otherwise keep filling its session's buffer.
      if (ws.readyState !== WebSocket.OPEN) return;
      const decoded = decodeFromClient(receivedData(data), isBinary, { maxMessageBytes: options.maxMessageBytes, ...(session ? {} : { beforeValidation }) });
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
        if (held && held.length < HELD_MESSAGES) {
          held.push(decoded.message);
          return;
        }
        if (handshakePending || held) {
          sendFrame(ws, { type: 'error', code: ErrorCode.NotReady, message: 'The handshake is still in progress: wait for welcome.' });
          return;
        }
        if (decoded.message.type !== 'hello') {
          sendFrame(ws, { type: 'error', code: ErrorCode.NotReady, message: `The first message must be hello, not ${decoded.message.type}.` });
          return;
        }
        clearTimeout(handshakeTimer);
        this.handshaking.delete(ws);
        if (replicatedState(this.deps)) {
          handshakePending = true;
          void this.replicatedHandshake(ws, decoded.message, user, pruned).then((s) => {
            handshakePending = false;
            session = s;
            // The socket may have closed while the shared state answered: the session waits for a resume.
            if (s && ws.readyState !== WebSocket.OPEN) s.detach(ws);
          });
          return;
        }
        // Registration runs in the next turn: a large hello's decoding and its registration never
        // hold the event loop in one stretch. What the client sends meanwhile waits for it.
        const hello = decoded.message;
        const helloPruned = pruned;
        held = [];
        setImmediate(() => {
          const waiting = held ?? [];
          held = undefined;
          if (ws.readyState !== WebSocket.OPEN) return;
          try {
            session = this.handshake(ws, hello, user, helloPruned);
          } catch (e) {
            this.handshakeFailed(ws, e);
            return;
          }
          for (const m of waiting) session?.handle(m);
        });
      } catch (e) {
        options.log.error(`handling a message failed: ${e instanceof Error ? (e.stack ?? e.message) : String(e)}`);
        const reply: ServerToClient = { type: 'error', code: ErrorCode.Internal, message: `The backend failed to handle the message: ${e instanceof Error ? e.message : String(e)}` };
        if (ws.readyState === WebSocket.OPEN) sendFrame(ws, reply);
        // A hello that failed left no session behind: the client starts over on a new connection.
        if (!session && decoded.ok && decoded.message.type === 'hello') ws.close(CloseCode.InternalError, 'handshake failed');
      }
    });
  }

  /** A hello whose handling threw: no session was left behind, the client starts over on a new connection. */
  private handshakeFailed(ws: WebSocket, e: unknown): void {
    this.deps.options.log.error(`handling a hello failed: ${e instanceof Error ? (e.stack ?? e.message) : String(e)}`);
    if (ws.readyState !== WebSocket.OPEN) return;
    sendFrame(ws, { type: 'error', code: ErrorCode.Internal, message: `The backend failed to handle the message: ${e instanceof Error ? e.message : String(e)}` });
    ws.close(CloseCode.InternalError, 'handshake failed');
  }

  /**
   * A session id is no proof of ownership: only a hello with the session's resume secret resumes it.
   * Anyone else gets a fresh session and the owner's session is left alone. All or nothing: a new
   * session is registered only once its attach succeeded; a resumed one that failed half-way is
   * detached again, so it keeps its grace period instead of hanging on a connection that does not
   * know it. A new session that finds no room is refused (SERVER_BUSY) before anything is built.
   * Another user's session is treated exactly like an unknown one, even with its secret (a stolen
   * secret is not the owner), so a hello cannot even learn that it exists.
   */
  private handshake(ws: WebSocket, hello: Parameters<Session['attach']>[1], user: AuthenticatedUser, pruned: readonly RegistrationProblem[] = []): Session | undefined {
    const existing = hello.resumeSession ? this.sessions.get(hello.resumeSession) : undefined;
    if (existing?.owns(hello.resumeSecret) && existing.owner === user.user) {
      try {
        existing.attach(ws, hello, 'resumed', pruned);
      } catch (e) {
        existing.detach(ws);
        throw e;
      }
      existing.credential = user;
      this.deps.events.emit('session', { sessionId: existing.id, resumed: true });
      return existing;
    }
    const noRoom = this.roomForNewSession(user.user);
    if (noRoom) {
      refuseNewSession(ws, noRoom, this.deps.options.log, sendFrame);
      return undefined;
    }
    const session = new Session({ ...this.deps, owner: user.user, onEnded: (s) => this.sessions.delete(s.id) });
    try {
      session.attach(ws, hello, hello.resumeSession ? 'unknownSession' : 'new', pruned);
    } catch (e) {
      session.discard();
      throw e;
    }
    session.credential = user;
    this.sessions.set(session.id, session);
    this.deps.events.emit('session', { sessionId: session.id, resumed: false });
    return session;
  }

  /**
   * The handshake of a replica (failover/replicaHandshake.ts): a session this replica holds resumes
   * as above; one it does not hold is looked up in the shared state and adopted; a new one is
   * recorded there before its welcome. Never rejects: failures are told to the client, coded.
   */
  private async replicatedHandshake(ws: WebSocket, hello: Parameters<Session['attach']>[1], user: AuthenticatedUser, pruned: readonly RegistrationProblem[]): Promise<Session | undefined> {
    const local = hello.resumeSession ? this.sessions.get(hello.resumeSession) : undefined;
    if (local?.owns(hello.resumeSecret) && local.owner === user.user) {
      const resumed = this.handshake(ws, hello, user, pruned);
      resumed?.publish().catch((e: unknown) => this.deps.options.log.warn(`${resumed.logLabel}: its shared record could not be refreshed: ${e instanceof Error ? e.message : String(e)}`));
      return resumed;
    }
    return replicatedHandshake(ws, hello, {
      deps: this.deps,
      user: user.user,
      roomForNewSession: () => this.roomForNewSession(user.user),
      register: (s, resumed) => {
        s.credential = user;
        this.sessions.set(s.id, s);
        this.deps.events.emit('session', { sessionId: s.id, resumed });
      },
      holds: (id) => this.sessions.has(id),
      onEnded: (s) => {
        if (this.sessions.get(s.id) === s) this.sessions.delete(s.id);
      },
    }, pruned);
  }

  /**
   * At most `maxConnections` connections may wait for their hello; past it the oldest one goes. A
   * real client says hello in its first milliseconds, so it is never the oldest; connections that
   * upgrade and stay silent cannot hold every slot (with a plain 503 at the cap, sixteen of them,
   * renewed every handshake timeout, kept the editor out for good). Attached sessions are capped at
   * hello, where a resume can be told apart from a new session.
   */
  private makeRoomToHandshake(): void {
    if (this.handshaking.size < this.deps.options.maxConnections) return;
    const oldest = this.handshaking.values().next().value;
    if (!oldest) return;
    this.handshaking.delete(oldest);
    sendFrame(oldest, { type: 'error', code: ErrorCode.ServerBusy, message: 'Too many connections are in their handshake; the oldest one (this) was closed to make room.' });
    oldest.close(CloseCode.TryAgainLater, ErrorCode.ServerBusy);
    setTimeout(() => oldest.terminate(), CLOSE_GRACE_MS).unref();
  }

  /** Room for a new session of `user` (sessionRoom.ts): global and per-user caps, idle detached sessions make room. */
  private roomForNewSession(user: string): NoRoom | undefined {
    return roomForNewSession(() => this.sessions.values(), user, this.deps.options);
  }
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
