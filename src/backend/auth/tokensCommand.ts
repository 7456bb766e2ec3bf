/**
 * `client-tools-backend tokens add|remove|list`: manages the named-tokens file. `add` prints the new
 * token once on stdout and stores only its hash; every change rewrites the file atomically at 0600.
 * A running backend picks the change up at its next handshake.
 */
import { promises as fs } from 'node:fs';
import { parseArgs } from 'node:util';
import { hashToken, mintToken, type TokenEntry } from './tokenHash';
import { MAX_TOKENS, readTokensFile, writeTokensFile } from './tokensFile';
import { ANONYMOUS, USER_NAME_PATTERN } from './user';

export const TOKENS_USAGE = `Usage: client-tools-backend tokens <command> --file <path>

  add <user>      Mint a token for <user>: printed once on stdout, only its SHA-256 is stored.
                  The file is created (mode 0600) when missing. A user may hold several tokens.
  remove <user>   Remove every token of <user>.
  list            Print each user and how many tokens they hold (never a hash).
`;

export interface CommandIo {
  out(text: string): void;
  err(text: string): void;
}

/** Runs the subcommand; returns the exit code (2 for a usage error, 1 for a file problem). */
export async function runTokensCommand(argv: string[], io: CommandIo): Promise<number> {
  let parsed;
  try {
    parsed = parseArgs({ args: argv, allowPositionals: true, strict: true, options: { file: { type: 'string' }, help: { type: 'boolean' } } });
  } catch (e) {
    io.err(`client-tools-backend tokens: ${(e as Error).message}\n\n${TOKENS_USAGE}`);
    return 2;
  }
  const { values, positionals } = parsed;
  if (values.help) {
    io.out(TOKENS_USAGE);
    return 0;
  }
  const [command, user, ...extra] = positionals;
  const file = values.file;
  const usage = (why: string) => {
    io.err(`client-tools-backend tokens: ${why}\n\n${TOKENS_USAGE}`);
    return 2;
  };
  if (!file) return usage('--file is required');
  if (extra.length > 0) return usage(`unexpected argument "${extra[0]}"`);
  if (command === 'list') {
    if (user !== undefined) return usage('list takes no user');
  } else if (command === 'add' || command === 'remove') {
    if (user === undefined) return usage(`${command} needs a user name`);
    if (!USER_NAME_PATTERN.test(user)) return usage('a user name is 1 to 64 of A-Z a-z 0-9 . _ @ + -');
    if (user === ANONYMOUS) return usage(`"${ANONYMOUS}" is the shared token's user`);
  } else {
    return usage(command === undefined ? 'no command given' : `unknown command "${command}"`);
  }

  let entries: TokenEntry[];
  try {
    entries = await existing(file, command === 'add');
  } catch (e) {
    io.err(`client-tools-backend tokens: ${e instanceof Error ? e.message : String(e)}\n`);
    return 1;
  }
  if (command === 'list') {
    const counts = new Map<string, number>();
    for (const e of entries) counts.set(e.user, (counts.get(e.user) ?? 0) + 1);
    for (const [name, n] of counts) io.out(`${name}\t${n}\n`);
    return 0;
  }
  if (command === 'add' && entries.length >= MAX_TOKENS) {
    io.err(`client-tools-backend tokens: ${file} already holds ${MAX_TOKENS} tokens, the most a file may; use JWTs for more users\n`);
    return 1;
  }
  const token = command === 'add' ? mintToken() : undefined;
  const next = token ? [...entries, { user: user as string, sha256: hashToken(token) }] : entries.filter((e) => e.user !== user);
  if (!token && next.length === entries.length) {
    io.err(`client-tools-backend tokens: ${user as string} holds no token in ${file}\n`);
    return 1;
  }
  try {
    await writeTokensFile(file, next);
  } catch (e) {
    io.err(`client-tools-backend tokens: could not write ${file}: ${e instanceof Error ? e.message : String(e)}\n`);
    return 1;
  }
  if (token) io.out(`${token}\n`);
  else io.err(`removed ${entries.length - next.length} token(s) of ${user as string}\n`);
  return 0;
}

/** The file's entries; a missing file is empty when it may be created. */
async function existing(file: string, mayCreate: boolean): Promise<TokenEntry[]> {
  try {
    await fs.lstat(file);
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'ENOENT' && mayCreate) return [];
    throw e;
  }
  return readTokensFile(file);
}
