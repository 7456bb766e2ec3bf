/**
 * Work on data a file, a client or a model endpoint controls, against the real backend with a real
 * model configuration (the `openai` SDK against the fake endpoint): token counting of tool results
 * and chat messages, and the model's own tool-call arguments. Each case watches the backend's
 * event loop (it serves every session, heartbeats and /healthz) and must leave it free: before the
 * bounds, a 256 KiB ReadFile result of one repeated character held it for more than 15 s.
 */
import * as assert from 'node:assert/strict';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { createBackend, type Backend, type BackendOptions } from '../../src/backend';
import { ErrorCode } from '../../src/protocol';
import { TestClient } from '../support/backend-client';
import { startFakeOpenAI, type FakeOpenAI } from '../support/fake-openai';
import { sample } from '../support/ops-http';

const TOKEN = 'bounds-token-0123456789abcdef';
/** Generous for a loaded 2-core machine; the unbounded counter took 15 s and more. */
const WORST_STALL_MS = 1_000;
/** A run's whole time: milliseconds here, the unbounded counter took 28 s in stalls shorter than a second each. */
const RUN_BOUND_MS = 10_000;

/** Random characters of the CJK block: no space breaks them, and each is one to three tokens. */
function cjk(chars: number): string {
  let seed = 7;
  let out = '';
  for (let i = 0; i < chars; i++) {
    seed = (seed * 1103515245 + 12345) & 0x7fffffff;
    out += String.fromCharCode(0x4e00 + (seed % 20_000));
  }
  return out;
}

