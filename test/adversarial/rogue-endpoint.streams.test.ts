/**
 * A model endpoint that misbehaves on the wire, driven through the real `openai` SDK: it goes quiet
 * after the headers, trickles forever, streams without end, or answers an error with a huge body.
 * Each request is bounded (idle gap, total time, answer bytes, body bytes): the run ends with a
 * coded, retryable `runError` that names the model and the endpoint, and the backend goes on.
 */
import * as assert from 'node:assert/strict';
import { createBackend, type Backend, type BackendOptions } from '../../src/backend';
import { resolveOptions } from '../../src/backend/options';
import { ErrorCode } from '../../src/protocol';
import { TestClient, type Msg } from '../support/backend-client';
import { longestGap } from '../support/eventLoop';
import { startFakeOpenAI, type FakeOpenAI } from '../support/fake-openai';

const TOKEN = 'streams-token-0123456789abcdef';

describe('rogue model endpoint: streams are bounded', function () {
  this.timeout(60_000);
  let fake: FakeOpenAI;
  let backend: Backend;
  const clients: TestClient[] = [];

  async function start(options: BackendOptions = {}, api: 'chat' | 'responses' = 'chat'): Promise<TestClient> {
    fake = await startFakeOpenAI();
    backend = await createBackend({ token: TOKEN, model: { model: 'fake-model', baseURL: fake.baseURL, apiKey: 'sk-test', maxRetries: 0, api }, ...options });
    const { client } = await TestClient.open(backend.url, TOKEN);
    clients.push(client);
    return client;
  }

  afterEach(async () => {
    await Promise.all(clients.splice(0).map((c) => c.drop()));
    await backend?.close();
    await fake?.close();
  });

  /** Sends a message and returns its runError and runFinished. */
  async function failedRun(client: TestClient, timeoutMs: number): Promise<{ error: Msg<'runError'>; finished: Msg<'runFinished'>; tookMs: number }> {
    const t0 = performance.now();
    client.send({ type: 'userMessage', threadId: 't1', text: 'hello' });
    const started = await client.next('runStarted', () => true, timeoutMs);
    const finished = await client.next('runFinished', (m) => m.runId === started.runId, timeoutMs);
    const [error] = client.all('runError', (m) => m.runId === started.runId);
    assert.ok(error, 'the run ended with a runError');
    return { error, finished, tookMs: performance.now() - t0 };
  }

  /** The backend still serves: a fresh message on another thread completes. */
  async function stillServes(client: TestClient): Promise<void> {
    fake.enqueue({ text: 'back again' });
    const { finished, runId } = await client.run('t2', 'again', 10_000);
    assert.equal(finished.reason, 'completed');
    assert.equal(client.text(runId), 'back again');
  }

  it('T-STREAM-01 headers, then silence: the request is stopped after the first-byte limit, runError MODEL_TIMEOUT (retryable) names the model and the endpoint', async () => {
    const client = await start({ modelFirstByteTimeoutMs: 500, modelRetries: 0 });
    fake.enqueue({ hang: true });
    const { error, finished, tookMs } = await failedRun(client, 10_000);
    assert.equal(error.code, ErrorCode.ModelTimeout);
    assert.equal(error.retryable, true);
    assert.equal(error.message, `No answer from fake-model at ${fake.baseURL} within 0.5 s: the endpoint took the request but sent nothing (the first-byte timeout), so the request was stopped. Is the server running and the model loaded?`);
    assert.equal(finished.reason, 'error');
    assert.ok(tookMs < 5_000, `the run took ${tookMs.toFixed(0)} ms`);
    await stillServes(client);
  });

  it('T-STREAM-07 an endpoint that never answers: each retry is announced as it happens (modelRetry, attempt k of n), then MODEL_TIMEOUT says how often it was tried; the default first-byte limit is in seconds, not minutes', async () => {
    const client = await start({ modelFirstByteTimeoutMs: 300, modelRetries: 1 });
    fake.enqueue({ hang: true }, { hang: true });
    const { error, finished } = await failedRun(client, 20_000);
    const retries = client.all('modelRetry', (m) => m.runId === finished.runId);
    assert.deepEqual(retries.map((r) => ({ attempt: r.attempt, of: r.of, delayMs: r.delayMs, code: r.code, message: r.message })), [
      { attempt: 1, of: 1, delayMs: 2000, code: ErrorCode.ModelTimeout, message: `No answer from fake-model at ${fake.baseURL} within 0.3 s` },
    ]);
    assert.equal(fake.requests.length, 2, 'the request was sent twice');
    assert.equal(error.code, ErrorCode.ModelTimeout);
    assert.match(error.message, /the first-byte timeout.*Tried 2 times\.$/);
    assert.equal(finished.reason, 'error');
    assert.equal(resolveOptions({}).modelFirstByteTimeoutMs, 60_000);
    assert.equal(resolveOptions({}).modelRetries, 2);
    await stillServes(client);
  });

  it('T-STREAM-02 a stream that trickles a word every 100 ms for ever: stopped at the total time limit, MODEL_TIMEOUT', async () => {
    const client = await start({ modelIdleTimeoutMs: 1_000, modelTimeoutMs: 1_500 });
    fake.enqueue({ endless: { text: 'more ', everyMs: 100 } });
    const { error, tookMs } = await failedRun(client, 10_000);
    assert.equal(error.code, ErrorCode.ModelTimeout);
    assert.equal(error.retryable, true);
    assert.match(error.message, /^fake-model at http:\/\/127\.0\.0\.1:\d+\/v1 did not finish its answer within 1\.5 s/);
    assert.ok(client.text(finishedRunId(client)).startsWith('more more '), 'the text streamed until then');
    assert.ok(tookMs < 8_000, `the run took ${tookMs.toFixed(0)} ms`);
    await stillServes(client);
  });

  it('T-STREAM-03 a stream without end, as fast as the socket takes it: stopped at the answer limit, LIMIT_EXCEEDED; memory does not follow the stream', async () => {
    const client = await start({ modelMaxAnswerBytes: 1024 * 1024 });
    fake.enqueue({ endless: { text: 'x'.repeat(16 * 1024), everyMs: 0 } });
    const before = process.memoryUsage().rss;
    const { error } = await failedRun(client, 20_000);
    assert.equal(error.code, ErrorCode.LimitExceeded);
    assert.equal(error.retryable, true);
    assert.match(error.message, /^fake-model at http:\/\/127\.0\.0\.1:\d+\/v1 sent more than 1048576 bytes of answer/);
    const grown = (process.memoryUsage().rss - before) / 1024 / 1024;
    assert.ok(grown < 64, `RSS grew ${grown.toFixed(0)} MiB`);
    await stillServes(client);
  });

  it('T-STREAM-04 a 10 MB tool-call argument streamed in one answer: stopped at the answer limit before it is parsed, LIMIT_EXCEEDED', async () => {
    const client = await start({ modelMaxAnswerBytes: 4 * 1024 * 1024 });
    fake.enqueue({ toolCalls: [{ name: 'ShowMessage', arguments: { message: 'y'.repeat(10 * 1024 * 1024) } }] });
    const { error } = await failedRun(client, 20_000);
    assert.equal(error.code, ErrorCode.LimitExceeded);
    assert.deepEqual(client.all('clientToolInvokeRequest'), []);
    await stillServes(client);
  });

  it('T-STREAM-06 one streamed event that never ends (200 MB of a data line, no line break): cut at the event limit, LIMIT_EXCEEDED; the SDK\'s decoders (quadratic in one event) never see more than one capped event', async () => {
    const client = await start({ modelMaxAnswerBytes: 1024 * 1024 });
    fake.enqueue({ unterminatedEvent: { bytes: 200 * 1024 * 1024 } });
    const t0 = performance.now();
    const { error } = await failedRun(client, 30_000);
    assert.equal(error.code, ErrorCode.LimitExceeded);
    assert.match(error.message, /sent a streamed event of more than 1114112 bytes/);
    assert.ok(performance.now() - t0 < 10_000, `the run took ${(performance.now() - t0).toFixed(0)} ms`);
    await stillServes(client);
  });

  /** 40,000 text deltas in one body on the `api` wire: the longest the loop waited, once the whole answer arrived. */
  async function manyDeltas(api: 'chat' | 'responses'): Promise<void> {
    const client = await start({}, api);
    const text = 'word '.repeat(40_000);
    // The body is made and captured before: the fake writing 40,000 events is this process's work too.
    fake.enqueue({ text, pieces: 40_000 });
    const path = api === 'chat' ? 'chat/completions' : 'responses';
    const request = api === 'chat' ? { model: 'fake-model', stream: true, messages: [{ role: 'user', content: 'hi' }] } : { model: 'fake-model', stream: true, input: 'hi' };
    const body = await (await fetch(`${fake.baseURL}/${path}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(request) })).text();
    fake.enqueue({ verbatim: body });
    let runId = '';
    // The SDK hands on every event of one network read in microtasks; read at once, the deltas held the loop 300-500 ms.
    const gap = await longestGap(async () => {
      ({ runId } = await client.run('t1', 'hello', 60_000));
    });
    assert.equal(client.text(runId), text);
    assert.ok(gap < 250, `the event loop waited ${Math.round(gap)} ms at once`);
  }

  it('T-STREAM-08 40,000 text deltas written at once (Chat Completions): read between turns of the event loop, so it never waits long; the whole answer arrives', () => manyDeltas('chat'));

  it('T-STREAM-09 40,000 text deltas written at once (Responses): read between turns of the event loop, so it never waits long; the whole answer arrives', () => manyDeltas('responses'));

  it('T-STREAM-05 an error answer with a 200 MB body: the SDK reads at most the error cap, the run ends MODEL_ERROR', async () => {
    const client = await start();
    fake.enqueue({ hugeError: { status: 500, bodyBytes: 200 * 1024 * 1024 } });
    const before = process.memoryUsage().rss;
    const { error } = await failedRun(client, 30_000);
    assert.equal(error.code, ErrorCode.ModelError);
    assert.ok(error.message.length <= 10_000);
    const grown = (process.memoryUsage().rss - before) / 1024 / 1024;
    assert.ok(grown < 64, `RSS grew ${grown.toFixed(0)} MiB`);
    await stillServes(client);
  });
});

function finishedRunId(client: TestClient): string {
  const finished = client.all('runFinished');
  return finished[finished.length - 1].runId;
}
