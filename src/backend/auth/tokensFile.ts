/**
 * The named-tokens file: one `<user> sha256:<hex>` pair a line; `#` comments and blank lines are
 * ignored; a user may hold several tokens (rotation). It holds no token, only hashes, yet it decides
 * who gets in, so it must be a regular file of ours that nobody else can read or write (0600): a
 * file anyone could edit would let them add themselves. Errors name the line, never its hash.
 * Written atomically (a 0600 temp file beside it, fsync, rename), so a reader never sees half a file.
 */
import { randomBytes } from 'node:crypto';
import { promises as fs } from 'node:fs';
import * as path from 'node:path';
import type { TokenEntry } from './tokenHash';
import { ANONYMOUS, USER_NAME_PATTERN } from './user';

/** Beyond this the file is refused, not read into memory. */
const MAX_FILE_BYTES = 4 * 1024 * 1024;
const LINE = /^(\S+)\s+sha256:([0-9a-f]{64})$/;
/** Each handshake compares with every entry; past this many, per-user JWTs scale better. */
export const MAX_TOKENS = 10_000;

export class TokensFileError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'TokensFileError';
  }
}

export function parseTokens(text: string, file: string): TokenEntry[] {
  const entries: TokenEntry[] = [];
  const seen = new Set<string>();
  const lines = text.split(/\r?\n/);
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i].trim();
    if (line === '' || line.startsWith('#')) continue;
    const m = LINE.exec(line);
    if (!m) throw new TokensFileError(`${file} line ${i + 1}: expected "<user> sha256:<64 lowercase hex digits>".`);
    const [, user, sha256] = m;
    if (!USER_NAME_PATTERN.test(user)) throw new TokensFileError(`${file} line ${i + 1}: a user name is 1 to 64 of A-Z a-z 0-9 . _ @ + -.`);
    if (user === ANONYMOUS) throw new TokensFileError(`${file} line ${i + 1}: "${ANONYMOUS}" is the shared token's user and cannot hold a named token.`);
    if (seen.has(sha256)) throw new TokensFileError(`${file} line ${i + 1}: this hash is already on an earlier line.`);
    seen.add(sha256);
    if (entries.length >= MAX_TOKENS) throw new TokensFileError(`${file} holds more than ${MAX_TOKENS} tokens; use JWTs for more users.`);
    entries.push({ user, sha256 });
  }
  return entries;
}

export function formatTokens(entries: readonly TokenEntry[]): string {
  const header = '# Client Tools named tokens: <user> sha256:<hash>. Managed with `client-tools-backend tokens`.\n';
  return header + entries.map((e) => `${e.user} sha256:${e.sha256}\n`).join('');
}

/** Refuses a file that is a link, not a regular file, not ours, too big, or open to group or others. */
export async function checkTokensFile(file: string): Promise<void> {
  const st = await fs.lstat(file);
  if (st.isSymbolicLink()) throw new TokensFileError(`${file} is a symbolic link; give the real file.`);
  if (!st.isFile()) throw new TokensFileError(`${file} is not a regular file.`);
  if (st.size > MAX_FILE_BYTES) throw new TokensFileError(`${file} is larger than ${MAX_FILE_BYTES} bytes.`);
  if (process.platform === 'win32') return;
  if (typeof process.getuid === 'function' && st.uid !== process.getuid()) throw new TokensFileError(`${file} belongs to another user; it must belong to the user running the backend.`);
  if ((st.mode & 0o077) !== 0) throw new TokensFileError(`${file} can be read or written by others (mode ${(st.mode & 0o777).toString(8)}); run chmod 600 on it.`);
}

/** The file's entries after its checks; throws TokensFileError (or the fs error, e.g. ENOENT). */
export async function readTokensFile(file: string): Promise<TokenEntry[]> {
  await checkTokensFile(file);
  return parseTokens(await fs.readFile(file, 'utf8'), file);
}

/** Replaces the file's content atomically; the result is 0600 whatever was there. */
export async function writeTokensFile(file: string, entries: readonly TokenEntry[]): Promise<void> {
  const temp = path.join(path.dirname(file), `.${path.basename(file)}.${randomBytes(6).toString('hex')}.tmp`);
  const handle = await fs.open(temp, 'wx', 0o600);
  try {
    await handle.writeFile(formatTokens(entries), 'utf8');
    await handle.sync();
  } catch (e) {
    await handle.close();
    await fs.rm(temp, { force: true });
    throw e;
  }
  await handle.close();
  try {
    await fs.rename(temp, file);
  } catch (e) {
    await fs.rm(temp, { force: true });
    throw e;
  }
}
