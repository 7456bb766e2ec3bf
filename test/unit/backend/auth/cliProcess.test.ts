/**
 * The CLI as a process: `tokens add` prints a token that a backend started with `--tokens-file`
 * then accepts; that backend writes no discovery file (no shared token nobody asked for); a bad
 * tokens file stops it at start with a message naming the problem.
 */
import { strict as assert } from 'node:assert';
import { spawn } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { TOKEN_HEADER } from '../../../../src/protocol';
import { upgradeStatus } from '../../../support/backend-client';

const ROOT = path.join(__dirname, '..', '..', '..', '..');

interface Run {
  code: number | null;
  out: string;
  err: string;
}

describe('backend CLI: tokens subcommand and --tokens-file, as processes', () => {
  let home: string;
  const children: ReturnType<typeof spawn>[] = [];

  beforeEach(() => {
    home = fs.mkdtempSync(path.join(os.tmpdir(), 'ct-cli-auth-'));
  });
  afterEach(async () => {
    await Promise.all(
      children.splice(0).map(
        (c) =>
          new Promise<void>((resolve) => {
            if (c.exitCode !== null || c.signalCode !== null) return resolve();
            c.once('exit', () => resolve());
            c.kill('SIGKILL');
          }),
      ),
    );
    fs.rmSync(home, { recursive: true, force: true });
  });

  function cli(args: string[], untilListening = false): Promise<Run & { port?: number }> {
    const env: NodeJS.ProcessEnv = { ...process.env, HOME: home, USERPROFILE: home };
    for (const k of ['CLIENT_TOOLS_TOKEN', 'OPENAI_API_KEY', 'OPENAI_BASE_URL', 'CLIENT_TOOLS_MODEL']) delete env[k];
    const child = spawn(process.execPath, ['-r', 'tsx/cjs', 'src/backend/cli.ts', ...args], { cwd: ROOT, env, stdio: ['ignore', 'pipe', 'pipe'] });
    children.push(child);
    return new Promise((resolve) => {
      let out = '';
      let err = '';
      child.stderr?.on('data', (d: Buffer) => (err += d.toString()));
      child.stdout?.on('data', (d: Buffer) => {
        out += d.toString();
        const line = out.split('\n').find((l) => l.includes('"listening"'));
        if (untilListening && line) resolve({ code: null, out, err, port: (JSON.parse(line) as { port: number }).port });
      });
      child.once('exit', (code) => resolve({ code, out, err }));
    });
  }

  it('a token from tokens add is accepted by a backend on that file, which writes no discovery file', async function () {
    this.timeout(60_000);
    const file = path.join(home, 'tokens');
    const added = await cli(['tokens', 'add', 'alice', '--file', file]);
    assert.equal(added.code, 0, added.err);
    const token = added.out.trim();
    assert.match(token, /^ctt_/);
    const backend = await cli(['--tokens-file', file, '--offline', '--log-level', 'info'], true);
    assert.ok(backend.port, `did not start: ${backend.err}`);
    const url = `ws://127.0.0.1:${backend.port}`;
    assert.equal(await upgradeStatus(url, { [TOKEN_HEADER]: token }), 101);
    assert.equal(await upgradeStatus(url, { [TOKEN_HEADER]: `${token}x` }), 401);
    assert.equal(fs.existsSync(path.join(home, '.client-tools')), false, 'a discovery file with a random shared token was written');
  });

  it('a tokens file with a bad line, or open to others, stops the backend at start with a clear message', async function () {
    this.timeout(60_000);
    const file = path.join(home, 'tokens');
    fs.writeFileSync(file, 'alice sha256:not-hex\n', { mode: 0o600 });
    const badLine = await cli(['--tokens-file', file, '--offline']);
    assert.equal(badLine.code, 1);
    assert.match(badLine.err, /could not start: .*tokens line 1: expected/);
    assert.equal(badLine.out, '');
    if (process.platform === 'win32') return;
    fs.writeFileSync(file, '');
    fs.chmodSync(file, 0o644);
    const open = await cli(['--tokens-file', file, '--offline']);
    assert.equal(open.code, 1);
    assert.match(open.err, /could not start: .*can be read or written by others \(mode 644\); run chmod 600/);
  });
});
