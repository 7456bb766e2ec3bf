/**
 * The metrics registry holds one series per label combination, for the life of the process. A label
 * value a peer chooses is a way to grow it without bound: a client's own `errorCode` on 6,000 calls
 * made 6,000 series (/metrics from 1.6 KB to 747 KB). Every label comes from a closed set.
 */
import * as assert from 'node:assert/strict';
import { createBackend, ModelFailure, type Backend, type ChatModel } from '../../src/backend';
import { TestClient } from '../support/backend-client';
import { sample } from '../support/ops-http';

const TOKEN = 'metrics-token-0123456789abcdef';

/** The series of one metric in the exposition text. */
function series(text: string, name: string): string[] {
  return text.split('\n').filter((line) => line.startsWith(`${name}{`) || line.startsWith(`${name} `));
}

describe('rogue client: metrics cannot grow', function () {
  this.timeout(60_000);
  let backend: Backend;
  const clients: TestClient[] = [];

  afterEach(async () => {
    await Promise.all(clients.splice(0).map((c) => c.drop()));
    await backend?.close();
  });

  it('T-METRIC-01 a client answers 6,000 calls with 6,000 made-up error codes: they count under code="other", no series is added, /metrics stays small', async () => {
    backend = await createBackend({ token: TOKEN });
    const { client } = await TestClient.open(backend.url, TOKEN);
    clients.push(client);
    let n = 0;
    client.autoAnswer(() => ({ success: false, content: [], errorCode: `ROGUE_${n++}_${'X'.repeat(40)}`.slice(0, 64), errorMessage: 'no' }));
    const before = (await backend.metrics()).length;
    for (let batch = 0; batch < 100; batch++) {
      await Promise.all(Array.from({ length: 60 }, () => backend.invokeClientTool('any', 'GetSelection', {})));
    }
    const text = await backend.metrics();
    assert.equal(sample(text, 'client_tools_client_calls_total', { outcome: 'failed', code: 'other' }), 6_000);
    assert.equal(series(text, 'client_tools_client_calls_total').length, 1);
    assert.doesNotMatch(text, /ROGUE_/);
    assert.ok(text.length - before < 2_000, `/metrics grew from ${before} to ${text.length} bytes`);
  });

  it('T-METRIC-02 a code of the protocol keeps its own label (the set is closed, not empty)', async () => {
    backend = await createBackend({ token: TOKEN });
    const { client } = await TestClient.open(backend.url, TOKEN);
    clients.push(client);
    client.autoAnswer(() => ({ success: false, content: [], errorCode: 'PATH_OUTSIDE_WORKSPACE', errorMessage: 'outside' }));
    await backend.invokeClientTool('any', 'GetSelection', {});
    assert.equal(sample(await backend.metrics(), 'client_tools_client_calls_total', { outcome: 'failed', code: 'PATH_OUTSIDE_WORKSPACE' }), 1);
  });

  it('T-METRIC-03 a model whose failures carry codes of its own (an embedder\'s ChatModel, 300 of them): counted under code="other"', async () => {
    let n = 0;
    const model: ChatModel = {
      name: 'rogue',
      offline: false,
      async *stream() {
        throw new ModelFailure(`MODEL_ROGUE_${n++}` as never, 'made-up failure', true);
      },
    };
    backend = await createBackend({ token: TOKEN, model });
    const { client } = await TestClient.open(backend.url, TOKEN);
    clients.push(client);
    for (let i = 0; i < 300; i++) await client.run(`t${i}`, 'hi');
    const text = await backend.metrics();
    assert.equal(sample(text, 'client_tools_model_errors_total', { code: 'other' }), 300);
    assert.equal(series(text, 'client_tools_model_errors_total').length, 1);
  });
});
