/**
 * One upgraded WebSocket connection and its handshake. The first message must be `hello` within
 * the handshake timeout (anything else gets NOT_READY); a large one is parsed across turns of the
 * event loop (jsonPieces.ts), and registered in the turn after (or, with replicas, once the shared
 * state answered), and up to HELD_MESSAGES
 * messages sent meanwhile wait and are handled in order. From then on every message goes to the
 * session. Output the peer does not read past `maxBufferedBytes` closes the connection
 * (SLOW_CONSUMER); a peer that misses two pongs is terminated.
 */
import { WebSocket } from 'ws';
import type { ClientToServer, DecodeResult, Hello, ServerToClient } from '../../protocol';
import { decodeAcrossTurns, decodeFromClient, ErrorCode } from '../../protocol';
import { capUnsentOutput, receivedData, receiveFragments } from '../../net/send';
import type { AuthenticatedUser } from '../auth/user';
import { startHeartbeat } from './heartbeat';
import type { ResolvedOptions } from '../options';
import { pruneHelloGroups, type RegistrationProblem } from '../toolset/registration';
import type { Session } from '../session/session';
import { sendFrame } from '../session/session';

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
/** A first message larger than this (in bytes) is decoded across turns. */
const HELLO_ACROSS_TURNS_FROM = 256 * 1024;

function byteLength(data: Buffer | Buffer[]): number {
  return Array.isArray(data) ? data.reduce((n, b) => n + b.length, 0) : data.length;
}
/** How long a close frame may take before the socket (and its memory) is dropped. */
export const CLOSE_GRACE_MS = 1_000;

/** What a connection needs of its server. */
export interface ConnectionServer {
  readonly options: ResolvedOptions;
  /** Whether the handshake goes through the shared state of replicas. */
  readonly replicated: boolean;
  /** The hello arrived: the connection no longer counts against the handshake cap. */
  helloReceived(ws: WebSocket): void;
  /** Registers a hello: the session resumed or made, undefined when refused (the client was told). Throws when it failed. */
  handshake(ws: WebSocket, hello: Hello, user: AuthenticatedUser, pruned: readonly RegistrationProblem[]): Session | undefined;
  /** The same through the shared state; never rejects. */
  replicatedHandshake(ws: WebSocket, hello: Hello, user: AuthenticatedUser, pruned: readonly RegistrationProblem[]): Promise<Session | undefined>;
  /** A hello whose handling threw: the client was told, the connection closed. */
  handshakeFailed(ws: WebSocket, e: unknown): void;
  /** The socket closed (its session, if any, was detached). */
  closed(ws: WebSocket, session: Session | undefined): void;
}

/**
 * Where the handshake stands: waiting for hello; the hello waits for the next turn (messages sent
 * meanwhile held); the hello waits for the shared state (nothing else may come); attached.
 */
type HandshakeState =
  | { kind: 'awaitingHello' }
  | { kind: 'registering'; held: ClientToServer[] }
  | { kind: 'replicating' }
  | { kind: 'attached'; session: Session };

export class Connection {
  private state: HandshakeState = { kind: 'awaitingHello' };
  /** The problems of hello groups dropped before validation (registration.ts pruneHelloGroups). */
  private pruned: RegistrationProblem[] = [];
  private slowConsumer = false;
  private readonly beforeValidation = (type: string, message: Record<string, unknown>) => {
    if (type === 'hello') this.pruned = pruneHelloGroups(message);
  };
  private readonly handshakeTimer: NodeJS.Timeout;
  private readonly stopHeartbeat: () => void;

  constructor(
    private readonly ws: WebSocket,
    private readonly user: AuthenticatedUser,
    private readonly server: ConnectionServer,
  ) {
    const { options } = server;
    receiveFragments(ws);
    capUnsentOutput(ws, options.maxBufferedBytes, (buffered) => this.onSlowConsumer(buffered));
    this.handshakeTimer = setTimeout(() => {
      if (this.session) return;
      sendFrame(ws, { type: 'error', code: ErrorCode.HandshakeTimeout, message: `No hello within ${options.handshakeTimeoutMs} ms.` });
      ws.close(CloseCode.HandshakeTimeout, 'handshake timeout');
    }, options.handshakeTimeoutMs);
    this.handshakeTimer.unref();
    this.stopHeartbeat = startHeartbeat(ws, options.heartbeatMs, () => {
      options.log.warn(`terminating ${this.session ? this.session.logLabel : 'a connection'}: it missed two heartbeats`);
      ws.terminate();
    });
    ws.on('error', (e) => options.log.warn(`connection error: ${e.message}`));
    ws.on('close', () => this.onClose());
    ws.on('message', (data, isBinary) => this.onMessage(receivedData(data), isBinary));
  }

  private get session(): Session | undefined {
    return this.state.kind === 'attached' ? this.state.session : undefined;
  }

  private onSlowConsumer(buffered: number): void {
    if (this.slowConsumer) return;
    this.slowConsumer = true;
    const { options } = this.server;
    // No session id in the log: an id is a handle on someone's session.
    options.log.warn(`closing ${this.session ? "a session's connection" : 'a connection'}: ${ErrorCode.SlowConsumer}, it stopped reading with ${buffered} bytes unsent (limit ${options.maxBufferedBytes})`);
    this.ws.close(CloseCode.SlowConsumer, `${ErrorCode.SlowConsumer}: unsent output passed ${options.maxBufferedBytes} bytes`);
    // The close frame waits behind the unread output; drop the socket (and that memory) soon.
    setTimeout(() => this.ws.terminate(), CLOSE_GRACE_MS).unref();
  }

