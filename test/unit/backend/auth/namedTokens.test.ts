/**
 * Named tokens: the `tokens` subcommand mints a token, prints it once and stores only its SHA-256 in
 * a 0600 file written atomically; the authenticator accepts it as its user, re-reads the file when
 * it changes (a removed token is refused at the next handshake, an added one accepted), and fails
 * closed on a file that became bad. Bad files are refused at start with a message naming the line.
 */
import { strict as assert } from 'node:assert';
import * as fs from 'node:fs';
import type * as http from 'node:http';
import * as os from 'node:os';
import * as path from 'node:path';
import { Authenticator } from '../../../../src/backend/auth/authenticator';
import { hashToken } from '../../../../src/backend/auth/tokenHash';
import { runTokensCommand } from '../../../../src/backend/auth/tokensCommand';
import { MAX_TOKENS, readTokensFile, writeTokensFile } from '../../../../src/backend/auth/tokensFile';
import { silentLogger } from '../../../../src/base/logger';
import { TOKEN_HEADER } from '../../../../src/protocol';

const SHARED = 'shared-token-0123456789abcdef';
const posix = process.platform !== 'win32';

async function tokens(...argv: string[]): Promise<{ code: number; out: string; err: string }> {
  let out = '';
  let err = '';
  const code = await runTokensCommand(argv, { out: (t) => (out += t), err: (t) => (err += t) });
  return { code, out, err };
}

function request(headers: Record<string, string>): http.IncomingMessage {
  return { headers } as unknown as http.IncomingMessage;
}

