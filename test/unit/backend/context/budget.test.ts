import { strict as assert } from 'node:assert';
import { ContextBudget, ELIDED_MARK, SUMMARY_MARK } from '../../../../src/backend/context/budget';
import { countTokens, requestTokens } from '../../../../src/backend/context/tokens';
import type { ChatMessage, ModelRequest } from '../../../../src/backend/model/chatModel';
import { OpenAIChatModel } from '../../../../src/backend/model/openai';
import type { FakeOpenAI } from '../../../support/fake-openai';
import { startFakeOpenAI } from '../../../support/fake-openai';

const SYSTEM = 'You are a helpful coding assistant.';
const TOOLS = [{ name: 'ReadFile', description: 'Reads a file.', parameters: { type: 'object', properties: { path: { type: 'string' } } } }];

/** A conversation of `turns` exchanges, each a user question, a tool call, its result and an answer. */
function conversation(turns: number): ChatMessage[] {
  const h: ChatMessage[] = [];
  for (let i = 0; i < turns; i++) {
    h.push({ role: 'user', content: `Question ${i}: what does file ${i} say?` });
    h.push({ role: 'assistant', content: '', toolCalls: [{ id: `call_${i}`, name: 'ReadFile', arguments: `{"path":"f${i}.ts"}` }] });
    h.push({ role: 'tool', toolCallId: `call_${i}`, toolName: 'ReadFile', content: [{ type: 'text', text: `export const value${i} = ${i};\n`.repeat(40) }] });
    h.push({ role: 'assistant', content: `File ${i} exports value${i}. `.repeat(10) });
  }
  return h;
}

const build = (history: ChatMessage[]) => (): ModelRequest => ({ messages: [{ role: 'system', content: SYSTEM }, ...history], tools: TOOLS });

/** Every tool result directly follows an assistant message that called it (or another result of that call batch). */
function assertPairsKept(history: ChatMessage[]): void {
  history.forEach((m, i) => {
    if (m.role !== 'tool') return;
    let j = i - 1;
    while (j >= 0 && history[j].role === 'tool') j--;
    const caller = history[j];
    assert.ok(caller?.role === 'assistant' && caller.toolCalls?.some((c) => c.id === m.toolCallId), `result ${m.toolCallId} lost its call`);
  });
}

