/**
 * Named tokens: minted with 256 random bits and kept at rest only as their SHA-256. A slow password
 * hash (scrypt, argon2) protects low-entropy secrets from guessing; a 256-bit random token cannot be
 * guessed, so one fast hash is enough to make a leaked file useless and keeps each handshake cheap.
 */
import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';

/** Marks our tokens, so a leaked one is recognisable (secret scanners) and never looks like a JWT. */
export const TOKEN_PREFIX = 'ctt_';

export function mintToken(): string {
  return `${TOKEN_PREFIX}${randomBytes(32).toString('base64url')}`;
}

/** The SHA-256 of a token, hex. */
export function hashToken(token: string): string {
  return createHash('sha256').update(token, 'utf8').digest('hex');
}

export interface TokenEntry {
  user: string;
  /** SHA-256 of the token, 64 lowercase hex digits. */
  sha256: string;
}

/** Entries with their digests decoded once, so a handshake only hashes and compares. */
export type TokenIndex = readonly { user: string; digest: Buffer }[];

export function indexTokens(entries: readonly TokenEntry[]): TokenIndex {
  return entries.map((e) => ({ user: e.user, digest: Buffer.from(e.sha256, 'hex') }));
}

/**
 * The user whose hash matches `token`, comparing against every entry in constant time and without
 * stopping at the first match, so the time taken says nothing about which entry (if any) matched.
 */
export function findUser(index: TokenIndex, token: string): string | undefined {
  const presented = createHash('sha256').update(token, 'utf8').digest();
  let found: string | undefined;
  for (const e of index) {
    if (timingSafeEqual(e.digest, presented) && found === undefined) found = e.user;
  }
  return found;
}
