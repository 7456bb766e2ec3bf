import { strict as assert } from 'node:assert';
import type { Backend, ChatModel, ModelChunk, ModelRequest } from '../../../../src/backend';
import { createBackend, ModelFailure } from '../../../../src/backend';
import { ErrorCode } from '../../../../src/protocol';
import { TestClient } from '../../../support/backend-client';
import { sample } from '../../../support/ops-http';

const TOKEN = 'test-token-0123456789abcdef';

/** Answers "ok", or fails with MODEL_RATE_LIMITED when the user's message says "fail". */
const model: ChatModel = {
  name: 'scripted',
  offline: true,
  async *stream(request: ModelRequest): AsyncIterable<ModelChunk> {
    const last = request.messages[request.messages.length - 1];
    if (last.role === 'user' && last.content.includes('fail')) throw new ModelFailure(ErrorCode.ModelRateLimited, 'slow down', true);
    yield { type: 'text', text: 'ok' };
  },
};

describe('backend metrics (prom-client)', () => {
  const backends: Backend[] = [];
  const clients: TestClient[] = [];
  afterEach(async () => {
    await Promise.all(clients.splice(0).map((c) => c.drop()));
    await Promise.all(backends.splice(0).map((b) => b.close()));
  });

  async function start(): Promise<Backend> {
    const b = await createBackend({ token: TOKEN, model });
    backends.push(b);
    return b;
  }

  it('counts sessions, calls in flight, call outcomes by code, runs, model latency and model errors', async () => {
    const backend = await start();
    const { client, welcome } = await TestClient.open(backend.url, TOKEN);
    clients.push(client);
    let text = await backend.metrics();
    assert.equal(sample(text, 'client_tools_sessions', { state: 'attached' }), 1);
    assert.equal(sample(text, 'client_tools_sessions', { state: 'detached' }), 0);
    assert.equal(sample(text, 'client_tools_draining'), 0);

    assert.equal((await client.run('t1', 'hello')).finished.reason, 'completed');
    assert.equal((await client.run('t2', 'please fail')).finished.reason, 'error');

    // A call the editor has not answered yet is in flight; then it succeeds.
    const answered = backend.invokeClientTool(welcome.sessionId, 'GetSelection', {});
    const request = await client.next('clientToolInvokeRequest');
    text = await backend.metrics();
    assert.equal(sample(text, 'client_tools_client_calls_in_flight'), 1);
    client.respond(request.requestId, { success: true, content: [{ type: 'text', text: 'sel' }] });
    assert.equal((await answered).outcome, 'succeeded');
    // One the editor never answers ends with TIMEOUT.
    const timedOut = await backend.invokeClientTool(welcome.sessionId, 'GetSelection', {}, { timeoutMs: 200 });
    assert.equal(timedOut.errorCode, ErrorCode.Timeout);

    text = await backend.metrics();
    assert.equal(sample(text, 'client_tools_client_calls_in_flight'), 0);
    assert.equal(sample(text, 'client_tools_client_calls_total', { outcome: 'succeeded', code: '' }), 1);
    assert.equal(sample(text, 'client_tools_client_calls_total', { outcome: 'timedOut', code: ErrorCode.Timeout }), 1);
    assert.equal(sample(text, 'client_tools_runs_total', { reason: 'completed' }), 1);
    assert.equal(sample(text, 'client_tools_runs_total', { reason: 'error' }), 1);
    assert.equal(sample(text, 'client_tools_runs_in_progress'), 0);
    assert.equal(sample(text, 'client_tools_model_request_seconds_count', { outcome: 'ok' }), 1);
    assert.equal(sample(text, 'client_tools_model_request_seconds_count', { outcome: 'error' }), 1);
    assert.equal(sample(text, 'client_tools_model_errors_total', { code: ErrorCode.ModelRateLimited }), 1);

    // No label anywhere names a session, a thread, a run or a tool.
    for (const secretish of [welcome.sessionId, 't1', 't2', 'GetSelection', TOKEN]) assert.ok(!text.includes(secretish), `metrics mention ${secretish}`);

    await client.drop();
    text = await backend.metrics();
    assert.equal(sample(text, 'client_tools_sessions', { state: 'attached' }), 0);
    assert.equal(sample(text, 'client_tools_sessions', { state: 'detached' }), 1);
  });

  it('keeps each backend\'s figures apart when several run in one process', async () => {
    const a = await start();
    const b = await start();
    const { client } = await TestClient.open(a.url, TOKEN);
    clients.push(client);
    await client.run('t1', 'hello');
    assert.equal(sample(await a.metrics(), 'client_tools_runs_total', { reason: 'completed' }), 1);
    const other = await b.metrics();
    assert.equal(sample(other, 'client_tools_sessions', { state: 'attached' }), 0);
    assert.equal(sample(other, 'client_tools_runs_total', { reason: 'completed' }), undefined);
  });
});
