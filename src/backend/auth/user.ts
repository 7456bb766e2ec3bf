/**
 * Who a connection belongs to, decided once at the handshake. Sessions and threads belong to this
 * user: nothing another user sends can reach them (server.ts, scopedStore.ts).
 */

/** How the user was proven: the single shared token, a named token from the tokens file, or a JWT. */
export type AuthMethod = 'token' | 'namedToken' | 'jwt';

export interface AuthenticatedUser {
  user: string;
  via: AuthMethod;
  /** A JWT's `exp`, in milliseconds since the epoch: past it (and the clock tolerance) the user's sessions end. */
  expiresAt?: number;
  /** A named token's SHA-256 (hex), never the token: when the file no longer holds it, the user's sessions end. */
  tokenSha256?: string;
}

/** The user of the single shared token: every holder of it is this one user (today's default). */
export const ANONYMOUS = 'anonymous';

/** Why a handshake was refused: an HTTP status and a text that never says which part of a credential was wrong. */
export interface AuthRefusal {
  status: 401 | 403 | 503;
  text: string;
}

export type AuthOutcome = { ok: true; user: AuthenticatedUser } | { ok: false; refusal: AuthRefusal };

/** Names in the tokens file: short, printable, no spaces (the file is one `user hash` pair a line). */
export const USER_NAME_PATTERN = /^[A-Za-z0-9._@+-]{1,64}$/;

/** The one text for any credential that did not prove a user, so a guesser learns nothing from it. */
export const NOT_ACCEPTED: AuthRefusal = { status: 401, text: 'The credentials were not accepted.' };
