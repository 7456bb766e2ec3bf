/**
 * An agent's whole process tree ends with the editor (src/agents/agentLauncher.ts, agentProcess.ts):
 * a stand-in agent that ignores stdin's end of file and SIGHUP and starts a grandchild that ignores
 * SIGTERM, started through the real spawn path; the host that started it is SIGKILLed (no exit
 * handler runs), or disposes the agent. The ACP bytes pass through unchanged.
 */
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { AgentProcess, type AgentExit } from '../../../src/agents/agentProcess';
import { silentLogger } from '../../../src/base/logger';
import { STUBBORN_AGENT } from '../../support/agents/stubborn-agent';

const posix = process.platform !== 'win32';
/** Generous: the launcher notices at once, then gives the group its 2 s of grace. */
const GONE_WITHIN_MS = 15_000;

interface Pids {
  agent: number;
  grandchild: number;
  controlPipe: boolean;
  runAsNode: string | null;
}

/** Alive and not a zombie (a reparented process may wait a moment for init to reap it). */
function alive(pid: number): boolean {
  if (process.platform === 'linux') {
    try {
      const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
      return stat.slice(stat.lastIndexOf(')') + 2, stat.lastIndexOf(')') + 3) !== 'Z';
    } catch {
      return false;
    }
  }
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

async function waitFor<T>(what: string, probe: () => T | undefined, timeoutMs: number): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = probe();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`${what} within ${timeoutMs} ms`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

const readPids = (file: string): Pids | undefined => {
  try {
    return JSON.parse(fs.readFileSync(file, 'utf8')) as Pids;
  } catch {
    return undefined;
  }
};

describe('agent launcher: an agent\'s process tree ends with the editor', function () {
  let dir: string;
  /** Every pid a test saw, killed afterwards whatever the test found (no orphans from a failing run). */
  const seen: number[] = [];

  beforeEach(() => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'client-tools-launcher-'));
  });

  afterEach(() => {
    for (const pid of seen.splice(0)) {
      try {
        process.kill(pid, 'SIGKILL');
      } catch {
        // Gone, as it should be.
      }
    }
    fs.rmSync(dir, { recursive: true, force: true });
  });

  const start = (env: Record<string, string> = {}) => {
    const pidsFile = path.join(dir, 'pids.json');
    const agent = new AgentProcess({ command: process.execPath, args: ['-e', STUBBORN_AGENT], env: { STUBBORN_PIDS: pidsFile, ...env }, cwd: dir }, silentLogger);
    if (agent.pid !== undefined) seen.push(agent.pid);
    return { agent, pids: async () => {
      const pids = await waitFor('the stand-in agent wrote its pids', () => readPids(pidsFile), 20_000);
      seen.push(pids.agent, pids.grandchild);
      return pids;
    } };
  };

  (posix ? it : it.skip)('the host SIGKILLed (no exit handler runs): the agent, which ignores end of file, and its grandchild, which ignores SIGTERM, are gone', async () => {
    const pidsFile = path.join(dir, 'pids.json');
    const host = spawn(process.execPath, ['--require', require.resolve('tsx/cjs'), path.join(__dirname, '../../support/agents/agent-host.ts'), pidsFile], { cwd: dir, stdio: 'ignore' });
    if (host.pid !== undefined) seen.push(host.pid);
    const hostExited = new Promise((r) => host.once('exit', r));
    const pids = await waitFor('the stand-in agent wrote its pids', () => readPids(pidsFile), 20_000);
    seen.push(pids.agent, pids.grandchild);
    assert.ok(alive(pids.agent) && alive(pids.grandchild), 'both run before the host is killed');
    host.kill('SIGKILL');
    await hostExited;
    await waitFor('the agent and its grandchild were gone', () => (!alive(pids.agent) && !alive(pids.grandchild) ? true : undefined), GONE_WITHIN_MS);
  });

  (posix ? it : it.skip)('dispose ends the grandchild too, after the agent itself ended on SIGTERM and left it (the SIGKILL after the grace period still goes to the group)', async () => {
    const { agent, pids } = start();
    const { grandchild } = await pids();
    agent.dispose();
    const exit = await agent.exited;
    assert.equal(exit.signal, 'SIGTERM', 'the launcher ends as the agent did');
    await waitFor('the grandchild was gone', () => (!alive(grandchild) ? true : undefined), GONE_WITHIN_MS);
  });

  (posix ? it : it.skip)('dispose of an agent that ignores SIGTERM: SIGKILL after the grace period ends it and its grandchild', async () => {
    const { agent, pids } = start({ STUBBORN_IGNORE_TERM: '1' });
    const { agent: agentPid, grandchild } = await pids();
    agent.dispose();
    const exit = await agent.exited;
    assert.equal(exit.signal, 'SIGKILL');
    await waitFor('the agent and its grandchild were gone', () => (!alive(agentPid) && !alive(grandchild) ? true : undefined), GONE_WITHIN_MS);
  });

  it('bytes pass unchanged both ways (every byte value, invalid UTF-8, 1 MiB), and the agent gets neither the launcher\'s control pipe nor its ELECTRON_RUN_AS_NODE', async () => {
    const { agent, pids } = start();
    const { controlPipe, runAsNode } = await pids();
    assert.equal(controlPipe, false, 'file descriptor 3 is the launcher\'s, not the agent\'s');
    assert.equal(runAsNode, null, 'the variable only the launcher needed is not the agent\'s');
    const sent = Buffer.alloc(1 << 20);
    for (let i = 0; i < sent.length; i++) sent[i] = (i * 7 + (i >> 8)) & 0xff;
    sent.set([0xc3, 0x28, 0xed, 0xa0, 0x80, 0xff, 0xfe, 0x0a, 0x0d, 0x00], 1000);
    const writer = agent.input.getWriter();
    const reader = agent.output.getReader();
    const received: Buffer[] = [];
    let length = 0;
    const reading = (async () => {
      while (length < sent.length) {
        const { value, done } = await reader.read();
        if (done) break;
        received.push(Buffer.from(value));
        length += value.byteLength;
      }
    })();
    await writer.write(new Uint8Array(sent));
    await reading;
    assert.ok(Buffer.concat(received).equals(sent), 'the echo is the same bytes');
    reader.releaseLock();
    writer.releaseLock();
    agent.dispose();
    await agent.exited;
  });

  it('the agent\'s own exit code reaches the extension through the launcher', async () => {
    const { agent, pids } = start({ STUBBORN_EXIT: '7' });
    await pids();
    const exit: AgentExit = await agent.exited;
    assert.deepEqual({ code: exit.code, signal: exit.signal, spawnError: exit.spawnError }, { code: 7, signal: null, spawnError: undefined });
    agent.dispose();
  });

  it('a command that is not there: the launcher says so on its control pipe, as a spawn error', async () => {
    const agent = new AgentProcess({ command: path.join(dir, 'no-such-agent'), args: [], env: {}, cwd: dir }, silentLogger);
    const exit = await agent.exited;
    assert.equal(exit.spawnError, `${path.join(dir, 'no-such-agent')} was not found`);
    assert.equal(exit.code, null);
    agent.dispose();
  });
});
