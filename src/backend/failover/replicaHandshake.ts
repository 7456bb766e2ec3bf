/**
 * The handshake of a backend replica for a session it does not hold (server.ts keeps the local
 * resume): adopt the session from the shared state when the hello proves it (adoption.ts), else
 * start a new one, recorded in the shared state BEFORE its welcome, so that the client never holds
 * a session id another replica could not find. When the shared state cannot be reached, the client
 * gets `STATE_UNAVAILABLE` and the socket closes with 1013 (try again later): its reconnect then
 * tries again, or the next replica.
 */
import { WebSocket } from 'ws';
import type { Hello } from '../../protocol';
import { ErrorCode } from '../../protocol';
import type { BackendDeps } from '../session';
import { sendFrame, Session } from '../session';
import { adoptableSession, takeOverCalls } from './adoption';
import { replicatedState } from './replicated';
import { refuseNewSession, type NoRoom } from '../sessionRoom';
import type { RegistrationProblem } from '../registration';

const TRY_AGAIN_LATER = 1013;

export interface ReplicaServer {
  deps: BackendDeps;
  /** The authenticated user of the connection: only that user's sessions are adopted, and a new one is theirs. */
  user: string;
  /** Why no new session fits now, or undefined when one does. */
  roomForNewSession(): NoRoom | undefined;
  register(session: Session, resumed: boolean): void;
  /** Whether this replica holds a session with this id (an adoption under way, or a local one). */
  holds(sessionId: string): boolean;
  onEnded(session: Session): void;
}

/** `pruned`: the problems of the hello's groups dropped before it was validated (registration.ts), told with the welcome. */
export async function replicatedHandshake(ws: WebSocket, hello: Hello, server: ReplicaServer, pruned: readonly RegistrationProblem[] = []): Promise<Session | undefined> {
  const { deps } = server;
  const shared = replicatedState(deps);
  if (!shared) throw new Error('replicatedHandshake needs a shared state');
  const log = deps.options.log;
  let session: Session | undefined;
  try {
    const wanted = hello.resumeSession;
    const found = wanted && !server.holds(wanted) ? await adoptableSession(shared, wanted, hello.resumeSecret) : undefined;
    // Another user's session is treated exactly like an unknown one, even with its secret.
    const record = found?.owner === server.user ? found : undefined;
    if (record && hello.resumeSecret !== undefined && !server.holds(record.sessionId)) {
      const calls = await shared.callsOf(record.sessionId);
      session = new Session({ ...deps, owner: record.owner, onEnded: (s) => server.onEnded(s), adopted: { sessionId: record.sessionId, secret: hello.resumeSecret } });
      // Before the welcome: an answer the client kept while away must find its call waiting.
      const recovery = takeOverCalls(calls, session.invoker, session.journal!, log);
      await session.publish();
      if (!open(ws)) return discard(session);
      session.attach(ws, hello, 'adopted', pruned);
      server.register(session, true);
      log.info(`${session.logLabel}: taken over from replica ${record.replica}: ${recovery.resent} calls sent again, ${recovery.runs.length} runs to continue (${calls.length} shared records)`);
      session.continueRuns(recovery);
      return session;
    }
    const noRoom = server.roomForNewSession();
    if (noRoom) {
      refuseNewSession(ws, noRoom, log, sendFrame);
      return undefined;
    }
    session = new Session({ ...deps, owner: server.user, onEnded: (s) => server.onEnded(s) });
    await session.publish();
    if (!open(ws)) return discard(session);
    session.attach(ws, hello, wanted ? 'unknownSession' : 'new', pruned);
    server.register(session, false);
    return session;
  } catch (e) {
    if (session) discard(session);
    const message = e instanceof Error ? e.message : String(e);
    const stateError = e instanceof Error && e.name === 'SharedStateError';
    log.warn(`a handshake failed: ${message}`);
    if (open(ws)) {
      sendFrame(ws, stateError
        ? { type: 'error', code: ErrorCode.StateUnavailable, message: `The backend's shared state cannot be reached; try again shortly (${message}).`.slice(0, 10_000) }
        : { type: 'error', code: ErrorCode.Internal, message: `The backend failed to handle the hello: ${message}`.slice(0, 10_000) });
      ws.close(TRY_AGAIN_LATER, stateError ? ErrorCode.StateUnavailable : 'handshake failed');
    }
    return undefined;
  }
}

function open(ws: WebSocket): boolean {
  return ws.readyState === WebSocket.OPEN;
}

function discard(session: Session): undefined {
  session.discard();
  return undefined;
}
