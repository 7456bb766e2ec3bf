/**
 * Two backend processes on one data folder, as the bundled backends of two VS Code windows share
 * the extension's global storage, or two CLIs given one --data-dir: the built CLI
 * (dist/backend/cli.js) twice, the real OpenAI SDK against the fake endpoint, both writing one
 * thread. After a restart the thread must hold every message, each followed by its own answer.
 * Before the thread leases, a reload found 1 of 50 messages.
 */
import * as assert from 'node:assert/strict';
import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { promisify } from 'node:util';
import { ErrorCode } from '../../src/protocol';
import { delay, TestClient } from '../support/backend-client';
import { startFakeOpenAI, type ChatRequestMessage, type FakeOpenAI } from '../support/fake-openai';

const ROOT = path.join(__dirname, '..', '..');
const CLI = path.join(ROOT, 'dist', 'backend', 'cli.js');
const TOKEN = 'two-processes-token-0123456789abcdef';
const THREAD = 'shared-thread';
const PER_CLIENT = 25;
const HANG = 'the run that dies';

class CliProcess {
  private constructor(
    private readonly child: ChildProcess,
    readonly url: string,
    readonly stderr: string[],
  ) {}

  static start(dataDir: string, fake: FakeOpenAI): Promise<CliProcess> {
    const env = { ...process.env, CLIENT_TOOLS_TOKEN: TOKEN, OPENAI_API_KEY: 'sk-test', NODE_OPTIONS: '' };
    const child = spawn(process.execPath, [CLI, '--port', '0', '--data-dir', dataDir, '--base-url', fake.baseURL, '--model', 'fake-model', '--log-level', 'warn'], { env, stdio: ['ignore', 'pipe', 'pipe'] });
    const stderr: string[] = [];
    child.stderr!.on('data', (d: Buffer) => stderr.push(d.toString()));
    return new Promise((resolve, reject) => {
      let out = '';
      child.stdout!.on('data', (d: Buffer) => {
        out += d.toString();
        const m = /\{"event":"listening","port":(\d+)\}/.exec(out);
        if (m) resolve(new CliProcess(child, `ws://127.0.0.1:${m[1]}`, stderr));
      });
      child.once('exit', (code) => reject(new Error(`the backend exited (${code}) before listening: ${stderr.join('')}`)));
    });
  }

  /** SIGKILL: a crash in the middle of whatever it does. */
  kill(): Promise<void> {
    if (this.child.exitCode !== null || this.child.signalCode !== null) return Promise.resolve();
    return new Promise((resolve) => {
      this.child.once('exit', () => resolve());
      this.child.kill('SIGKILL');
    });
  }

  stop(): Promise<void> {
    if (this.child.exitCode !== null || this.child.signalCode !== null) return Promise.resolve();
    return new Promise((resolve) => {
      this.child.once('exit', () => resolve());
      this.child.kill('SIGINT');
    });
  }
}

/** The text of the last user message of a request: what the fake model answers to. */
function lastUser(messages: ChatRequestMessage[]): string {
  const m = [...messages].reverse().find((x) => x.role === 'user');
  return typeof m?.content === 'string' ? m.content : '';
}

/** Sends `texts` one after another on THREAD, each once the one before was answered; a RUN_BUSY is sent again shortly after. */
async function converse(client: TestClient, texts: string[]): Promise<void> {
  for (const text of texts) {
    for (;;) {
      const errorsBefore = client.all('error').length;
      const startedBefore = client.all('runStarted').length;
      client.send({ type: 'userMessage', threadId: THREAD, text });
      const deadline = Date.now() + 30_000;
      while (client.all('error').length === errorsBefore && client.all('runStarted').length === startedBefore) {
        if (Date.now() > deadline) throw new Error(`"${text}": no runStarted and no error within 30 s`);
        await delay(5);
      }
      const started = client.all('runStarted')[startedBefore];
      if (started) {
        const finished = await client.next('runFinished', (m) => m.runId === started.runId, 30_000);
        assert.equal(finished.reason, 'completed', `"${text}" ended ${finished.reason}: ${JSON.stringify(client.all('runError'))}`);
        break;
      }
      const refused = client.all('error')[errorsBefore];
      assert.equal(refused.code, ErrorCode.RunBusy, `"${text}" was refused: ${refused.code} ${refused.message}`);
      await delay(20 + Math.random() * 30);
    }
  }
}

