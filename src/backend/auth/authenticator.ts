/**
 * Turns a handshake request into the user it belongs to, or a refusal. The credential travels in
 * TOKEN_HEADER (what the extension sends: a named token or a JWT pasted as its token works as is).
 * Without that header, `Authorization: Bearer` may carry a JWT (as identity providers and proxies
 * hand them on), never a token: a token belongs in its own header, which no proxy adds or logs by
 * habit. A JWT-shaped credential goes to the JWT verifier when one is configured; anything else is
 * compared with the shared token (user `anonymous`), then with the named tokens. Every failure gets
 * the same text; the log says why (a JOSE error code, never the credential).
 */
import { createHash, timingSafeEqual } from 'node:crypto';
import type * as http from 'node:http';
import { TOKEN_HEADER } from '../../protocol';
import type { Logger } from '../log';
import type { JwtOptions } from './jwt';
import { JwtVerifier, looksLikeJwt } from './jwt';
import { NamedTokens } from './namedTokens';
import { hashToken } from './tokenHash';
import type { AuthenticatedUser, AuthOutcome } from './user';
import { ANONYMOUS, NOT_ACCEPTED } from './user';

/** Longer credentials are refused unread (a JWT with a few claims is well under 2 KiB). */
const MAX_CREDENTIAL_LENGTH = 8 * 1024;
const MISSING = { status: 401, text: `Missing credentials: send a token in the ${TOKEN_HEADER} header (or a JWT as Authorization: Bearer).` } as const;
const UNAVAILABLE = { status: 503, text: 'The backend cannot check credentials right now; try again later.' } as const;

export interface AuthConfig {
  /** The shared token (user `anonymous`). */
  token: string;
  /** The named-tokens file, if any. */
  tokensFile?: string;
  jwt?: JwtOptions;
  log: Logger;
}

export class Authenticator {
  private readonly tokenDigest: Buffer;

  private constructor(
    token: string,
    private readonly named: NamedTokens | undefined,
    private readonly jwt: JwtVerifier | undefined,
    private readonly log: Logger,
  ) {
    this.tokenDigest = digest(token);
  }

  /** Reads the tokens file and the JWKS; throws with a clear message when either is unusable. */
  static async create(config: AuthConfig): Promise<Authenticator> {
    const named = config.tokensFile !== undefined ? await NamedTokens.open(config.tokensFile, config.log) : undefined;
    const jwt = config.jwt ? await JwtVerifier.create(config.jwt) : undefined;
    return new Authenticator(config.token, named, jwt, config.log);
  }

  /**
   * Why a user proven earlier no longer stands, or undefined while they do: a JWT past its `exp`
   * (and the clock tolerance), a named token no longer in the tokens file. A tokens file that is
   * broken right now ends nobody (new handshakes are refused meanwhile); the shared token never
   * lapses.
   */
  async lapsed(user: AuthenticatedUser): Promise<string | undefined> {
    if (user.via === 'jwt' && user.expiresAt !== undefined && this.jwt) {
      return Date.now() > user.expiresAt + this.jwt.clockToleranceSec * 1000 ? 'its JWT expired' : undefined;
    }
    if (user.via === 'namedToken' && user.tokenSha256 !== undefined && this.named) {
      return (await this.named.holds(user.user, user.tokenSha256)) === false ? 'its named token was removed from the tokens file' : undefined;
    }
    return undefined;
  }

  async authenticate(req: http.IncomingMessage): Promise<AuthOutcome> {
    const presented = credentialOf(req);
    if (!presented) return { ok: false, refusal: MISSING };
    const { credential, bearer } = presented;
    if (credential.length > MAX_CREDENTIAL_LENGTH) return { ok: false, refusal: NOT_ACCEPTED };
    const jwtShaped = looksLikeJwt(credential);
    if (bearer && !(this.jwt && jwtShaped)) return { ok: false, refusal: NOT_ACCEPTED };
    if (this.jwt && jwtShaped) {
      const verdict = await this.jwt.verify(credential);
      if (verdict.ok) return { ok: true, user: { user: verdict.user, via: 'jwt', expiresAt: verdict.expiresAt } };
      this.log.warn(`a JWT was refused: ${verdict.reason}`);
      return { ok: false, refusal: verdict.unavailable ? UNAVAILABLE : NOT_ACCEPTED };
    }
    if (timingSafeEqual(digest(credential), this.tokenDigest)) return { ok: true, user: { user: ANONYMOUS, via: 'token' } };
    if (this.named) {
      let user: string | undefined | 'unusable';
      try {
        user = await this.named.userOf(credential);
      } catch (e) {
        this.log.error(`the tokens file cannot be checked: ${e instanceof Error ? e.message : String(e)}`);
        user = 'unusable';
      }
      if (user === 'unusable') return { ok: false, refusal: UNAVAILABLE };
      if (user !== undefined) return { ok: true, user: { user, via: 'namedToken', tokenSha256: hashToken(credential) } };
    }
    return { ok: false, refusal: NOT_ACCEPTED };
  }
}

/** The request's credential: TOKEN_HEADER when present, else a Bearer credential. */
function credentialOf(req: http.IncomingMessage): { credential: string; bearer: boolean } | undefined {
  const header = req.headers[TOKEN_HEADER];
  if (typeof header === 'string' && header.length > 0) return { credential: header, bearer: false };
  const authorization = req.headers.authorization;
  const bearer = typeof authorization === 'string' ? /^Bearer +(\S+) *$/i.exec(authorization)?.[1] : undefined;
  return bearer !== undefined ? { credential: bearer, bearer: true } : undefined;
}

function digest(value: string): Buffer {
  return createHash('sha256').update(value, 'utf8').digest();
}
