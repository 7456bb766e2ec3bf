/**
 * Room for a new session, and the refusal when there is none. The backend caps attached sessions
 * (`maxConnections`) and sessions in all (`maxSessions`); a named or JWT user is also capped on
 * their own (`maxConnectionsPerUser`, `maxSessionsPerUser`), so one user's sixteen windows cannot
 * take every place and lock the other users out with SERVER_BUSY. Only a detached session that holds
 * nothing (no thread, no call in flight) is ever ended to make room, oldest first: its client loses
 * nothing, since a resume that finds no session starts afresh. A resume is never refused for room.
 * The shared token's user (`anonymous`, one person's bundled backend) has only the global caps.
 */
import type { WebSocket } from 'ws';
import { ErrorCode } from '../protocol';
import { ANONYMOUS } from './auth/user';
import type { Logger } from './log';
import type { ResolvedOptions } from './options';

/** The standard close code "Try Again Later". */
const TRY_AGAIN_LATER = 1013;

/** What the room check needs of a session. */
export interface RoomSession {
  readonly owner: string;
  readonly attached: boolean;
  /** Holds nothing a client could come back for. */
  readonly idle: boolean;
  end(reason: string): void;
}

export interface NoRoom {
  code: typeof ErrorCode.ServerBusy | typeof ErrorCode.SessionLimit;
  why: string;
}

type Caps = Pick<ResolvedOptions, 'maxConnections' | 'maxSessions' | 'maxConnectionsPerUser' | 'maxSessionsPerUser'>;

/**
 * Makes room for a new session of `user` (ending an idle detached session if it must), or says why
 * there is none. `sessions` is read again after an eviction: ending a session removes it from it.
 */
export function roomForNewSession(sessions: () => Iterable<RoomSession>, user: string, caps: Caps): NoRoom | undefined {
  if (user !== ANONYMOUS) {
    const own = [...sessions()].filter((s) => s.owner === user);
    const attached = own.filter((s) => s.attached).length;
    if (attached >= caps.maxConnectionsPerUser) return { code: ErrorCode.SessionLimit, why: `this user already has ${attached} sessions connected (limit ${caps.maxConnectionsPerUser} per user); close one (another editor window) and connect again` };
    if (own.length >= caps.maxSessionsPerUser && !endIdle(own, 'too many sessions of one user: an idle detached session of theirs made room for a new one')) {
      return { code: ErrorCode.SessionLimit, why: `this user already has ${own.length} sessions (limit ${caps.maxSessionsPerUser} per user) and each one may still be resumed` };
    }
  }
  const all = [...sessions()];
  const attached = all.filter((s) => s.attached).length;
  if (attached >= caps.maxConnections) return { code: ErrorCode.ServerBusy, why: `${attached} sessions are connected (limit ${caps.maxConnections})` };
  if (all.length < caps.maxSessions) return undefined;
  if (endIdle(all, 'too many sessions: an idle detached session made room for a new one')) return undefined;
  return { code: ErrorCode.ServerBusy, why: `${all.length} sessions exist (limit ${caps.maxSessions}) and every detached one may still be resumed` };
}

/** Ends the oldest detached session that holds nothing; false when there is none. */
function endIdle(sessions: readonly RoomSession[], reason: string): boolean {
  const victim = sessions.find((s) => !s.attached && s.idle);
  if (!victim) return false;
  victim.end(reason);
  return true;
}

/** Tells the client there is no room for its new session and closes with 1013 (Try Again Later). */
export function refuseNewSession(ws: WebSocket, noRoom: NoRoom, log: Logger, send: (ws: WebSocket, message: { type: 'error'; code: string; message: string }) => void): void {
  log.warn(`refused a new session: ${noRoom.code}: ${noRoom.why}`);
  const message = noRoom.code === ErrorCode.SessionLimit ? `No new session was started: ${noRoom.why}.` : `The backend cannot take a new session now: ${noRoom.why}. Try again later.`;
  send(ws, { type: 'error', code: noRoom.code, message });
  ws.close(TRY_AGAIN_LATER, noRoom.code);
}