describe('backend auth: named tokens', () => {
  let dir: string;
  let file: string;
  const logs: string[] = [];
  const log = { ...silentLogger, info: (m: string) => logs.push(m), warn: (m: string) => logs.push(m), error: (m: string) => logs.push(m) };

  beforeEach(() => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'ct-tokens-'));
    file = path.join(dir, 'tokens');
    logs.length = 0;
  });
  afterEach(() => fs.rmSync(dir, { recursive: true, force: true }));

  async function userOf(auth: Authenticator, token: string): Promise<string> {
    const outcome = await auth.authenticate(request({ [TOKEN_HEADER]: token }));
    return outcome.ok ? `${outcome.user.user}/${outcome.user.via}` : `HTTP ${outcome.refusal.status}`;
  }

  it('tokens add prints a 256-bit token once and stores only its hash, in a 0600 file with no temp file left', async () => {
    const added = await tokens('add', 'alice', '--file', file);
    assert.equal(added.code, 0, added.err);
    const token = added.out.trim();
    assert.match(token, /^ctt_[A-Za-z0-9_-]{43}$/);
    const text = fs.readFileSync(file, 'utf8');
    assert.ok(!text.includes(token), 'the token itself is not stored');
    assert.ok(text.includes(`alice sha256:${hashToken(token)}`));
    if (posix) assert.equal(fs.statSync(file).mode & 0o777, 0o600);
    assert.deepEqual(fs.readdirSync(dir), ['tokens']);
    const second = (await tokens('add', 'alice', '--file', file)).out.trim();
    assert.notEqual(second, token);
    assert.equal((await tokens('list', '--file', file)).out, 'alice\t2\n');
  });

  it('the authenticator accepts each named token as its user, the shared token as anonymous, and nothing else', async () => {
    const alice = (await tokens('add', 'alice', '--file', file)).out.trim();
    const bob = (await tokens('add', 'bob', '--file', file)).out.trim();
    const auth = await Authenticator.create({ token: SHARED, tokensFile: file, log });
    assert.equal(await userOf(auth, alice), 'alice/namedToken');
    assert.equal(await userOf(auth, bob), 'bob/namedToken');
    assert.equal(await userOf(auth, SHARED), 'anonymous/token');
    assert.equal(await userOf(auth, `${alice}x`), 'HTTP 401');
    assert.equal(await userOf(auth, hashToken(alice)), 'HTTP 401', 'the stored hash is not a credential');
    const bearer = await auth.authenticate(request({ authorization: `Bearer ${alice}` }));
    assert.equal(bearer.ok, false, 'a token belongs in its own header, not in Authorization');
    assert.ok(!logs.some((l) => l.includes(alice) || l.includes(bob)), 'no token in the log');
  });

  it('re-reads the file when it changes: a removed token is refused at the next handshake, a new one accepted', async () => {
    const alice = (await tokens('add', 'alice', '--file', file)).out.trim();
    const bob = (await tokens('add', 'bob', '--file', file)).out.trim();
    const auth = await Authenticator.create({ token: SHARED, tokensFile: file, log });
    assert.equal(await userOf(auth, bob), 'bob/namedToken');
    assert.equal((await tokens('remove', 'bob', '--file', file)).code, 0);
    assert.equal(await userOf(auth, bob), 'HTTP 401');
    assert.equal(await userOf(auth, alice), 'alice/namedToken');
    const carol = (await tokens('add', 'carol', '--file', file)).out.trim();
    assert.equal(await userOf(auth, carol), 'carol/namedToken');
    // An edit in place (same inode) counts too.
    fs.writeFileSync(file, `carol sha256:${hashToken(carol)}\n`);
    assert.equal(await userOf(auth, alice), 'HTTP 401');
    assert.equal(await userOf(auth, carol), 'carol/namedToken');
  });

  it('fails closed when the file goes bad or away: no named token passes (503), the shared token still does, and a fixed file works again', async () => {
    const alice = (await tokens('add', 'alice', '--file', file)).out.trim();
    const auth = await Authenticator.create({ token: SHARED, tokensFile: file, log });
    fs.appendFileSync(file, 'mallory not-a-hash\n');
    assert.equal(await userOf(auth, alice), 'HTTP 503');
    assert.equal(await userOf(auth, SHARED), 'anonymous/token');
    assert.ok(logs.some((l) => /line 3/.test(l)), logs.join('\n'));
    fs.writeFileSync(file, `alice sha256:${hashToken(alice)}\n`);
    assert.equal(await userOf(auth, alice), 'alice/namedToken');
    if (posix) {
      fs.chmodSync(file, 0o644);
      assert.equal(await userOf(auth, alice), 'HTTP 503');
      fs.chmodSync(file, 0o600);
      assert.equal(await userOf(auth, alice), 'alice/namedToken');
    }
    fs.rmSync(file);
    assert.equal(await userOf(auth, alice), 'HTTP 503');
  });

  it('refuses at start a missing file, a bad line (named, without its content), a duplicate hash, the anonymous user, loose permissions and a symlink', async () => {
    await assert.rejects(Authenticator.create({ token: SHARED, tokensFile: file, log }), /ENOENT/);
    const hash = hashToken('ctt_x');
    const bad: [string, RegExp][] = [
      [`alice sha256:${hash.slice(1)}\n`, /line 1: expected/],
      [`# c\n\nal ice sha256:${hash}\n`, /line 3: expected/],
      [`alice sha256:${hash}\nbob sha256:${hash}\n`, /line 2: this hash is already/],
      [`anonymous sha256:${hash}\n`, /shared token's user/],
      [`${'a'.repeat(65)} sha256:${hash}\n`, /user name/],
    ];
    for (const [text, why] of bad) {
      fs.writeFileSync(file, text, { mode: 0o600 });
      await assert.rejects(readTokensFile(file), (e: Error) => why.test(e.message) && !e.message.includes(hash.slice(10, 30)));
    }
    if (posix) {
      fs.writeFileSync(file, `alice sha256:${hash}\n`, { mode: 0o600 });
      fs.chmodSync(file, 0o640);
      await assert.rejects(Authenticator.create({ token: SHARED, tokensFile: file, log }), /chmod 600/);
      fs.chmodSync(file, 0o600);
      fs.symlinkSync(file, path.join(dir, 'link'));
      await assert.rejects(Authenticator.create({ token: SHARED, tokensFile: path.join(dir, 'link'), log }), /symbolic link/);
    }
  });

  it(`a file may hold ${MAX_TOKENS} tokens: one more is refused at start, and tokens add will not write it`, async () => {
    const entries = Array.from({ length: MAX_TOKENS }, (_, i) => ({ user: `u${i % 100}`, sha256: hashToken(`ctt_${i}`) }));
    await writeTokensFile(file, entries);
    assert.equal((await readTokensFile(file)).length, MAX_TOKENS);
    const before = fs.readFileSync(file, 'utf8');
    const refused = await tokens('add', 'alice', '--file', file);
    assert.equal(refused.code, 1);
    assert.match(refused.err, /already holds 10000 tokens/);
    assert.equal(refused.out, '', 'no token printed');
    assert.equal(fs.readFileSync(file, 'utf8'), before);
    fs.appendFileSync(file, `alice sha256:${hashToken('ctt_one-more')}\n`);
    await assert.rejects(readTokensFile(file), /more than 10000 tokens/);
  });

  it('the subcommand refuses bad usage and a bad existing file without changing it', async () => {
    assert.equal((await tokens('add', 'alice')).code, 2);
    assert.equal((await tokens('add', '--file', file)).code, 2);
    assert.equal((await tokens('add', 'bad name', '--file', file)).code, 2);
    assert.equal((await tokens('add', 'anonymous', '--file', file)).code, 2);
    assert.equal((await tokens('frobnicate', '--file', file)).code, 2);
    assert.equal((await tokens('remove', 'alice', '--file', file)).code, 1, 'no file to remove from');
    fs.writeFileSync(file, 'garbage\n', { mode: 0o600 });
    const refused = await tokens('add', 'alice', '--file', file);
    assert.equal(refused.code, 1);
    assert.match(refused.err, /line 1/);
    assert.equal(fs.readFileSync(file, 'utf8'), 'garbage\n');
  });
});