describe('conversation store: two processes on one data folder', function () {
  this.timeout(180_000);
  let dir: string;
  let fake: FakeOpenAI;
  const processes: CliProcess[] = [];
  const clients: TestClient[] = [];

  before(async function () {
    this.timeout(180_000);
    if (!existsSync(CLI)) await promisify(execFile)(process.execPath, ['esbuild.mjs'], { cwd: ROOT });
  });

  beforeEach(async () => {
    dir = mkdtempSync(path.join(tmpdir(), 'ct-two-processes-'));
    fake = await startFakeOpenAI();
    // Echoes the last user message; the message HANG is never answered (its process is killed meanwhile).
    for (let i = 0; i < 400; i++) fake.enqueue((request) => (lastUser(request.body.messages) === HANG ? { hang: true } : { text: `reply to ${lastUser(request.body.messages)}` }));
  });

  afterEach(async () => {
    await Promise.all(clients.splice(0).map((c) => c.drop()));
    await Promise.all(processes.splice(0).map((p) => p.stop()));
    await fake.close();
    rmSync(dir, { recursive: true, force: true });
  });

  async function start(): Promise<CliProcess> {
    const p = await CliProcess.start(path.join(dir, 'data'), fake);
    processes.push(p);
    return p;
  }

  async function open(p: CliProcess): Promise<TestClient> {
    const { client } = await TestClient.open(p.url, TOKEN);
    clients.push(client);
    return client;
  }

  it('T-STORE-01 two CLI processes write one thread, 25 messages each, at the same time: after a restart the thread holds all 50, each followed by its own answer, in one order', async () => {
    const [first, second] = [await start(), await start()];
    const [a, b] = [await open(first), await open(second)];
    const aTexts = Array.from({ length: PER_CLIENT }, (_, i) => `a-${i}`);
    const bTexts = Array.from({ length: PER_CLIENT }, (_, i) => `b-${i}`);
    await Promise.all([converse(a, aTexts), converse(b, bTexts)]);

    await Promise.all(clients.splice(0).map((c) => c.drop()));
    await Promise.all(processes.splice(0).map((p) => p.stop()));
    const third = await start();
    const c = await open(third);
    const requestsBefore = fake.requests.length;
    await converse(c, ['final']);
    const history = fake.requests[requestsBefore].body.messages.filter((m) => m.role === 'user' || m.role === 'assistant');
    const users = history.filter((m) => m.role === 'user').map((m) => String(m.content));
    assert.deepEqual([...users].sort(), [...aTexts, ...bTexts, 'final'].sort(), 'every message is in the thread once');
    assert.deepEqual(users.filter((t) => t.startsWith('a-')), aTexts, "a's messages in the order sent");
    assert.deepEqual(users.filter((t) => t.startsWith('b-')), bTexts, "b's messages in the order sent");
    for (let i = 0; i < history.length - 1; i++) {
      if (history[i].role !== 'user') continue;
      assert.equal(history[i + 1].role, 'assistant', `"${String(history[i].content)}" is followed by an answer`);
      assert.equal(history[i + 1].content, `reply to ${String(history[i].content)}`, 'each answer follows its own message');
    }
  });

  it('T-STORE-02 the process running a thread is killed mid-run (its lease left behind): the other process, which held the thread in memory from before, takes it over at once and reloads what the dead one wrote', async () => {
    const [first, second] = [await start(), await start()];
    const [a, b] = [await open(first), await open(second)];
    await converse(b, ['b first']);
    await converse(a, ['before the crash']);
    const queued = fake.requests.length;
    a.send({ type: 'userMessage', threadId: THREAD, text: HANG });
    await a.next('runStarted', () => true, 10_000);
    await fake.waitForRequests(queued + 1, 10_000);
    await first.kill();
    const t0 = performance.now();
    await converse(b, ['after the crash']);
    assert.ok(performance.now() - t0 < 10_000, 'the dead process\'s lease did not hold the thread');
    const users = fake.requests[fake.requests.length - 1].body.messages.filter((m) => m.role === 'user').map((m) => String(m.content));
    assert.deepEqual(users, ['b first', 'before the crash', HANG, 'after the crash']);
  });
});
