/**
 * JWT verification with `jose`: a signature by a key of the configured JWKS (a file read at start,
 * or a URL fetched with a time limit and cached by jose), the configured issuer and audience, `exp`
 * and `nbf` with a small clock tolerance, and an allow-list of asymmetric algorithms only: `none` is
 * never accepted, and no HS* algorithm either, since a JWKS holds public keys and an HMAC "signed"
 * with a public key proves nothing. The user is the `sub` claim (or another string claim).
 */
import { promises as fs } from 'node:fs';
import type { JWTVerifyGetKey } from 'jose';
import { createLocalJWKSet, createRemoteJWKSet, customFetch, errors, jwtVerify } from 'jose';
import { ANONYMOUS } from './user';

export interface JwtOptions {
  /** The `iss` every token must carry. */
  issuer: string;
  /** The `aud` every token must name. */
  audience: string;
  /** A JWKS document on disk (read once at start). */
  jwksFile?: string;
  /** A JWKS URL (https, or http on loopback), fetched when a token names a key not cached yet. */
  jwksUrl?: string;
  /** The claim that names the user (default `sub`). */
  userClaim?: string;
  /** Allowed `alg` values (default: every RS, PS, ES and EdDSA algorithm). */
  algorithms?: string[];
  /** Seconds of clock skew allowed on `exp` and `nbf` (default 30). */
  clockToleranceSec?: number;
  /** How long a JWKS fetch may take (default 5,000 ms). */
  jwksTimeoutMs?: number;
}

export const ASYMMETRIC_ALGORITHMS = ['RS256', 'RS384', 'RS512', 'PS256', 'PS384', 'PS512', 'ES256', 'ES384', 'ES512', 'EdDSA', 'Ed25519'] as const;
const MAX_USER_LENGTH = 256;
/** A JWKS response past this is not read on (a key set of dozens of keys is a few KB; a 400 MB body added 1.4 GiB). */
export const MAX_JWKS_BYTES = 1024 * 1024;

/** Three base64url parts: a compact JWS. Our own tokens (`ctt_…`) and random tokens never contain dots. */
export function looksLikeJwt(credential: string): boolean {
  return /^[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]*$/.test(credential);
}

export type JwtOutcome = { ok: true; user: string; expiresAt: number } | { ok: false; unavailable: boolean; reason: string };

export class JwtVerifier {
  private constructor(
    private readonly keys: JWTVerifyGetKey,
    private readonly options: JwtOptions,
    private readonly algorithms: string[],
  ) {}

  /** Checks the options and loads the key set; throws with a clear message on a bad configuration. */
  static async create(options: JwtOptions): Promise<JwtVerifier> {
    if (!options.issuer) throw new Error('JWT: an issuer is required (--jwt-issuer).');
    if (!options.audience) throw new Error('JWT: an audience is required (--jwt-audience).');
    if (!options.jwksFile === !options.jwksUrl) throw new Error('JWT: give exactly one of a JWKS file (--jwt-jwks-file) or a JWKS URL (--jwt-jwks-url).');
    const algorithms = options.algorithms ?? [...ASYMMETRIC_ALGORITHMS];
    for (const alg of algorithms) {
      if (!(ASYMMETRIC_ALGORITHMS as readonly string[]).includes(alg)) throw new Error(`JWT: algorithm "${alg}" is not allowed; use asymmetric ones (${ASYMMETRIC_ALGORITHMS.join(', ')}).`);
    }
    if (algorithms.length === 0) throw new Error('JWT: the algorithm list is empty.');
    return new JwtVerifier(options.jwksFile ? await localKeys(options.jwksFile) : remoteKeys(options.jwksUrl ?? '', options.jwksTimeoutMs ?? 5_000), options, algorithms);
  }

  /** Seconds of clock skew allowed on `exp` and `nbf`. */
  get clockToleranceSec(): number {
    return this.options.clockToleranceSec ?? 30;
  }

  async verify(token: string): Promise<JwtOutcome> {
    try {
      const { payload } = await jwtVerify(token, this.keys, {
        issuer: this.options.issuer,
        audience: this.options.audience,
        algorithms: this.algorithms,
        clockTolerance: this.clockToleranceSec,
        requiredClaims: ['exp'],
      });
      const claim = this.options.userClaim ?? 'sub';
      const user = payload[claim];
      if (typeof user !== 'string' || user.length === 0 || user.length > MAX_USER_LENGTH || /\p{Cc}/u.test(user)) {
        return { ok: false, unavailable: false, reason: `the "${claim}" claim is not a usable user name` };
      }
      // The shared token's user: a JWT naming it would join everyone who holds that token.
      if (user === ANONYMOUS) return { ok: false, unavailable: false, reason: `the "${claim}" claim names the reserved user "${ANONYMOUS}"` };
      return { ok: true, user, expiresAt: (payload.exp ?? 0) * 1000 };
    } catch (e) {
      // The key set could not be fetched: the token may be fine, the backend cannot tell now.
      const unavailable = e instanceof errors.JWKSTimeout || !(e instanceof errors.JOSEError);
      const code = e instanceof errors.JOSEError ? e.code : `ERR_JWKS_FETCH (${e instanceof Error ? e.message.slice(0, 200) : String(e)})`;
      return { ok: false, unavailable, reason: code };
    }
  }
}

async function localKeys(file: string): Promise<JWTVerifyGetKey> {
  let parsed: unknown;
  try {
    parsed = JSON.parse(await fs.readFile(file, 'utf8'));
  } catch (e) {
    throw new Error(`JWT: cannot read the JWKS file ${file}: ${e instanceof Error ? e.message : String(e)}`);
  }
  const keys = (parsed as { keys?: unknown }).keys;
  if (!Array.isArray(keys) || keys.length === 0) throw new Error(`JWT: ${file} is not a JWKS document (an object with a non-empty "keys" array).`);
  return createLocalJWKSet(parsed as Parameters<typeof createLocalJWKSet>[0]);
}

function remoteKeys(url: string, timeoutMs: number): JWTVerifyGetKey {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    throw new Error(`JWT: the JWKS URL "${url.slice(0, 200)}" is not a URL.`);
  }
  const loopback = /^(127\.0\.0\.1|localhost|\[::1\])$/i.test(parsed.hostname);
  if (parsed.protocol !== 'https:' && !(parsed.protocol === 'http:' && loopback)) throw new Error('JWT: the JWKS URL must be https (plain http only on loopback).');
  return createRemoteJWKSet(parsed, { timeoutDuration: timeoutMs, cooldownDuration: 30_000, [customFetch]: cappedFetch });
}

/**
 * The JWKS fetch with its body read up to MAX_JWKS_BYTES: past it (by content-length or as it
 * arrives) the fetch fails, which the handshake reports as the key set being unavailable (503).
 */
async function cappedFetch(url: string, init: RequestInit): Promise<Response> {
  const response = await fetch(url, init);
  const declared = Number(response.headers.get('content-length'));
  const tooLarge = () => new Error(`the JWKS response is over ${MAX_JWKS_BYTES} bytes`);
  if (declared > MAX_JWKS_BYTES) {
    await response.body?.cancel();
    throw tooLarge();
  }
  const chunks: Uint8Array[] = [];
  let size = 0;
  if (response.body) {
    const reader = response.body.getReader();
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      size += value.byteLength;
      if (size > MAX_JWKS_BYTES) {
        await reader.cancel();
        throw tooLarge();
      }
      chunks.push(value);
    }
  }
  return new Response(Buffer.concat(chunks), { status: response.status, statusText: response.statusText, headers: response.headers });
}
