import { strict as assert } from 'node:assert';
import { createBackend, MemoryStore, type Backend } from '../../../../src/backend';
import { SharedStateError } from '../../../../src/backend/state/sharedState';
import { TestClient } from '../../../support/backend-client';
import type { FakeOpenAI } from '../../../support/fake-openai';
import { startFakeOpenAI } from '../../../support/fake-openai';

const TOKEN = 'outage-token-0123456789abcdef';

/** A memory store whose appends fail as an unreachable shared state does, while `down`. */
class OutageStore extends MemoryStore {
  down = false;
  override append(...args: Parameters<MemoryStore['append']>): Promise<void> {
    if (this.down) return Promise.reject(new SharedStateError('STATE_UNAVAILABLE', 'Redis is not answering'));
    return super.append(...args);
  }
}

describe('backend agent: a store out of reach', () => {
  let fake: FakeOpenAI;
  let backend: Backend;
  let client: TestClient;

  afterEach(async () => {
    await client.drop();
    await backend.close();
    await fake.close();
  });

  it('a message whose save meets an unreachable shared state fails with STATE_UNAVAILABLE (retryable), not INTERNAL; once it answers the next one runs', async () => {
    fake = await startFakeOpenAI();
    const store = new OutageStore();
    backend = await createBackend({ token: TOKEN, store, model: { baseURL: fake.baseURL, model: 'gpt-test', apiKey: 'sk-test', maxRetries: 0 } });
    ({ client } = await TestClient.open(backend.url, TOKEN));
    store.down = true;
    const failed = await client.run('t', 'hello');
    assert.equal(failed.finished.reason, 'error');
    const error = failed.events.find((e) => e.type === 'runError');
    assert.ok(error?.type === 'runError');
    assert.deepEqual({ code: error.code, retryable: error.retryable }, { code: 'STATE_UNAVAILABLE', retryable: true });
    assert.equal(fake.requests.length, 0, 'the model was not called for a message that was not saved');
    store.down = false;
    fake.enqueue({ text: 'Hello.' });
    assert.equal((await client.run('t', 'hello again')).finished.reason, 'completed');
  });
});
