import { strict as assert } from 'node:assert';
import type { Backend } from '../../../../src/backend';
import { createBackend } from '../../../../src/backend';
import { ErrorCode } from '../../../../src/protocol';
import { SUMMARY_MARK } from '../../../../src/backend/context/budget';
import { TestClient } from '../../../support/backend-client';
import type { ChatRequestBody, FakeOpenAI, Script } from '../../../support/fake-openai';
import { startFakeOpenAI } from '../../../support/fake-openai';

const TOKEN = 'test-token-0123456789abcdef';
const WINDOW = 32_000;
const SUMMARY = 'The user asked about days 1 to 3; every build passed.';

const isSummaryRequest = (body: ChatRequestBody) => String(body.messages[0].content).startsWith('Summarise');

describe('backend agent: the context meter (contextUsage) and Compact now (compactThread)', () => {
  let fake: FakeOpenAI;
  let backend: Backend | undefined;
  let client: TestClient | undefined;
  beforeEach(async () => (fake = await startFakeOpenAI()));
  afterEach(async () => {
    await client?.drop();
    await backend?.close();
    await fake.close();
    backend = client = undefined;
  });

  it('says the context use before every model request, and Compact now summarises every turn before the newest, says what it kept, and the next request carries the summary', async function () {
    this.timeout(60_000);
    const script: Script = (request) => (isSummaryRequest(request.body) ? { text: SUMMARY } : { text: `Answer. ${'Details. '.repeat(30)}` });
    fake.enqueue(...Array.from({ length: 20 }, () => script));
    backend = await createBackend({ token: TOKEN, model: { model: 'gpt-test', baseURL: fake.baseURL, apiKey: 'sk-x', maxRetries: 0 }, contextWindow: WINDOW });
    const open = await TestClient.open(backend.url, TOKEN);
    client = open.client;
    const uses: number[] = [];
    for (let day = 1; day <= 3; day++) {
      const { runId } = await open.client.run('t', `What happened on day ${day}?`);
      const use = open.client.all('contextUsage', (m) => m.runId === runId);
      assert.equal(use.length, 1, 'one model request, one contextUsage');
      assert.equal(use[0].contextWindow, WINDOW);
      assert.equal(use[0].estimated, true);
      uses.push(use[0].tokens);
    }
    assert.ok(uses[0] < uses[1] && uses[1] < uses[2], `the meter moves with the conversation: ${uses.join(', ')}`);

    open.client.send({ type: 'compactThread', threadId: 't' });
    const started = await open.client.next('runStarted', (m) => m.threadId === 't');
    const compacted = await open.client.next('contextCompacted', (m) => m.runId === started.runId);
    const after = await open.client.next('contextUsage', (m) => m.runId === started.runId);
    const finished = await open.client.next('runFinished', (m) => m.runId === started.runId);
    assert.equal(finished.reason, 'completed');
    assert.equal(compacted.mode, 'summarized');
    assert.equal(compacted.messages, 4, 'the two turns before the newest');
    assert.equal(compacted.summary, SUMMARY);
    assert.ok(after.tokens < uses[2], `compacted to ${after.tokens} from ${uses[2]}`);
    assert.equal(open.client.text(started.runId), '', 'no model answer in a compaction');

    const next = await open.client.run('t', 'And day 4?');
    const body = fake.requests.at(-1)!.body;
    assert.equal(next.finished.reason, 'completed');
    assert.ok(String(body.messages[1].content).startsWith(SUMMARY_MARK) && String(body.messages[1].content).includes(SUMMARY), JSON.stringify(body.messages[1]));
    assert.deepEqual(body.messages.filter((m) => m.role === 'user').map((m) => String(m.content)).slice(1), ['What happened on day 3?', 'And day 4?']);
  });

  it('Compact now while the thread has a run: RUN_BUSY, nothing compacted', async () => {
    fake.enqueue({ hang: true });
    backend = await createBackend({ token: TOKEN, model: { model: 'gpt-test', baseURL: fake.baseURL, apiKey: 'sk-x', maxRetries: 0 }, contextWindow: WINDOW });
    const open = await TestClient.open(backend.url, TOKEN);
    client = open.client;
    open.client.send({ type: 'userMessage', threadId: 't', text: 'think hard' });
    const run = await open.client.next('runStarted', (m) => m.threadId === 't');
    open.client.send({ type: 'compactThread', threadId: 't' });
    const error = await open.client.next('error', (m) => m.relatedId === 't');
    assert.equal(error.code, ErrorCode.RunBusy);
    open.client.send({ type: 'cancel', threadId: 't', runId: run.runId });
    await open.client.next('runFinished', (m) => m.runId === run.runId);
    assert.equal(open.client.all('contextCompacted').length, 0);
  });
});