describe('context/budget: fitting requests under the window', () => {
  const signal = new AbortController().signal;

  it('leaves a request that fits alone', async () => {
    const history = conversation(2);
    const before = [...history];
    const { request, compaction } = await new ContextBudget({ window: 16_384 }).fit(history, build(history), signal);
    assert.equal(compaction, undefined);
    assert.deepEqual(history, before);
    assert.equal(request.messages.length, before.length + 1);
  });

  it('without a summariser, elides the oldest turns with a marker, keeps the newest, the system prompt and the tools', async () => {
    const history = conversation(30);
    const newest = history.slice(-4);
    const budget = new ContextBudget({ window: 4_096 });
    const { request, compaction } = await budget.fit(history, build(history), signal);
    assert.ok(requestTokens(request) <= budget.limit, `${requestTokens(request)} > ${budget.limit}`);
    assert.ok(compaction && compaction.mode === 'elided' && compaction.messages > 0);
    assert.ok(compaction.tokensBefore > budget.limit && compaction.tokensAfter <= budget.limit);
    assert.equal(request.messages[0].content, SYSTEM);
    assert.deepEqual(request.tools, TOOLS);
    const marker = request.messages[1];
    assert.ok(marker.role === 'user' && marker.content.startsWith(ELIDED_MARK) && marker.content.includes(`${compaction.messages} messages`), JSON.stringify(marker));
    assert.deepEqual(request.messages.slice(-4), newest);
    assertPairsKept(history);
    // The history itself was compacted, so the next turn starts from it.
    assert.equal(history[0], marker);
  });

  it('never splits a tool call from its results, even when the cut would fall between them', async () => {
    for (const window of [2_048, 2_500, 3_000, 3_500, 4_096, 5_000]) {
      const history = conversation(12);
      // A batch of three results to one call message.
      history.push({ role: 'user', content: 'and the three others?' });
      history.push({ role: 'assistant', content: '', toolCalls: ['a', 'b', 'c'].map((x) => ({ id: `batch_${x}`, name: 'ReadFile', arguments: `{"path":"${x}.ts"}` })) });
      for (const x of ['a', 'b', 'c']) history.push({ role: 'tool', toolCallId: `batch_${x}`, toolName: 'ReadFile', content: [{ type: 'text', text: `const ${x} = 1;\n`.repeat(30) }] });
      const budget = new ContextBudget({ window });
      const { request } = await budget.fit(history, build(history), signal);
      assert.ok(requestTokens(request) <= budget.limit, `window ${window}: ${requestTokens(request)}`);
      assertPairsKept(history);
    }
  });

  it('shrinks a single turn too large for the window instead of sending it over', async () => {
    const history: ChatMessage[] = [{ role: 'user', content: 'word '.repeat(20_000) }];
    const budget = new ContextBudget({ window: 2_048 });
    const { request, compaction } = await budget.fit(history, build(history), signal);
    assert.ok(requestTokens(request) <= budget.limit);
    assert.ok(compaction && compaction.messages >= 1);
    assert.match(request.messages[1].content as string, /characters omitted to fit the model's context window/);
  });

  describe('with a summariser (the real SDK against the fake OpenAI endpoint)', () => {
    let fake: FakeOpenAI;
    beforeEach(async () => (fake = await startFakeOpenAI()));
    afterEach(async () => fake.close());

    it('replaces the oldest turns by the model\'s summary, asked for in a separate request without tools', async () => {
      fake.enqueue({ text: 'The user asked about files 0 to 20; each exports valueN = N.', pieces: 3 });
      const model = new OpenAIChatModel({ baseURL: fake.baseURL, model: 'gpt-test', apiKey: 'sk-x', maxRetries: 0 });
      const history = conversation(30);
      const budget = new ContextBudget({ window: 4_096, summarizer: model });
      const { request, compaction } = await budget.fit(history, build(history), signal);
      assert.ok(compaction && compaction.mode === 'summarized');
      assert.ok(requestTokens(request) <= budget.limit);
      const summary = request.messages[1];
      assert.ok(summary.role === 'user' && summary.content.startsWith(SUMMARY_MARK));
      assert.match(summary.content, /each exports valueN = N\.$/);
      assertPairsKept(history);

      assert.equal(fake.requests.length, 1);
      const asked = fake.requests[0].body;
      assert.equal(asked.tools, undefined);
      assert.match(String(asked.messages[0].content), /^Summarise the conversation/);
      // The turns compacted are the ones the summariser read.
      assert.match(String(asked.messages[1].content), /Question 0: what does file 0 say\?/);
      assert.ok(countTokens(JSON.stringify(asked.messages)) <= 4_096);
    });

    it('elides with a marker when the summary request fails', async () => {
      fake.enqueue({ status: 500 });
      const model = new OpenAIChatModel({ baseURL: fake.baseURL, model: 'gpt-test', apiKey: 'sk-x', maxRetries: 0 });
      const history = conversation(30);
      const budget = new ContextBudget({ window: 4_096, summarizer: model });
      const { request, compaction } = await budget.fit(history, build(history), signal);
      assert.equal(compaction?.mode, 'elided');
      assert.ok((request.messages[1].content as string).startsWith(ELIDED_MARK));
      assert.ok(requestTokens(request) <= budget.limit);
    });
  });
});

describe('context/budget: oversized tool results', () => {
  it('cuts a result over the share to a head/tail excerpt naming a handle that reads the whole back', () => {
    const budget = new ContextBudget({ window: 8_192 });
    const text = Array.from({ length: 5000 }, (_, i) => `row ${i}`).join('\n');
    const [cut] = budget.admit('t', 'Query', [{ type: 'text', text }]);
    assert.ok(cut.type === 'text');
    assert.ok(countTokens(cut.text) <= budget.resultShare, `${countTokens(cut.text)}`);
    assert.ok(cut.text.startsWith('row 0\nrow 1') && cut.text.endsWith('row 4999'));
    const handle = /under the handle "(result_[0-9a-f]{12})"/.exec(cut.text)?.[1];
    assert.ok(handle, cut.text);
    const kept = budget.results.get('t', handle);
    assert.ok(kept.ok && kept.text === text);
    assert.deepEqual(budget.tools('t').map((t) => t.name), ['ReadToolResult', 'SearchToolResult']);
    assert.deepEqual(budget.tools('other'), []);
  });

  it('leaves a result within the share, and binary items, as they are', () => {
    const budget = new ContextBudget({ window: 8_192 });
    const small = [{ type: 'text' as const, text: 'fine' }];
    assert.equal(budget.admit('t', 'A', small), small);
    const image = { type: 'binary' as const, mimeType: 'image/png', bytes: new Uint8Array(100_000) };
    const withImage = budget.admit('t', 'A', [{ type: 'text', text: 'x y '.repeat(10_000) }, image]);
    assert.equal(withImage[1], image);
    assert.equal(budget.results.has('t'), true);
  });
});
