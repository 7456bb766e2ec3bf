/**
 * The supervision behind RunInTerminal on real processes: a real shell, real process groups and
 * real signals. Bounds are generous (seconds); the only lower bound is the grace period itself.
 */
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { commandEnv, commandShell, HOST_ONLY_ENV, KILL_GRACE_MS, SupervisedProcess, type ProcessEnd, type ProcessRequest } from '../../../../src/tools/terminal/processSupervisor';

type Started = Extract<ProcessEnd, { started: true }>;

describe('processSupervisor: commands as supervised processes (real processes)', function () {
  this.timeout(30_000);
  let dir: string;
  beforeEach(() => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'process-supervisor-'));
  });
  /** Every process a test started, so a failing test leaves nothing running. */
  const started: SupervisedProcess[] = [];
  afterEach(() => {
    for (const proc of started.splice(0)) {
      proc.stop('now');
      proc.hangUp();
    }
    fs.rmSync(dir, { recursive: true, force: true });
  });

  const never = new AbortController().signal;
  const supervise = (...args: ConstructorParameters<typeof SupervisedProcess>): SupervisedProcess => {
    const proc = new SupervisedProcess(...args);
    started.push(proc);
    return proc;
  };
  const request = (command: string, more: Partial<ProcessRequest> = {}): ProcessRequest => ({ command, cwd: dir, shell: true, timeoutMs: 20_000, maxOutputChars: 100_000, ...more });
  /** Runs the command to its end; `started: false` fails the test. */
  async function run(command: string, more: Partial<ProcessRequest> = {}, signal = never): Promise<Started> {
    const end = await supervise(request(command, more), { signal }).ended;
    assert.ok(end.started, `did not start: ${end.started ? '' : end.error.message}`);
    return end;
  }
  /** Starts the command and waits until its output includes `marker`. */
  async function startAndWaitFor(command: string, marker: string, signal = never): Promise<{ proc: SupervisedProcess; output: () => string }> {
    let output = '';
    let seen: () => void = () => undefined;
    const ready = new Promise<void>((resolve) => (seen = resolve));
    const proc = supervise(request(command), {
      signal,
      onOutput: (d) => {
        output += d;
        if (output.includes(marker)) seen();
      },
    });
    await Promise.race([ready, proc.ended.then(() => assert.fail(`ended before printing ${marker}: ${output}`))]);
    return { proc, output: () => output };
  }
  const alive = (pid: number): boolean => {
    try {
      process.kill(pid, 0);
      return true;
    } catch {
      return false;
    }
  };
  async function waitUntilGone(pids: number[]): Promise<void> {
    const deadline = Date.now() + 10_000;
    while (pids.some(alive)) {
      if (Date.now() > deadline) assert.fail(`still running: ${pids.filter(alive).join(', ')}`);
      await new Promise((r) => setTimeout(r, 50));
    }
  }

  it('reports the exit code and stdout and stderr together, as the command printed them', async () => {
    const end = await run('echo to-stdout; echo to-stderr >&2; exit 3');
    assert.deepEqual([end.exitCode, end.timedOut, end.stopped, end.truncated, end.signal], [3, false, false, false, null]);
    assert.match(end.output, /to-stdout\n/);
    assert.match(end.output, /to-stderr\n/);
  });

  it('runs in the given folder, through the given shell', async () => {
    const end = await run('pwd; echo "$0"', { shell: '/bin/bash' });
    assert.deepEqual([end.exitCode, end.output], [0, `${fs.realpathSync(dir)}\n/bin/bash\n`]);
  });

  it('drains output that is still in the pipes when the shell exits', async () => {
    const end = await run(`"${process.execPath}" -e "process.stdout.write('x'.repeat(300000)); process.stdout.write('END')"`, { maxOutputChars: 1_000_000 });
    assert.equal(end.exitCode, 0);
    assert.equal(end.output, `${'x'.repeat(300_000)}END`);
  });

  it('keeps output that arrives after the shell exits, within the drain period', async () => {
    const end = await supervise(request('(sleep 1; echo late-output) & echo early-output'), { signal: never, drainMs: 10_000 }).ended;
    assert.ok(end.started);
    assert.deepEqual([end.exitCode, end.output], [0, 'early-output\nlate-output\n']);
  });

  it('keeps the start and end of output past the cap and says it was truncated', async () => {
    const end = await run(`echo FIRST-LINE; "${process.execPath}" -e "process.stdout.write('y'.repeat(50000))"; echo; echo LAST-LINE`, { maxOutputChars: 1_000 });
    assert.equal(end.truncated, true);
    assert.ok(end.output.length < 1_200, `kept ${end.output.length} characters`);
    assert.match(end.output, /^FIRST-LINE\n/);
    assert.match(end.output, /LAST-LINE\n$/);
    assert.match(end.output, /characters of output omitted/);
  });

  it('closes stdin, so a command that reads input gets end-of-file at once', async () => {
    const end = await run('read answer || echo no-input', { timeoutMs: 20_000 });
    assert.deepEqual([end.exitCode, end.output, end.timedOut], [0, 'no-input\n', false]);
  });

  it('ends the call when the shell exits although a background job holds the output open; hangUp() then ends the job', async () => {
    const started = Date.now();
    const proc = supervise(request('sleep 40 & echo $!'), { signal: never });
    const end = await proc.ended;
    assert.ok(end.started);
    assert.equal(end.exitCode, 0);
    assert.ok(Date.now() - started < 10_000, `took ${Date.now() - started} ms`);
    const job = Number(end.output.trim());
    assert.ok(job > 0, end.output);
    assert.equal(alive(job), true, 'the background job should run on until hung up, as in a terminal');
    proc.hangUp();
    await waitUntilGone([job]);
  });

  it('interrupt sends SIGINT to the whole process group: a child and the grandchild it started both get it and end', async () => {
    const marker = path.join(dir, 'grandchild-got-sigint');
    const grandchild = `process.on('SIGINT', () => { require('fs').writeFileSync(${JSON.stringify(marker)}, 'INT'); process.exit(0); }); console.log('grandchild-ready'); setInterval(() => {}, 1000);`;
    const parent = `const gc = require('child_process').spawn(process.execPath, ['-e', ${JSON.stringify(grandchild)}], { stdio: 'inherit' }); console.log('pids', process.pid, gc.pid); setInterval(() => {}, 1000);`;
    fs.writeFileSync(path.join(dir, 'parent.js'), parent);
    const { proc, output } = await startAndWaitFor(`"${process.execPath}" parent.js`, 'grandchild-ready');
    const pids = (/pids (\d+) (\d+)/.exec(output()) ?? assert.fail(output())).slice(1).map(Number);
    assert.deepEqual(pids.map(alive), [true, true]);

    proc.stop('interrupt');
    const end = await proc.ended;
    assert.ok(end.started);
    assert.deepEqual([end.exitCode, end.stopped, end.timedOut], [undefined, true, false]);
    await waitUntilGone(pids);
    assert.equal(fs.readFileSync(marker, 'utf8'), 'INT', 'the grandchild did not get SIGINT');
  });

  it('a command that traps SIGINT finishes its own way, with its exit code, and is reported as stopped', async () => {
    const { proc, output } = await startAndWaitFor("trap 'echo got-INT; exit 2' INT; echo ready-for-int; while true; do sleep 0.1; done", 'ready-for-int');
    proc.stop('interrupt');
    const end = await proc.ended;
    assert.ok(end.started);
    assert.deepEqual([end.exitCode, end.stopped, end.timedOut], [2, true, false]);
    assert.match(output(), /ready-for-int\n[\s\S]*got-INT/);
  });

  it('a command that ignores SIGINT is killed with SIGKILL after the grace period', async () => {
    const { proc } = await startAndWaitFor("trap '' INT; echo ignoring-int; while true; do sleep 0.1; done", 'ignoring-int');
    const stoppedAt = Date.now();
    proc.stop('interrupt');
    const end = await proc.ended;
    const took = Date.now() - stoppedAt;
    assert.ok(end.started);
    assert.deepEqual([end.exitCode, end.signal, end.stopped], [undefined, 'SIGKILL', true]);
    assert.ok(took >= KILL_GRACE_MS - 100, `killed after ${took} ms, before the ${KILL_GRACE_MS} ms grace period`);
    assert.ok(took < 15_000, `took ${took} ms`);
  });

  it("stop('now') kills at once with SIGKILL, without asking first", async () => {
    const { proc, output } = await startAndWaitFor("trap 'echo got-TERM' TERM; trap 'echo got-INT' INT; echo ready; while true; do sleep 0.1; done", 'ready');
    proc.stop('now');
    const end = await proc.ended;
    assert.ok(end.started);
    assert.deepEqual([end.exitCode, end.signal, end.stopped], [undefined, 'SIGKILL', true]);
    assert.doesNotMatch(output(), /got-(TERM|INT)/);
  });

  it('stops a command at the time limit: timed out, no exit code', async () => {
    const started = Date.now();
    const end = await run('sleep 30', { timeoutMs: 1_000 });
    assert.deepEqual([end.timedOut, end.exitCode, end.stopped], [true, undefined, true]);
    assert.ok(Date.now() - started < 15_000, `took ${Date.now() - started} ms`);
  });

  it('aborting the signal stops the command with SIGTERM; a signal aborted before the start stops it at once', async () => {
    const abort = new AbortController();
    const { proc } = await startAndWaitFor('echo waiting; sleep 31', 'waiting', abort.signal);
    abort.abort();
    const end = await proc.ended;
    assert.ok(end.started);
    assert.deepEqual([end.exitCode, end.timedOut, end.stopped, end.signal], [undefined, false, true, 'SIGTERM']);

    const started = Date.now();
    const early = await run('sleep 33', {}, AbortSignal.abort());
    assert.deepEqual([early.exitCode, early.timedOut, early.stopped], [undefined, false, true]);
    assert.ok(Date.now() - started < 10_000, `took ${Date.now() - started} ms`);
  });

  it('reports a command that could not start (missing folder) instead of throwing', async () => {
    const end = await supervise(request('echo hi', { cwd: path.join(dir, 'missing') }), { signal: never }).ended;
    assert.equal(end.started, false);
    assert.match(end.started ? '' : end.error.message, /ENOENT/);
  });

  it("does not pass the host's own variables (IPC sockets, Electron-as-Node) to the command, and passes the rest", async () => {
    const saved = { ...process.env };
    try {
      for (const key of HOST_ONLY_ENV) process.env[key] = `host-secret-${key}`;
      process.env.CLIENT_TOOLS_TEST_KEPT = 'kept-value';
      const end = await run('env');
      assert.doesNotMatch(end.output, /host-secret-/);
      assert.match(end.output, /^CLIENT_TOOLS_TEST_KEPT=kept-value$/m);
      assert.match(end.output, /^PYTHONUNBUFFERED=1$/m);
    } finally {
      for (const key of [...HOST_ONLY_ENV, 'CLIENT_TOOLS_TEST_KEPT']) {
        if (saved[key] === undefined) delete process.env[key];
        else process.env[key] = saved[key];
      }
    }
    assert.deepEqual(commandEnv({ VSCODE_IPC_HOOK: '/tmp/sock', PATH: '/bin', PYTHONUNBUFFERED: '0' }), { PATH: '/bin', PYTHONUNBUFFERED: '0' });
  });

  it('uses the user\'s shell only when it takes -c, else the default shell', () => {
    assert.equal(commandShell('/usr/bin/zsh'), '/usr/bin/zsh');
    assert.equal(commandShell('/opt/microsoft/powershell/7/pwsh'), '/opt/microsoft/powershell/7/pwsh');
    assert.equal(commandShell('/usr/bin/nu'), true);
    assert.equal(commandShell(undefined), true);
  });
});
