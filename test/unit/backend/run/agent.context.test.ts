import { strict as assert } from 'node:assert';
import type { Backend, ServerTool } from '../../../../src/backend';
import { createBackend } from '../../../../src/backend';
import { countTokens } from '../../../../src/backend/context/tokens';
import { TestClient } from '../../../support/backend-client';
import type { ChatRequestBody, FakeOpenAI, Script } from '../../../support/fake-openai';
import { startFakeOpenAI } from '../../../support/fake-openai';

const TOKEN = 'test-token-0123456789abcdef';
const WINDOW = 4_096;

/** Tokens of what the endpoint received, counted with the backend's tokenizer on the body's JSON. */
function bodyTokens(body: ChatRequestBody): number {
  return countTokens(JSON.stringify(body.messages)) + countTokens(JSON.stringify(body.tools ?? []));
}

const notes: ServerTool = {
  name: 'read_notes',
  description: 'Reads the project notes of a day.',
  parameters: { type: 'object', properties: { day: { type: 'integer' } }, required: ['day'] },
  execute: (args) => `Notes of day ${String(args.day)}:\n${`- item ${String(args.day)}: the build passed and the tests were green.\n`.repeat(25)}`,
};

const huge: ServerTool = {
  name: 'dump_log',
  description: 'Dumps the build log.',
  parameters: { type: 'object', properties: {} },
  execute: () => Array.from({ length: 20_000 }, (_, i) => (i === 15_000 ? 'ERROR: disk full at step 15000' : `step ${i} ok`)).join('\n'),
};

const lastUser = (body: ChatRequestBody) => [...body.messages].reverse().find((m) => m.role === 'user');

describe('backend agent: the context budget, against the fake OpenAI endpoint', () => {
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

  it('a long conversation: every request stays under the window, older turns are summarised and the client is told', async function () {
    this.timeout(120_000);
    // Each question: the model reads that day's notes, then answers; summary requests get a summary.
    const script: Script = (request) => {
      const body = request.body;
      if (String(body.messages[0].content).startsWith('Summarise')) return { text: 'Earlier days: every build passed.' };
      if (body.messages.at(-1)?.role === 'tool') return { text: `Day summary. ${'All good. '.repeat(40)}` };
      const day = Number(/day (\d+)/.exec(String(lastUser(body)?.content))?.[1] ?? 0);
      return { toolCalls: [{ name: 'read_notes', arguments: { day } }] };
    };
    fake.enqueue(...Array.from({ length: 200 }, () => script));
    backend = await createBackend({ token: TOKEN, model: { model: 'gpt-test', baseURL: fake.baseURL, apiKey: 'sk-x', maxRetries: 0 }, contextWindow: WINDOW, tools: [notes] });
    const open = await TestClient.open(backend.url, TOKEN);
    client = open.client;
    for (let day = 1; day <= 14; day++) {
      const { finished } = await open.client.run('t', `What happened on day ${day}?`, 30_000);
      assert.equal(finished.reason, 'completed');
    }
    for (const r of fake.requests) assert.ok(bodyTokens(r.body) <= WINDOW, `a request of ${bodyTokens(r.body)} tokens`);
    const compacted = client.all('contextCompacted');
    assert.ok(compacted.length >= 1, 'no contextCompacted event');
    for (const c of compacted) {
      assert.equal(c.threadId, 't');
      assert.equal(c.contextWindow, WINDOW);
      assert.ok(c.tokensAfter < c.tokensBefore && c.messages > 0);
    }
    assert.ok(compacted.some((c) => c.mode === 'summarized'));
    // The last request carries the summary and the newest question.
    const last = fake.requests.at(-1)!.body;
    assert.ok(last.messages.some((m) => m.role === 'user' && String(m.content).includes('Earlier days: every build passed.')));
    assert.match(String(lastUser(last)?.content), /day 14/);
  });

  it('an oversized tool result reaches the model as an excerpt with a handle, which ReadToolResult and SearchToolResult page through', async function () {
    this.timeout(60_000);
    let handle = '';
    fake.enqueue(
      { toolCalls: [{ name: 'dump_log' }] },
      (request) => {
        const result = String(request.body.messages.at(-1)?.content);
        handle = /under the handle "(result_[0-9a-f]{12})"/.exec(result)?.[1] ?? 'missing';
        return { toolCalls: [{ name: 'SearchToolResult', arguments: { handle, query: 'error' } }] };
      },
      (request) => {
        const offset = Number(/offset (\d+)/.exec(String(request.body.messages.at(-1)?.content))?.[1]);
        return { toolCalls: [{ name: 'ReadToolResult', arguments: { handle, offset, length: 30 } }] };
      },
      { text: 'The disk filled up.' },
    );
    backend = await createBackend({ token: TOKEN, model: { model: 'gpt-test', baseURL: fake.baseURL, apiKey: 'sk-x', maxRetries: 0 }, contextWindow: WINDOW, tools: [huge] });
    ({ client } = await TestClient.open(backend.url, TOKEN));
    const { finished } = await client.run('t', 'why did the build fail?', 30_000);
    assert.equal(finished.reason, 'completed');
    const bodies = fake.requests.map((r) => r.body);
    for (const b of bodies) assert.ok(bodyTokens(b) <= WINDOW, `a request of ${bodyTokens(b)} tokens`);
    // The pager is offered once a handle exists, not before.
    assert.ok(!bodies[0].tools?.some((t) => t.function.name === 'ReadToolResult'));
    assert.ok(bodies[1].tools?.some((t) => t.function.name === 'ReadToolResult'));
    assert.match(handle, /^result_[0-9a-f]{12}$/);
    assert.match(String(bodies[2].messages.at(-1)?.content), /1 matching line:\nline 15001, offset \d+: ERROR: disk full at step 15000/);
    assert.match(String(bodies[3].messages.at(-1)?.content), /\nERROR: disk full at step 15000/);
    // The client still received the whole result.
    const ended = client.all('toolCallEnded')[0];
    assert.ok(ended.content[0].type === 'text' && ended.content[0].text.includes('ERROR: disk full'));
  });
});