describe('untrusted data: every step on it is bounded', function () {
  this.timeout(60_000);
  let fake: FakeOpenAI;
  let backend: Backend;
  const clients: TestClient[] = [];

  async function start(options: BackendOptions = {}): Promise<TestClient> {
    fake = await startFakeOpenAI();
    backend = await createBackend({ token: TOKEN, collapsing: false, model: { model: 'fake-model', baseURL: fake.baseURL, apiKey: 'sk-test', maxRetries: 0 }, ...options });
    const { client } = await TestClient.open(backend.url, TOKEN);
    clients.push(client);
    return client;
  }

  afterEach(async () => {
    await Promise.all(clients.splice(0).map((c) => c.drop()));
    await backend?.close();
    await fake?.close();
  });

  /** Runs `work` and returns what it resolved to, the event loop's worst delay meanwhile, and how long it took. */
  async function watched<T>(work: () => Promise<T>): Promise<{ value: T; worstMs: number; tookMs: number }> {
    const delay = monitorEventLoopDelay({ resolution: 10 });
    delay.enable();
    const t0 = performance.now();
    try {
      const value = await work();
      return { value, worstMs: delay.max / 1e6, tookMs: performance.now() - t0 };
    } finally {
      delay.disable();
    }
  }

  /** The model calls ReadFile, the client answers with `text`, the model answers "done". */
  async function readFileRun(client: TestClient, text: string): Promise<{ reason: string; worstMs: number }> {
    fake.enqueue({ toolCalls: [{ name: 'ReadFile', arguments: { path: 'bundle.min.js' } }] }, { text: 'done' });
    client.autoAnswer(() => ({ success: true, content: [{ type: 'text', text }] }));
    const { value, worstMs } = await watched(() => client.run('t1', 'read the bundle', 30_000));
    return { reason: value.finished.reason, worstMs };
  }

  it('T-BOUND-01 a ReadFile result of 256 KiB of one repeated character (a minified line, a run of "="): the event loop stays free, the model reads an excerpt with a handle', async () => {
    const client = await start();
    const { reason, worstMs } = await readFileRun(client, 'a'.repeat(256 * 1024));
    assert.equal(reason, 'completed');
    assert.ok(worstMs < WORST_STALL_MS, `the event loop stalled ${worstMs.toFixed(0)} ms`);
    const toolMessage = fake.requests[1].body.messages.find((m) => m.role === 'tool');
    assert.match(String(toolMessage?.content), /The whole result is kept under the handle "result_[0-9a-f]{12}"/);
  });

  it('T-BOUND-02 a ReadFile result of 256 KiB of CJK text (no spaces, the costliest text to tokenize): the event loop stays free', async () => {
    const client = await start();
    const { reason, worstMs } = await readFileRun(client, cjk(256 * 1024));
    assert.equal(reason, 'completed');
    assert.ok(worstMs < WORST_STALL_MS, `the event loop stalled ${worstMs.toFixed(0)} ms`);
  });

  it('T-BOUND-03 the longest chat message (100,000 characters of one letter): the event loop stays free and the run completes', async () => {
    const client = await start();
    fake.enqueue({ text: 'done' });
    const { value, worstMs, tookMs } = await watched(() => client.run('t1', 'a'.repeat(100_000), 60_000));
    assert.equal(value.finished.reason, 'completed');
    assert.ok(worstMs < WORST_STALL_MS, `the event loop stalled ${worstMs.toFixed(0)} ms`);
    assert.ok(tookMs < RUN_BOUND_MS, `the run took ${tookMs.toFixed(0)} ms`);
  });

  it('T-BOUND-04 a file that contains the tokenizer\'s special text "<|endoftext|>": counted as text, the run completes (it failed INTERNAL: the tokenizer threw)', async () => {
    const client = await start();
    const { reason } = await readFileRun(client, `# Tokenizers\nEvery document ends with <|endoftext|> and chats use <|im_start|>.\n${'x '.repeat(5_000)}`);
    assert.equal(reason, 'completed');
    assert.deepEqual(client.all('runError'), []);
  });

  it('T-BOUND-05 three tool calls of 2 MB arguments each in one turn: each ends LIMIT_EXCEEDED before its arguments are parsed, the model reads why, the thread keeps a short note; the event loop stays free', async () => {
    const client = await start();
    const big = { message: 'x'.repeat(2 * 1024 * 1024) };
    fake.enqueue({ toolCalls: [1, 2, 3].map((i) => ({ name: 'ShowMessage', id: `call_big_${i}`, arguments: big })) }, { text: 'done' });
    client.autoAnswer(() => ({ success: true, content: [{ type: 'text', text: 'shown' }] }));
    const { value, worstMs } = await watched(() => client.run('t1', 'show three long messages', 30_000));
    assert.equal(value.finished.reason, 'completed');
    assert.ok(worstMs < WORST_STALL_MS, `the event loop stalled ${worstMs.toFixed(0)} ms`);
    assert.deepEqual(client.all('clientToolInvokeRequest'), [], 'no call reached the client');
    const ended = client.all('toolCallEnded');
    assert.equal(ended.length, 3);
    for (const e of ended) {
      assert.equal(e.outcome, 'failed');
      assert.match(e.errorMessage ?? '', /over the limit of 1048576 bytes for one call's arguments/);
    }
    // The next request carries the notes, not 6 MB of arguments.
    const second = fake.requests[1];
    assert.ok(JSON.stringify(second.body).length < 64 * 1024, `the next request is ${JSON.stringify(second.body).length} bytes`);
    const assistant = second.body.messages.find((m) => m.role === 'assistant');
    assert.match(assistant?.tool_calls?.[0].function.arguments ?? '', /^\{"omitted":"the arguments were not kept: they are 2097166 bytes, over the limit of 1048576 bytes for one call's arguments; pass large content in smaller parts; the call was not run"\}$/);
    const results = second.body.messages.filter((m) => m.role === 'tool').map((m) => String(m.content));
    assert.equal(results.length, 3);
    for (const r of results) assert.match(r, new RegExp(`^Error \\(${ErrorCode.LimitExceeded}\\)`));
  });

  it('T-BOUND-06 a tool call whose arguments nest 400,000 arrays deep (parsing took 370 ms, echoing them overflowed the stack): LIMIT_EXCEEDED before parsing, the run completes', async () => {
    const client = await start();
    const depth = 400_000;
    fake.enqueue({ toolCalls: [{ name: 'ShowMessage', arguments: `{"message":"hi","x":${'['.repeat(depth)}${']'.repeat(depth)}}` }] }, { text: 'done' });
    const { value, worstMs } = await watched(() => client.run('t1', 'nest', 30_000));
    assert.deepEqual(client.all('runError'), []);
    assert.equal(value.finished.reason, 'completed');
    assert.ok(worstMs < WORST_STALL_MS, `the event loop stalled ${worstMs.toFixed(0)} ms`);
    const [ended] = client.all('toolCallEnded');
    assert.match(ended.errorMessage ?? '', /nest objects and arrays more than 64 levels deep/);
    assert.ok(JSON.stringify(fake.requests[1].body).length < 64 * 1024, 'the next request carries a note, not the arguments');
  });

  it('T-BOUND-07 context items added by 30 updates of 1 MB (every item joins every turn\'s system prompt; they made a 30 MB prompt): the thread keeps the newest 1,000,000 characters of them', async () => {
    const client = await start();
    for (let u = 0; u < 30; u++) {
      client.send({ type: 'updateToolGroups', augmentation: { addContext: Array.from({ length: 5 }, (_, i) => ({ name: `ctx-${u}-${i}`, text: String.fromCharCode(97 + (u % 26)).repeat(190_000) })) } });
    }
    fake.enqueue({ text: 'done' }, { text: 'done' }, { text: 'done' });
    const { value } = await watched(() => client.run('t1', 'hello', 30_000));
    assert.equal(value.finished.reason, 'completed');
    assert.deepEqual(client.all('error'), []);
    const system = String(fake.requests[fake.requests.length - 1].body.messages[0].content);
    assert.ok(system.length < 1_100_000, `the system prompt is ${system.length} characters`);
    assert.match(system, /## Context: ctx-29-4\n/, 'the newest item is kept');
    assert.doesNotMatch(system, /## Context: ctx-0-0\n/, 'the oldest went');
  });

  it('T-BOUND-08 a client away while its runs stream 48 MB of text in 1 MB chunks (runs go on while it is detached): the session keeps at most about 16 MB for its return, the oldest dropped', async () => {
    fake = await startFakeOpenAI();
    backend = await createBackend({ token: TOKEN, model: { model: 'fake-model', baseURL: fake.baseURL, apiKey: 'sk-test', maxRetries: 0 } });
    const { client, welcome } = await TestClient.open(backend.url, TOKEN);
    for (let i = 0; i < 8; i++) fake.enqueue({ text: String.fromCharCode(97 + i).repeat(6 * 1024 * 1024), pieces: 6 });
    for (let i = 0; i < 8; i++) client.send({ type: 'userMessage', threadId: `t${i}`, text: 'write a lot' });
    await fake.waitForRequests(1, 10_000);
    await client.drop();
    await fake.waitForRequests(8, 20_000);
    // The runs finish while nobody listens; then the client comes back.
    const deadline = Date.now() + 30_000;
    while (sample(await backend.metrics(), 'client_tools_runs_total', { reason: 'completed' }) !== 8) {
      assert.ok(Date.now() < deadline, 'the 8 runs did not finish');
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    const back = await TestClient.open(backend.url, TOKEN, { resumeSession: welcome.sessionId, resumeSecret: welcome.resumeSecret });
    clients.push(back.client);
    await new Promise((resolve) => setTimeout(resolve, 1_000));
    const replayed = back.client.all('textDelta').reduce((n, m) => n + m.text.length, 0);
    assert.ok(replayed <= 17 * 1024 * 1024, `${(replayed / 1024 / 1024).toFixed(0)} MB of text were kept for the client`);
    assert.ok(back.client.all('runFinished').length > 0, 'the newest messages are kept');
  });
});
