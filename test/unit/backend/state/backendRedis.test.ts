/**
 * The backend with `redis`: conversations live in a real redis-server that two backends share, and
 * a Redis outage is a coded error the client sees, after which the same backend works again.
 */
import { strict as assert } from 'node:assert';
import type { Backend } from '../../../../src/backend';
import { createBackend } from '../../../../src/backend';
import { RedisSharedState } from '../../../../src/backend/state/redisSharedState';
import { SharedStateError } from '../../../../src/backend/state/sharedState';
import type { LogLevel } from '../../../../src/base/logger';
import { TestClient } from '../../../support/backend-client';
import type { FakeOpenAI } from '../../../support/fake-openai';
import { startFakeOpenAI } from '../../../support/fake-openai';
import { startRedis, type RedisServer } from '../../../support/redisServer';

const TOKEN = 'redis-token-0123456789abcdef';

describe('backend on Redis (--redis)', () => {
  let redis: RedisServer;
  let fake: FakeOpenAI;
  const open: { backend: Backend; client: TestClient }[] = [];
  const lines: string[] = [];
  let n = 0;

  beforeEach(async () => {
    redis = await startRedis();
    fake = await startFakeOpenAI();
  });
  afterEach(async () => {
    for (const o of open.splice(0)) {
      await o.client.drop();
      await o.backend.close();
    }
    await fake.close();
    await redis.stop();
    lines.length = 0;
  });

  async function start(url = redis.url): Promise<TestClient> {
    const backend = await createBackend({
      token: TOKEN,
      redis: url,
      replica: `replica-${++n}`,
      model: { baseURL: fake.baseURL, model: 'gpt-test', apiKey: 'sk-test', maxRetries: 0 },
      log: (level: LogLevel, message: string) => lines.push(`${level} ${message}`),
    });
    const { client } = await TestClient.open(backend.url, TOKEN);
    open.push({ backend, client });
    return client;
  }

  it('a thread begun on one backend continues on another with its history, tool call and result included', async function () {
    this.timeout(30_000);
    const a = await start();
    const b = await start();
    fake.enqueue({ toolCalls: [{ name: 'get_current_time', id: 'call_time' }] }, { text: 'Noted: PELICAN.' });
    assert.equal((await a.run('thread-A', 'Remember PELICAN.')).finished.reason, 'completed');
    fake.enqueue({ text: 'It was PELICAN.' });
    assert.equal((await b.run('thread-A', 'Which word?')).finished.reason, 'completed');
    const body = fake.requests[fake.requests.length - 1].body;
    assert.deepEqual(body.messages.map((m) => m.role), ['system', 'user', 'assistant', 'tool', 'assistant', 'user']);
    assert.equal(body.messages[1].content, 'Remember PELICAN.');
  });

  it('while Redis is down a message gets a coded, retryable error quickly; once Redis is back the same backend works', async function () {
    this.timeout(60_000);
    const client = await start();
    fake.enqueue({ text: 'before' });
    assert.equal((await client.run('thread-1', 'hello')).finished.reason, 'completed');

    await redis.stop();
    const t0 = Date.now();
    const failed = await client.run('thread-2', 'are you there?', 15_000);
    assert.equal(failed.finished.reason, 'error');
    const error = failed.events.find((e) => e.type === 'runError');
    assert.ok(error?.type === 'runError');
    // With --redis the run first takes its thread's lease in Redis: that is what fails (failover).
    assert.equal(error.code, 'STATE_UNAVAILABLE');
    assert.equal(error.retryable, true);
    assert.match(error.message, /did not start.*Redis is unavailable/);
    assert.ok(Date.now() - t0 < 10_000, `the error came in ${Date.now() - t0} ms`);
    assert.equal(fake.requests.length, 1, 'the model was not called for a message that was not saved');

    await redis.restart();
    // The client retries as a user would; the backend reconnects to Redis by itself.
    const deadline = Date.now() + 20_000;
    for (;;) {
      fake.enqueue({ text: 'back' });
      const again = await client.run('thread-3', 'and now?', 15_000);
      if (again.finished.reason === 'completed') break;
      fake.requests.length = 0;
      assert.ok(Date.now() < deadline, 'the backend did not work again within 20 s of Redis restarting');
      await new Promise((r) => setTimeout(r, 250));
    }
    assert.ok(lines.some((l) => /Redis at redis:\/\/127\.0\.0\.1:\d+: connected again/.test(l)), lines.join('\n'));
  });

  it('a thread whose load failed while Redis hung is loaded again once Redis answers: its history is not lost', async function () {
    this.timeout(60_000);
    const a = await start();
    fake.enqueue({ text: 'Noted: HERON.' });
    assert.equal((await a.run('thread-H', 'Remember HERON.')).finished.reason, 'completed');

    const b = await start();
    redis.pause();
    let failed;
    try {
      failed = await b.run('thread-H', 'Which word?', 20_000);
    } finally {
      redis.resume();
    }
    assert.equal(failed.finished.reason, 'error');
    // With --redis the run's lease is taken first (failover), so that is what reports the outage.
    assert.ok(failed.events.some((e) => e.type === 'runError' && e.code === 'STATE_UNAVAILABLE' && e.retryable), 'a coded, retryable error');
    assert.equal(fake.requests.length, 1, 'the model was not called for the failed message');

    fake.enqueue({ text: 'It was HERON.' });
    const again = await b.run('thread-H', 'Which word?', 20_000);
    assert.equal(again.finished.reason, 'completed');
    const body = fake.requests[fake.requests.length - 1].body;
    assert.deepEqual(body.messages.map((m) => m.role), ['system', 'user', 'assistant', 'user']);
    assert.equal(body.messages[1].content, 'Remember HERON.');
  });

  it('refuses to start when Redis cannot be reached, with STATE_UNAVAILABLE, and never logs the password', async function () {
    this.timeout(30_000);
    const port = redis.port;
    await redis.stop();
    await assert.rejects(
      createBackend({ token: TOKEN, redis: `redis://user:s3cret-pass@127.0.0.1:${port}`, log: (level: LogLevel, message: string) => lines.push(message) }),
      (e: unknown) => e instanceof SharedStateError && e.code === 'STATE_UNAVAILABLE' && !e.message.includes('s3cret') && e.message.includes('***@127.0.0.1'),
    );
    assert.ok(!lines.join('\n').includes('s3cret'), lines.join('\n'));
  });

  it('refuses redis together with dataDir or store, and a URL that is not a Redis one', async () => {
    await assert.rejects(createBackend({ redis: redis.url, dataDir: '/tmp/x' }), /redis and dataDir cannot be used together/);
    const state = await RedisSharedState.connect({ url: redis.url });
    try {
      await assert.rejects(createBackend({ redis: redis.url, store: state.store }), /redis and store cannot be used together/);
    } finally {
      await state.close();
    }
    await assert.rejects(createBackend({ redis: 'http://127.0.0.1:6379' }), /redis:\/\/ or rediss:\/\//);
  });

  it('uses a shared state passed in, and leaves it open on close', async function () {
    this.timeout(30_000);
    const state = await RedisSharedState.connect({ url: redis.url, prefix: 'mine:' });
    try {
      const backend = await createBackend({ token: TOKEN, sharedState: state, model: { baseURL: fake.baseURL, model: 'gpt-test', apiKey: 'sk-test', maxRetries: 0 } });
      const { client } = await TestClient.open(backend.url, TOKEN);
      open.push({ backend, client });
      fake.enqueue({ text: 'kept' });
      await client.run('thread-S', 'save me');
      await client.drop();
      await backend.close();
      open.pop();
      assert.deepEqual((await state.store.load('thread-S'))?.messages.map((m) => m.content), ['save me', 'kept']);
      const own = await createBackend({ redis: redis.url, log: (level: LogLevel, message: string) => lines.push(`${level} ${message}`) });
      await own.close();
      assert.ok(!lines.some((l) => l.includes('connection lost')), 'closing on purpose is no outage');
    } finally {
      await state.close();
    }
  });
});
