/**
 * Revocation takes effect on sessions already open, not only on the next handshake: every
 * `intervalMs` each session's credential is checked again (a JWT past its `exp`, a named token no
 * longer in the tokens file, which is re-read when it changed), and the session of a credential
 * that lapsed is ended with a coded close. The check costs a stat of the tokens file and a set
 * lookup per session; it reads no secret (the session keeps only the token's digest).
 */
import type { Logger } from '../log';
import type { Authenticator } from './authenticator';
import type { AuthenticatedUser } from './user';

/** What the sweep needs of a session. */
export interface SweptSession {
  readonly credential: AuthenticatedUser | undefined;
  readonly logLabel: string;
  /** Tells the client why (CREDENTIALS_REVOKED) and ends the session. */
  revoke(why: string): void;
}

/** Default of `credentialCheckMs`: how late a revocation may take effect on an open session. */
export const DEFAULT_CREDENTIAL_CHECK_MS = 5_000;

/** Starts the sweep; returns its stop. */
export function startCredentialSweep(sessions: () => Iterable<SweptSession>, authenticator: Authenticator, intervalMs: number, log: Logger): () => void {
  let running = false;
  const timer = setInterval(() => {
    if (running) return;
    running = true;
    void sweep(sessions, authenticator, log).finally(() => (running = false));
  }, intervalMs);
  timer.unref();
  return () => clearInterval(timer);
}

async function sweep(sessions: () => Iterable<SweptSession>, authenticator: Authenticator, log: Logger): Promise<void> {
  for (const session of [...sessions()]) {
    const credential = session.credential;
    if (!credential) continue;
    let why: string | undefined;
    try {
      why = await authenticator.lapsed(credential);
    } catch (e) {
      log.warn(`checking a session's credential failed (it stays for now): ${e instanceof Error ? e.message : String(e)}`);
      continue;
    }
    if (!why) continue;
    log.warn(`${session.logLabel}: ending it, ${why}`);
    session.revoke(why);
  }
}
