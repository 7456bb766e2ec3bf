import { strict as assert } from 'node:assert';
import type { Harness } from '../../../support/backend-harness';
import { eventually, harness } from '../../../support/backend-harness';

describe('backend agent token usage', () => {
  let h: Harness | undefined;
  afterEach(async () => {
    await h?.close();
    h = undefined;
  });

  it('sums each run over its model requests and keeps running totals per thread on runFinished', async () => {
    h = await harness();
    const { client, fake, backend, sessionId } = h;
    fake.enqueue(
      // Run 1, thread t1: a tool turn, then the answer.
      { toolCalls: [{ name: 'get_current_time', id: 'call_time', arguments: { timeZone: 'UTC' } }], usage: { prompt: 1000, completion: 20, cached: 0 } },
      { text: 'It is noon.', usage: { prompt: 1100, completion: 40, cached: 900 } },
      // Run 2, thread t1: an endpoint that does not report cached tokens.
      { text: 'Still noon.', usage: { prompt: 1200, completion: 15, cached: null } },
      // Run 3, another thread: totals of its own.
      { text: 'Hello.', usage: { prompt: 30, completion: 3, cached: 0 } },
    );

    const first = await client.run('t1', 'what time is it?');
    assert.equal(first.finished.reason, 'completed');
    assert.deepEqual(first.finished.usage, {
      inputTokens: 2100, outputTokens: 60, cachedInputTokens: 900,
      thread: { inputTokens: 2100, outputTokens: 60, cachedInputTokens: 900 },
    });

    const second = await client.run('t1', 'and now?');
    assert.deepEqual(second.finished.usage, {
      inputTokens: 1200, outputTokens: 15,
      thread: { inputTokens: 3300, outputTokens: 75, cachedInputTokens: 900 },
    });

    const other = await client.run('t2', 'hi');
    assert.deepEqual(other.finished.usage, { inputTokens: 30, outputTokens: 3, cachedInputTokens: 0, thread: { inputTokens: 30, outputTokens: 3, cachedInputTokens: 0 } });

    // The library sees the same: on its runEvent, and per thread through the API.
    const libraryFinished = h.events.filter((e) => e.type === 'runFinished');
    assert.deepEqual(libraryFinished.map((e) => e.type === 'runFinished' && e.usage?.thread.inputTokens), [2100, 3300, 30]);
    assert.deepEqual(backend.threadUsage(sessionId, 't1'), { inputTokens: 3300, outputTokens: 75, cachedInputTokens: 900 });
    assert.deepEqual(backend.threadUsage(sessionId, 't2'), { inputTokens: 30, outputTokens: 3, cachedInputTokens: 0 });
    assert.equal(backend.threadUsage(sessionId, 'never-used'), undefined);
    assert.equal(backend.threadUsage('no-such-session', 't1'), undefined);

    // A reset thread is a new conversation: its totals start again.
    client.send({ type: 'resetThread', threadId: 't1' });
    await eventually(() => assert.equal(backend.threadUsage(sessionId, 't1'), undefined));
    fake.enqueue({ text: 'Fresh.', usage: { prompt: 10, completion: 2, cached: 0 } });
    const fresh = await client.run('t1', 'new topic');
    assert.deepEqual(fresh.finished.usage?.thread, { inputTokens: 10, outputTokens: 2, cachedInputTokens: 0 });
  });

  it('carries the usage of the requests made before a run failed', async () => {
    h = await harness({}, {}, { maxRetries: 0 });
    h.fake.enqueue({ toolCalls: [{ name: 'get_current_time', id: 'call_time', arguments: {} }], usage: { prompt: 500, completion: 9, cached: 0 } }, { status: 500 });
    const { finished } = await h.client.run('t1', 'time?');
    assert.equal(finished.reason, 'error');
    assert.deepEqual(finished.usage, { inputTokens: 500, outputTokens: 9, cachedInputTokens: 0, thread: { inputTokens: 500, outputTokens: 9, cachedInputTokens: 0 } });
  });

  it('leaves usage out of runFinished when the model reports none (the offline demo model)', async () => {
    h = await harness({ model: 'offline' });
    const { finished } = await h.client.run('t1', 'help');
    assert.equal(finished.reason, 'completed');
    assert.equal('usage' in finished, false);
    assert.equal(h.backend.threadUsage(h.sessionId, 't1'), undefined);
  });
});
