import { strict as assert } from 'node:assert';
import type { ChildProcess } from 'node:child_process';
import { spawn } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import * as readline from 'node:readline';
import { parseCli, UsageError } from '../../../src/backend/cli';
import { DEFAULT_MODEL_NAME } from '../../../src/backend/model/openai';
import { TestClient } from '../../support/backend-client';

const ROOT = path.resolve(__dirname, '../../..');
const READY_LINE = /^\{"event":"listening","port":(\d+)\}$/;

interface Launched {
  child: ChildProcess;
  port: number;
  stdout: string[];
  stderr: string[];
  exited: Promise<number | null>;
}

/** Starts the CLI from source and waits for its ready line. */
function launch(args: string[], env: NodeJS.ProcessEnv = {}): Promise<Launched> {
  const clean = { ...process.env };
  for (const k of ['OPENAI_API_KEY', 'OPENAI_BASE_URL', 'CLIENT_TOOLS_MODEL', 'CLIENT_TOOLS_TOKEN']) delete clean[k];
  const child = spawn(process.execPath, ['-r', 'tsx/cjs', 'src/backend/cli.ts', ...args], { cwd: ROOT, env: { ...clean, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
  const stdout: string[] = [];
  const stderr: string[] = [];
  readline.createInterface({ input: child.stderr! }).on('line', (l) => stderr.push(l));
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`no ready line; stderr: ${stderr.join('\n')}`)), 60_000);
    readline.createInterface({ input: child.stdout! }).on('line', (line) => {
      stdout.push(line);
      const m = READY_LINE.exec(line);
      if (m) {
        clearTimeout(timer);
        resolve({ child, port: Number(m[1]), stdout, stderr, exited });
      }
    });
    child.once('exit', (code) => reject(new Error(`exited with ${code}: ${stderr.join('\n')}`)));
  });
}

