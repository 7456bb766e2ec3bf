/**
 * Quotas and fairness: one connection, or one user, must not take the backend for itself. Runs in
 * progress and threads kept are capped per session (RUN_LIMIT), with a real model configuration
 * (each run is a model request: 10,000 runs were 10,000 concurrent requests); connections and
 * sessions are capped per named user, so one user's sixteen windows leave room for the others.
 */
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { createBackend, type Backend, type BackendOptions } from '../../src/backend';
import { hashToken } from '../../src/backend/auth/tokenHash';
import { ErrorCode } from '../../src/protocol';
import { helloMessage, TestClient } from '../support/backend-client';
import { startFakeOpenAI, type FakeOpenAI } from '../support/fake-openai';
import { sample } from '../support/ops-http';
import { until } from './support/core-rig';

const TOKEN = 'quotas-token-0123456789abcdef';
const ALICE = 'ctt_alice-named-token-0123456789abcdefghijklmno';
const BOB = 'ctt_bob-named-token-0123456789abcdefghijklmnopq';

/** A tokens file naming alice and bob, in a fresh folder. */
function tokensFile(): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'ct-quotas-'));
  const file = path.join(dir, 'tokens');
  fs.writeFileSync(file, `alice sha256:${hashToken(ALICE)}\nbob sha256:${hashToken(BOB)}\n`, { mode: 0o600 });
  return file;
}

describe('rogue client: quotas per session and per user', function () {
  this.timeout(60_000);
  let fake: FakeOpenAI | undefined;
  let backend: Backend;
  const clients: TestClient[] = [];

  async function start(options: BackendOptions = {}): Promise<void> {
    fake = await startFakeOpenAI();
    backend = await createBackend({ token: TOKEN, model: { model: 'fake-model', baseURL: fake.baseURL, apiKey: 'sk-test', maxRetries: 0 }, ...options });
  }

  async function open(): Promise<TestClient> {
    const { client } = await TestClient.open(backend.url, TOKEN);
    clients.push(client);
    return client;
  }

  afterEach(async () => {
    await Promise.all(clients.splice(0).map((c) => c.drop()));
    await backend?.close();
    await fake?.close();
    fake = undefined;
  });

  it('T-QUOTA-04 one connection sends 1,000 messages on 1,000 threads against a model that does not answer: 16 runs start (16 model requests), the others get RUN_LIMIT; once the runs end, a message runs again', async () => {
    await start();
    const model = fake!;
    for (let i = 0; i < 16; i++) model.enqueue({ hang: true });
    const c = await open();
    for (let i = 0; i < 1_000; i++) c.send({ type: 'userMessage', threadId: `t${i}`, text: 'hello' });
    await until(() => c.all('error').length >= 984, '984 refusals', 20_000);
    const refused = c.all('error');
    assert.equal(refused.length, 984);
    for (const e of refused) assert.equal(e.code, ErrorCode.RunLimit);
    assert.match(refused[0].message, /^No run was started on thread "t16": this session already has 16 runs in progress \(limit 16\)\./);
    assert.equal(refused[0].relatedId, 't16');
    assert.equal(c.all('runStarted').length, 16);
    await model.waitForRequests(16);
    assert.equal(model.requests.length, 16, 'one model request per run, none for the refused messages');

    c.send({ type: 'cancel' });
    await until(() => c.all('runFinished').length === 16, 'the 16 runs to end');
    model.enqueue({ text: 'back' });
    const { finished } = await c.run('t999', 'hello again', 10_000);
    assert.equal(finished.reason, 'completed');
  });

  it('T-QUOTA-05 resetThread on 20,000 thread ids never seen: the session keeps at most its thread cap (each reset used to keep a thread with a copy of the tool state)', async () => {
    await start({ maxThreadsPerSession: 8 });
    const c = await open();
    const before = process.memoryUsage().heapUsed;
    for (let i = 0; i < 20_000; i++) c.send({ type: 'resetThread', threadId: `reset-${i}` });
    await until(() => c.all('toolGroupState', (m) => m.threadId === 'reset-19999').length === 1, 'the last reset', 30_000);
    const grown = (process.memoryUsage().heapUsed - before) / 1024 / 1024;
    const kept = sample(await backend.metrics(), 'client_tools_threads_kept');
    assert.equal(kept, 8);
    // The test client keeps the 20,000 toolGroupState messages it received; the backend keeps none of it.
    assert.ok(grown < 200, `heap grew ${grown.toFixed(0)} MiB`);
  });

  it('T-QUOTA-06 alice (a named token) opens 16 connections to a backend of 16: her first 8 get sessions, the others SESSION_LIMIT and close 1013; bob and the shared token still get in', async () => {
    await start({ tokensFile: tokensFile() });
    const outcomes: string[] = [];
    for (let i = 0; i < 16; i++) {
      const c = await TestClient.connect(backend.url, ALICE);
      clients.push(c);
      c.send(helloMessage());
      outcomes.push(await Promise.race([c.next('welcome').then(() => 'welcome'), c.next('error').then((e) => e.code)]));
    }
    assert.deepEqual(outcomes, [...Array(8).fill('welcome'), ...Array(8).fill(ErrorCode.SessionLimit)]);
    const refused = clients[8];
    assert.equal((await refused.closed).code, 1013);
    assert.match(refused.all('error')[0].message, /^No new session was started: this user already has 8 sessions connected \(limit 8 per user\); close one \(another editor window\) and connect again\.$/);
    const { client: bob } = await TestClient.open(backend.url, BOB);
    clients.push(bob);
    const { client: shared } = await TestClient.open(backend.url, TOKEN);
    clients.push(shared);
    // Alice closes a window: her next connection is let in.
    await clients[0].close();
    await attachedSessions(backend, 9);
    const { client: again } = await TestClient.open(backend.url, ALICE);
    clients.push(again);
  });

  it('T-QUOTA-07 alice\'s sessions kept (detached ones too) are capped: an idle detached one makes room, one holding a thread is never evicted; with none idle, SESSION_LIMIT', async () => {
    await start({ tokensFile: tokensFile(), maxSessionsPerUser: 2 });
    const a = await TestClient.open(backend.url, ALICE);
    fake!.enqueue({ text: 'kept' }, { text: 'kept too' });
    await a.client.run('t1', 'remember this', 10_000);
    await a.client.drop();
    const b = await TestClient.open(backend.url, ALICE);
    await b.client.drop();
    // Alice keeps two: the idle one (b) makes room, a holds a thread and stays.
    const c = await TestClient.open(backend.url, ALICE);
    clients.push(c.client);
    await c.client.run('t2', 'remember this too', 10_000);
    await c.client.drop();
    const d = await TestClient.connect(backend.url, ALICE);
    clients.push(d);
    d.send(helloMessage());
    assert.equal((await d.next('error')).code, ErrorCode.SessionLimit);
    const resumed = await TestClient.open(backend.url, ALICE, { resumeSession: a.welcome.sessionId, resumeSecret: a.welcome.resumeSecret });
    clients.push(resumed.client);
    assert.equal(resumed.welcome.resumed, true, 'the session holding a thread was kept');
    assert.equal(resumed.welcome.sessionId, a.welcome.sessionId);
  });
});

/** Waits until the backend has `count` attached sessions (read from /metrics). */
async function attachedSessions(backend: Backend, count: number): Promise<void> {
  const deadline = Date.now() + 5_000;
  while (sample(await backend.metrics(), 'client_tools_sessions', { state: 'attached' }) !== count) {
    if (Date.now() > deadline) throw new Error(`the backend never had ${count} attached sessions`);
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}