  private onClose(): void {
    clearTimeout(this.handshakeTimer);
    this.stopHeartbeat();
    const { session } = this;
    session?.detach(this.ws);
    this.server.closed(this.ws, session);
  }

  private onMessage(data: ReturnType<typeof receivedData>, isBinary: boolean): void {
    const { ws } = this;
    // Once this side closes a connection (SERVER_BUSY, SLOW_CONSUMER, shutdown), nothing it still
    // sends counts: a slow consumer's requests would otherwise keep filling its session's buffer.
    if (ws.readyState !== WebSocket.OPEN) return;
    const options = { maxMessageBytes: this.server.options.maxMessageBytes, ...(this.session ? {} : { beforeValidation: this.beforeValidation }) };
    if (this.state.kind === 'awaitingHello' && byteLength(data) > HELLO_ACROSS_TURNS_FROM) {
      // A large hello is parsed across turns (codec.ts decodeAcrossTurns): one of thousands of tools
      // took 60-160 ms to parse in one stretch. What the client sends meanwhile waits for it.
      const decoding = { kind: 'registering', held: [] } satisfies HandshakeState;
      this.state = decoding;
      void decodeAcrossTurns('toServer', data, isBinary, options).then((decoded) => {
        if (this.state !== decoding) return;
        this.state = { kind: 'awaitingHello' };
        if (ws.readyState === WebSocket.OPEN) this.handle(decoded as DecodeResult<ClientToServer>, decoding.held);
      });
      return;
    }
    this.handle(decodeFromClient(data, isBinary, options));
  }

  /** `held`: what the client sent while its hello was being decoded, handled after it. */
  private handle(decoded: DecodeResult<ClientToServer>, held: ClientToServer[] = []): void {
    const { ws } = this;
    try {
      const { state } = this;
      if (!decoded.ok) {
        if (state.kind === 'attached') {
          state.session.decodeFailed(decoded.error);
        } else {
          const { code, message, relatedId } = decoded.error;
          sendFrame(ws, { type: 'error', code, message, ...(relatedId ? { relatedId } : {}) });
          if (code === ErrorCode.ProtocolMismatch) ws.close(CloseCode.ProtocolMismatch, 'protocol mismatch');
        }
        return;
      }
      switch (state.kind) {
        case 'attached':
          state.session.handle(decoded.message);
          return;
        case 'registering':
          if (state.held.length < HELD_MESSAGES) state.held.push(decoded.message);
          else sendFrame(ws, { type: 'error', code: ErrorCode.NotReady, message: 'The handshake is still in progress: wait for welcome.' });
          return;
        case 'replicating':
          sendFrame(ws, { type: 'error', code: ErrorCode.NotReady, message: 'The handshake is still in progress: wait for welcome.' });
          return;
        case 'awaitingHello':
          if (decoded.message.type !== 'hello') {
            sendFrame(ws, { type: 'error', code: ErrorCode.NotReady, message: `The first message must be hello, not ${decoded.message.type}.` });
            for (const m of held) this.handle({ ok: true, message: m });
            return;
          }
          this.onHello(decoded.message, held);
      }
    } catch (e) {
      this.server.options.log.error(`handling a message failed: ${e instanceof Error ? (e.stack ?? e.message) : String(e)}`);
      const reply: ServerToClient = { type: 'error', code: ErrorCode.Internal, message: `The backend failed to handle the message: ${e instanceof Error ? e.message : String(e)}` };
      if (ws.readyState === WebSocket.OPEN) sendFrame(ws, reply);
      // A hello that failed left no session behind: the client starts over on a new connection.
      if (!this.session && decoded.ok && decoded.message.type === 'hello') ws.close(CloseCode.InternalError, 'handshake failed');
    }
  }

  private onHello(hello: Hello, held: ClientToServer[] = []): void {
    const { ws, server, user } = this;
    clearTimeout(this.handshakeTimer);
    server.helloReceived(ws);
    const pruned = this.pruned;
    if (server.replicated) {
      this.state = { kind: 'replicating' };
      for (const m of held) this.handle({ ok: true, message: m });
      void server.replicatedHandshake(ws, hello, user, pruned).then((s) => {
        this.state = s ? { kind: 'attached', session: s } : { kind: 'awaitingHello' };
        // The socket may have closed while the shared state answered: the session waits for a resume.
        if (s && ws.readyState !== WebSocket.OPEN) s.detach(ws);
      });
      return;
    }
    // Registration runs in the next turn: a large hello's decoding and its registration never
    // hold the event loop in one stretch. What the client sends meanwhile waits for it.
    const registering: HandshakeState = { kind: 'registering', held };
    this.state = registering;
    setImmediate(() => {
      const waiting = registering.held;
      this.state = { kind: 'awaitingHello' };
      if (ws.readyState !== WebSocket.OPEN) return;
      let session: Session | undefined;
      try {
        session = server.handshake(ws, hello, user, pruned);
      } catch (e) {
        server.handshakeFailed(ws, e);
        return;
      }
      if (!session) return;
      this.state = { kind: 'attached', session };
      for (const m of waiting) session.handle(m);
    });
  }
}