describe('backend CLI', function () {
  // Each test starts the CLI from source through tsx: seconds on a loaded machine (over 15 s once in CI).
  this.timeout(120_000);
  const children: ChildProcess[] = [];
  let tmp: string | undefined;
  afterEach(() => {
    for (const c of children.splice(0)) if (c.exitCode === null) c.kill('SIGKILL');
    if (tmp) fs.rmSync(tmp, { recursive: true, force: true });
    tmp = undefined;
  });

  it('prints exactly one ready line on stdout, serves clients with the token from the environment, and stops on SIGTERM', async () => {
    const token = 'cli-token-from-env-0123456789';
    const run = await launch(['--port', '0', '--offline', '--invoke-timeout', '1500', '--disconnect-strategy', 'failFast'], { CLIENT_TOOLS_TOKEN: token });
    children.push(run.child);
    const { client, welcome } = await TestClient.open(`ws://127.0.0.1:${run.port}`, token);
    assert.equal(welcome.limits.invokeTimeoutMs, 1500);
    assert.deepEqual(welcome.server.model, { name: 'offline-demo', offline: true });
    const { finished } = await client.run('t1', 'hello there');
    assert.equal(finished.reason, 'completed');
    await client.close();

    run.child.kill('SIGTERM');
    assert.equal(await run.exited, 0);
    assert.deepEqual(run.stdout, [`{"event":"listening","port":${run.port}}`]);
    assert.equal([...run.stdout, ...run.stderr].join('\n').includes(token), false, 'the token is never printed');
  });

  it('writes a random token to a 0600 discovery file and removes it on exit', async () => {
    tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'ct-cli-'));
    const file = path.join(tmp, 'backend.json');
    const run = await launch(['--discovery-file', file]);
    children.push(run.child);
    assert.equal(fs.statSync(file).mode & 0o777, 0o600);
    const info = JSON.parse(fs.readFileSync(file, 'utf8')) as { port: number; token: string; pid: number };
    assert.equal(info.port, run.port);
    assert.equal(info.pid, run.child.pid);
    const { client } = await TestClient.open(`ws://127.0.0.1:${run.port}`, info.token);
    await client.close();
    assert.equal([...run.stdout, ...run.stderr].join('\n').includes(info.token), false);
    run.child.kill('SIGINT');
    assert.equal(await run.exited, 0);
    assert.equal(fs.existsSync(file), false);
  });

  it('prints usage for --help and exits 2 on an unknown flag', async () => {
    const help = spawn(process.execPath, ['-r', 'tsx/cjs', 'src/backend/cli.ts', '--help'], { cwd: ROOT });
    let out = '';
    help.stdout.on('data', (d: Buffer) => (out += d.toString()));
    assert.equal(await new Promise((r) => help.once('exit', r)), 0);
    assert.match(out, /^Usage: client-tools-backend/);
    assert.match(out, /--disconnect-strategy/);

    const bad = spawn(process.execPath, ['-r', 'tsx/cjs', 'src/backend/cli.ts', '--frobnicate'], { cwd: ROOT });
    let err = '';
    bad.stderr.on('data', (d: Buffer) => (err += d.toString()));
    assert.equal(await new Promise((r) => bad.once('exit', r)), 2);
    assert.match(err, /Unknown option '--frobnicate'/);
  });

  describe('parseCli', () => {
    it('runs the offline demo model when neither a model nor a base URL is configured', () => {
      assert.equal(parseCli([], {}).options.model, 'offline');
      assert.equal(parseCli(['--offline'], { OPENAI_BASE_URL: 'http://x/v1', CLIENT_TOOLS_MODEL: 'm' }).options.model, 'offline');
    });

    it('takes the endpoint from flags before the environment, and the key only from the environment', () => {
      const env = { OPENAI_BASE_URL: 'http://env/v1', CLIENT_TOOLS_MODEL: 'env-model', OPENAI_API_KEY: 'sk-env' };
      assert.deepEqual(parseCli([], env).options.model, { model: 'env-model', baseURL: 'http://env/v1', apiKey: 'sk-env' });
      assert.deepEqual(parseCli(['--base-url', 'http://flag/v1', '--model', 'flag-model'], env).options.model, { model: 'flag-model', baseURL: 'http://flag/v1', apiKey: 'sk-env' });
      assert.deepEqual(parseCli([], { OPENAI_BASE_URL: 'http://127.0.0.1:11434/v1' }).options.model, { model: DEFAULT_MODEL_NAME, baseURL: 'http://127.0.0.1:11434/v1', apiKey: undefined });
    });

    it('passes --vision and --image-max-side to the model, and refuses values it does not know', () => {
      const env = { CLIENT_TOOLS_MODEL: 'llama3.1' };
      assert.deepEqual(parseCli(['--vision', 'on', '--image-max-side', '1024'], env).options.model, { model: 'llama3.1', baseURL: undefined, apiKey: undefined, vision: 'on', imageMaxSide: 1024 });
      assert.deepEqual(parseCli(['--vision', 'off'], env).options.model, { model: 'llama3.1', baseURL: undefined, apiKey: undefined, vision: 'off' });
      assert.throws(() => parseCli(['--vision', 'maybe'], env), /--vision must be auto, on or off, got "maybe"/);
      assert.throws(() => parseCli(['--image-max-side', '0'], env), /--image-max-side must be an integer from 16 to 16384/);
    });

    it('reads durations, strategies and the token', () => {
      const c = parseCli(['--invoke-timeout', '45s', '--disconnect-strategy', 'suspend', '--max-retries', '5', '--token', 'from-flag-0123456789'], { CLIENT_TOOLS_TOKEN: 'from-env-0123456789' });
      assert.equal(c.options.invokeTimeoutMs, 45_000);
      assert.equal(c.options.disconnectStrategy, 'suspend');
      assert.equal(c.options.maxRetries, 5);
      assert.equal(c.options.token, 'from-flag-0123456789');
      assert.equal(c.options.discoveryFile, undefined);
      assert.equal(c.randomToken, false);
      assert.equal(parseCli(['--invoke-timeout', '30000'], {}).options.invokeTimeoutMs, 30_000);
    });

    it('uses a discovery file in the home folder when the token is random', () => {
      const c = parseCli([], {});
      assert.equal(c.randomToken, true);
      assert.equal(c.options.discoveryFile, path.join(os.homedir(), '.client-tools', 'backends', `${process.pid}.json`));
    });

    it('reads the admission and memory limits, sizes with KiB or MiB', () => {
      const c = parseCli(['--max-connections', '4', '--max-sessions', '9', '--max-pending-sockets', '32', '--headers-timeout', '5s', '--max-buffered-bytes', '16MiB'], {});
      assert.equal(c.options.maxConnections, 4);
      assert.equal(c.options.maxSessions, 9);
      assert.equal(c.options.maxPendingSockets, 32);
      assert.equal(c.options.headersTimeoutMs, 5_000);
      assert.equal(c.options.maxBufferedBytes, 16 * 1024 * 1024);
      assert.equal(parseCli(['--max-buffered-bytes', '512KiB'], {}).options.maxBufferedBytes, 512 * 1024);
      const h = parseCli(['--history-result-bytes', '64KiB', '--history-budget-bytes', '2MiB'], {}).options;
      assert.equal(h.historyResultBytes, 64 * 1024);
      assert.equal(h.historyBudgetBytes, 2 * 1024 * 1024);
      assert.throws(() => parseCli(['--max-buffered-bytes', 'lots'], {}), /--max-buffered-bytes must be a size/);
      assert.throws(() => parseCli(['--max-connections', '0'], {}), /--max-connections must be an integer/);
    });

    it('reads the model stream limits and the quotas per session and per user', () => {
      const o = parseCli(['--model-timeout', '5m', '--model-idle-timeout', '90s', '--model-max-answer-bytes', '2MiB', '--max-tool-argument-bytes', '256KiB', '--max-runs-per-session', '4', '--max-threads-per-session', '32', '--max-connections-per-user', '3', '--max-sessions-per-user', '12'], {}).options;
      assert.equal(o.modelTimeoutMs, 300_000);
      assert.equal(o.modelIdleTimeoutMs, 90_000);
      assert.equal(o.modelMaxAnswerBytes, 2 * 1024 * 1024);
      assert.equal(o.maxToolArgumentBytes, 256 * 1024);
      assert.equal(o.maxRunsPerSession, 4);
      assert.equal(o.maxThreadsPerSession, 32);
      assert.equal(o.maxConnectionsPerUser, 3);
      assert.equal(o.maxSessionsPerUser, 12);
      assert.equal(parseCli(['--credential-check', '2s'], {}).options.credentialCheckMs, 2_000);
      assert.throws(() => parseCli(['--max-runs-per-session', '0'], {}), /--max-runs-per-session must be an integer from 1/);
      assert.throws(() => parseCli(['--model-idle-timeout', 'never'], {}), /--model-idle-timeout must be a duration/);
    });

    it('reads the context window and the compaction mode', () => {
      const o = parseCli(['--context-window', '32768', '--compaction', 'elide'], {}).options;
      assert.equal(o.contextWindow, 32768);
      assert.equal(o.compaction, 'elide');
      assert.equal(parseCli([], {}).options.contextWindow, undefined);
      assert.throws(() => parseCli(['--context-window', '100'], {}), /--context-window must be an integer from 1024/);
      assert.throws(() => parseCli(['--compaction', 'forget'], {}), /--compaction must be summarize or elide/);
    });

    it('refuses bad values with a usage error', () => {
      assert.throws(() => parseCli(['--disconnect-strategy', 'pray'], {}), UsageError);
      assert.throws(() => parseCli(['--port', '70000'], {}), /--port must be an integer/);
      assert.throws(() => parseCli(['--invoke-timeout', 'soon'], {}), /--invoke-timeout must be a duration/);
    });
  });
});
