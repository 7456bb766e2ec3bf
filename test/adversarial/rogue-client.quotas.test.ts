/**
 * Quotas and fairness: one connection, or one user, must not take the backend for itself. Runs in
 * progress and threads kept are capped per session (RUN_LIMIT), with a real model configuration
 * (each run is a model request: 10,000 runs were 10,000 concurrent requests); connections and
 * sessions are capped per named user, so one user's sixteen windows leave room for the others.
 */
import * as assert from 'node:assert/strict';
import { createBackend, type Backend, type BackendOptions } from '../../src/backend';
import { ErrorCode } from '../../src/protocol';
import { TestClient } from '../support/backend-client';
import { startFakeOpenAI, type FakeOpenAI } from '../support/fake-openai';
import { sample } from '../support/ops-http';
import { until } from './support/core-rig';

const TOKEN = 'quotas-token-0123456789abcdef';

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
});

