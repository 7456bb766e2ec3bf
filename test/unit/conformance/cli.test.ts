/**
 * `client-tools-conformance` as a command: its arguments, and `--self` end to end (the kit and the
 * reference backend each in their own process, as `npm run conformance -- --self` runs them in CI).
 */
import * as assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import * as path from 'node:path';
import { parseCommand, UsageError } from '../../../src/conformance/cli';
import type { Report } from '../../../src/conformance/report';

const CLI = path.join(__dirname, '../../../src/conformance/cli.ts');

function runCli(args: string[]): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, ['--require', 'tsx/cjs', CLI, ...args], { stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    child.on('exit', (code) => resolve({ code, stdout, stderr }));
  });
}

describe('client-tools-conformance command', function () {
  this.timeout(90_000);

  it('checks a backend at a URL with a token from the flag or CLIENT_TOOLS_TOKEN', () => {
    assert.deepEqual(parseCommand(['ws://127.0.0.1:4000', '--token', 't', '--json'], {}), {
      kind: 'backend', url: 'ws://127.0.0.1:4000', token: 't', json: true, waitMs: 10_000, originCheck: false, prompt: 'read conformance.png',
    });
    const fromEnv = parseCommand(['ws://127.0.0.1:4000', '--origin-check', '--timeout', '2.5'], { CLIENT_TOOLS_TOKEN: 'e' });
    assert.ok(fromEnv.kind === 'backend' && fromEnv.token === 'e' && fromEnv.originCheck && fromEnv.waitMs === 2_500);
  });

  it('serves for an extension with --serve', () => {
    const command = parseCommand(['--serve', '--port', '7000', '--token', 't', '--args', '{"a":1}', '--read', 'logo.png'], {});
    assert.ok(command.kind === 'serve');
    assert.equal(command.port, 7000);
    assert.deepEqual(command.args, { a: 1 });
    assert.equal(command.readPath, 'logo.png');
  });

  it('--check selects checks by id or prefix, and refuses a name that selects none', () => {
    const command = parseCommand(['ws://127.0.0.1:4000', '--token', 't', '--check', 'limits', '--check', 'auth.no-token'], {});
    assert.ok(command.kind === 'backend');
    assert.deepEqual(command.checks, ['limits', 'auth.no-token']);
    assert.throws(() => parseCommand(['ws://127.0.0.1:4000', '--token', 't', '--check', 'limit'], {}), /no check is named "limit"/);
    assert.throws(() => parseCommand(['--serve', '--check', 'ext.invoke'], {}), UsageError);
  });

  it('refuses a missing URL or token, a bad number and a mix of modes', () => {
    assert.throws(() => parseCommand([], {}), UsageError);
    assert.throws(() => parseCommand(['ws://127.0.0.1:4000'], {}), /--token/);
    assert.throws(() => parseCommand(['http://127.0.0.1:4000', '--token', 't'], {}), UsageError);
    assert.throws(() => parseCommand(['--serve', '--port', '70000'], {}), /--port/);
    assert.throws(() => parseCommand(['--serve', '--self'], {}), UsageError);
    assert.throws(() => parseCommand(['--serve', '--args', '[1]'], {}), /--args/);
  });

  it('exits 2 with the usage on a usage error', async () => {
    const { code, stderr } = await runCli(['--no-such-flag']);
    assert.equal(code, 2);
    assert.match(stderr, /Usage:/);
  });

  it('--self --json: checks the reference backend in its own process, prints the report and exits 0', async () => {
    const { code, stdout, stderr } = await runCli(['--self', '--json']);
    assert.equal(code, 0, stderr || stdout);
    const report = JSON.parse(stdout) as Report;
    assert.equal(report.target, 'backend');
    assert.match(report.url, /^ws:\/\/127\.0\.0\.1:\d+$/);
    assert.equal(report.ok, true);
    assert.equal(report.summary.failed, 0);
    assert.ok(report.results.some((r) => r.id === 'tools.binary-frame' && r.status === 'pass'));
  });
});
