/**
 * A model endpoint that sends values the protocol cannot carry: usage counts past 2^53 or below 0,
 * a tool name thousands of characters long. Found by the freeze-and-bloat fuzzer (the Responses
 * entry): the backend passed them on, the editor refused `runFinished` and `toolCallStarted` as
 * INVALID_MESSAGE, and its chat never saw the run end. Every message the backend sends must decode.
 */
import * as assert from 'node:assert/strict';
import { createBackend, type Backend } from '../../src/backend';
import { TestClient } from '../support/backend-client';
import { startFakeOpenAI, type FakeOpenAI } from '../support/fake-openai';

const TOKEN = 'values-token-0123456789abcdef';

type Wire = 'chat' | 'responses';

interface Rig {
  fake: FakeOpenAI;
  backend: Backend;
  client: TestClient;
}

async function open(api: Wire): Promise<Rig> {
  const fake = await startFakeOpenAI();
  const backend = await createBackend({ token: TOKEN, model: { model: 'fake-model', baseURL: fake.baseURL, apiKey: 'sk-test', maxRetries: 0, ...(api === 'responses' ? { api } : {}) } });
  const { client } = await TestClient.open(backend.url, TOKEN);
  return { fake, backend, client };
}

async function close(rig: Rig | undefined): Promise<void> {
  await rig?.client.drop();
  await rig?.backend.close();
  await rig?.fake.close();
}

/** Impossible usage counts: not reported, the run finishes with a `runFinished` the editor decodes. */
async function usageCase({ fake, client }: Rig): Promise<void> {
  fake.enqueue({ text: 'one', usage: { prompt: 1e308, completion: 7 } });
  let r = await client.run('t1', 'hi', 10_000);
  assert.equal(r.finished.reason, 'completed');
  assert.equal(r.finished.usage, undefined, 'a request whose counts cannot be numbers reports no usage');
  fake.enqueue({ text: 'two', usage: { prompt: 2 ** 53 + 2, completion: -5, cached: 3 } });
  r = await client.run('t1', 'again', 10_000);
  assert.equal(r.finished.usage, undefined);
  fake.enqueue({ text: 'three', usage: { prompt: 40, completion: 2, cached: 1e300 } });
  r = await client.run('t1', 'and again', 10_000);
  assert.deepEqual(r.finished.usage, { inputTokens: 40, outputTokens: 2, thread: { inputTokens: 40, outputTokens: 2 } }, 'valid counts are kept, an impossible cached count is left out');
  assert.deepEqual(client.undecodable, []);
}

/** A 5,000-character tool name: the card shows its first 200 characters, the call fails as unknown, the run goes on. */
async function longNameCase({ fake, client }: Rig): Promise<void> {
  const name = `x${'('.repeat(4_999)}`;
  fake.enqueue({ toolCalls: [{ name, arguments: {} }] }, { text: 'done' });
  const r = await client.run('t1', 'call it', 10_000);
  assert.equal(r.finished.reason, 'completed');
  const [started] = client.all('toolCallStarted', (m) => m.runId === r.runId);
  assert.ok(started, 'the call has a card');
  assert.equal(started.toolName, name.slice(0, 200));
  const [ended] = client.all('toolCallEnded', (m) => m.runId === r.runId);
  assert.equal(ended.outcome, 'failed');
  assert.deepEqual(client.undecodable, []);
}

describe('rogue model endpoint (Chat Completions): values the protocol cannot carry', function () {
  this.timeout(30_000);
  let rig: Rig | undefined;
  afterEach(async () => close(rig));

  it('T-VALUE-01 usage counts of 1e308, 2^53 + 2 and -5: the run finishes with a runFinished the editor accepts, the bad counts not reported', async () => {
    rig = await open('chat');
    await usageCase(rig);
  });

  it('T-VALUE-02 a tool name of 5,000 characters: the call is shown (its name cut to the protocol\'s 200) and fails as an unknown tool, the run goes on', async () => {
    rig = await open('chat');
    await longNameCase(rig);
  });
});

describe('rogue model endpoint (Responses): values the protocol cannot carry', function () {
  this.timeout(30_000);
  let rig: Rig | undefined;
  afterEach(async () => close(rig));

  it('T-VALUE-03 usage counts of 1e308, 2^53 + 2 and -5 on the Responses wire: not reported, the runFinished decodes', async () => {
    rig = await open('responses');
    await usageCase(rig);
  });

  it('T-VALUE-04 a tool name of 5,000 characters on the Responses wire: cut to 200 on its card, fails as an unknown tool', async () => {
    rig = await open('responses');
    await longNameCase(rig);
  });
});
