import { strict as assert } from 'node:assert';
import type { ChildProcess } from 'node:child_process';
import { spawn } from 'node:child_process';
import * as path from 'node:path';
import * as readline from 'node:readline';
import { parseCli, UsageError } from '../../../../src/backend/cli';
import { TOKEN_HEADER } from '../../../../src/protocol';
import { TestClient, upgradeStatus } from '../../../support/backend-client';
import { httpGet, sample } from '../../../support/ops-http';

const ROOT = path.resolve(__dirname, '../../../..');
const TOKEN = 'cli-ops-token-0123456789abcdef';
const SERVICE_RESTART = 1012;

interface Launched {
  child: ChildProcess;
  port: number;
  /** Every stderr line parsed as JSON (a line that is not JSON fails the test that reads it). */
  logLines: string[];
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
}

/** Starts the CLI from source with JSON logs and waits for its ready line. */
function launch(args: string[]): Promise<Launched> {
  const env: NodeJS.ProcessEnv = { ...process.env, CLIENT_TOOLS_TOKEN: TOKEN };
  for (const k of ['OPENAI_API_KEY', 'OPENAI_BASE_URL', 'CLIENT_TOOLS_MODEL']) delete env[k];
  const child = spawn(process.execPath, ['-r', 'tsx/cjs', 'src/backend/cli.ts', '--log-format', 'json', ...args], { cwd: ROOT, env, stdio: ['ignore', 'pipe', 'pipe'] });
  const logLines: string[] = [];
  readline.createInterface({ input: child.stderr! }).on('line', (l) => logLines.push(l));
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) => child.once('exit', (code, signal) => resolve({ code, signal })));
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`no ready line; stderr: ${logLines.join('\n')}`)), 60_000);
    readline.createInterface({ input: child.stdout! }).on('line', (line) => {
      const m = /^\{"event":"listening","port":(\d+)\}$/.exec(line);
      if (!m) return;
      clearTimeout(timer);
      resolve({ child, port: Number(m[1]), logLines, exited });
    });
    child.once('exit', (code) => reject(new Error(`exited with ${code}: ${logLines.join('\n')}`)));
  });
}

/** The ops port from the JSON log line that announces it. */
function opsPortOf(lines: string[]): number {
  for (const line of lines) {
    const entry = JSON.parse(line) as { msg: string };
    const m = /^operations endpoints on 127\.0\.0\.1:(\d+) /.exec(entry.msg);
    if (m) return Number(m[1]);
  }
  throw new Error(`no ops port in the log: ${lines.join('\n')}`);
}

async function until(what: string, check: () => boolean | Promise<boolean>, timeoutMs = 20_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

describe('backend CLI: operations (--log-format json, --ops-port, drain on SIGTERM)', function () {
  // Each test starts the CLI from source through tsx: seconds on a loaded machine.
  this.timeout(120_000);
  const children: ChildProcess[] = [];
  const clients: TestClient[] = [];
  afterEach(async () => {
    await Promise.all(clients.splice(0).map((c) => c.drop()));
    for (const c of children.splice(0)) if (c.exitCode === null && c.signalCode === null) c.kill('SIGKILL');
  });

  it('on SIGTERM stops admitting, lets the call in progress finish, hands the session over with 1012 and exits 0', async () => {
    const run = await launch(['--ops-port', '0', '--drain-timeout', '60s']);
    children.push(run.child);
    const opsPort = opsPortOf(run.logLines);
    const url = `ws://127.0.0.1:${run.port}`;
    const { client } = await TestClient.open(url, TOKEN);
    clients.push(client);
    // The demo model asks the editor for its selection; the editor holds the answer back.
    client.send({ type: 'userMessage', threadId: 't1', text: 'what is selected?' });
    const request = await client.next('clientToolInvokeRequest', () => true, 20_000);
    assert.equal(request.toolName, 'GetSelection');

    run.child.kill('SIGTERM');
    await until('readyz to say draining', async () => (await httpGet(opsPort, '/readyz')).status === 503);
    assert.equal((await httpGet(run.port, '/readyz')).body, 'not ready: draining\n');
    assert.equal(sample((await httpGet(opsPort, '/metrics')).body, 'client_tools_draining'), 1);
    assert.equal(await upgradeStatus(url, { [TOKEN_HEADER]: TOKEN }), 503);
    assert.equal(client.ws.readyState, client.ws.OPEN, 'a session with a call in progress keeps its connection');

    client.respond(request.requestId, { success: true, content: [{ type: 'text', text: 'const x = 1;' }] });
    assert.equal((await client.next('runFinished', () => true, 20_000)).reason, 'completed');
    assert.equal((await client.closed).code, SERVICE_RESTART);
    assert.deepEqual(await run.exited, { code: 0, signal: null });

    // Structured logs: every line one JSON object with time, level and msg, and never the token.
    assert.ok(run.logLines.length > 3);
    for (const line of run.logLines) {
      const entry = JSON.parse(line) as Record<string, unknown>;
      assert.ok(typeof entry.time === 'string' && !Number.isNaN(Date.parse(entry.time)), line);
      assert.ok(['debug', 'info', 'warn', 'error'].includes(entry.level as string), line);
      assert.equal(typeof entry.msg, 'string', line);
      assert.ok(!line.includes(TOKEN), 'the token is never logged');
    }
    assert.ok(run.logLines.some((l) => (JSON.parse(l) as { msg: string }).msg.startsWith('drained in ')));
  });

  it('a second SIGTERM during the drain stops at once, still with exit code 0', async () => {
    const run = await launch(['--drain-timeout', '10m']);
    children.push(run.child);
    const { client } = await TestClient.open(`ws://127.0.0.1:${run.port}`, TOKEN);
    clients.push(client);
    client.send({ type: 'userMessage', threadId: 't1', text: 'what is selected?' });
    await client.next('clientToolInvokeRequest', () => true, 20_000);
    run.child.kill('SIGTERM');
    await until('the drain to start', () => run.logLines.some((l) => l.includes('SIGTERM: draining')));
    run.child.kill('SIGTERM');
    assert.deepEqual(await run.exited, { code: 0, signal: null });
  });

  it('parses the operations flags and refuses bad ones', () => {
    const c = parseCli(['--log-format', 'json', '--ops-port', '9464', '--ops-host', '0.0.0.0', '--drain-timeout', '45s'], {});
    assert.equal(c.logFormat, 'json');
    assert.equal(c.options.opsPort, 9464);
    assert.equal(c.options.opsHost, '0.0.0.0');
    assert.equal(c.options.drainTimeoutMs, 45_000);
    assert.equal(parseCli([], {}).logFormat, 'text');
    assert.throws(() => parseCli(['--log-format', 'xml'], {}), UsageError);
    assert.throws(() => parseCli(['--ops-port', '70000'], {}), UsageError);
    assert.throws(() => parseCli(['--drain-timeout', 'soon'], {}), UsageError);
  });
});
