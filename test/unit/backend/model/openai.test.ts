import { strict as assert } from 'node:assert';
import OpenAI from 'openai';
import type { ModelChunk } from '../../../../src/backend';
import { ModelFailure, OpenAIChatModel } from '../../../../src/backend';
import { toOpenAIMessages } from '../../../../src/backend/model/openai';
import { toolResultText } from '../../../../src/backend/model/toolResult';
import { ErrorCode } from '../../../../src/protocol';
import type { FakeOpenAI } from '../../../support/fake-openai';
import { startFakeOpenAI } from '../../../support/fake-openai';
import { makePng } from '../../../support/png';

async function collect(stream: AsyncIterable<ModelChunk>): Promise<ModelChunk[]> {
  const out: ModelChunk[] = [];
  for await (const c of stream) out.push(c);
  return out;
}

describe('backend OpenAI chat model', () => {
  let fake: FakeOpenAI;
  beforeEach(async () => (fake = await startFakeOpenAI()));
  afterEach(() => fake.close());

  const model = (extra = {}) => new OpenAIChatModel({ baseURL: fake.baseURL, model: 'gpt-test', apiKey: 'sk-x', maxRetries: 0, ...extra });
  const request = { messages: [{ role: 'user' as const, content: 'hi' }], tools: [{ name: 'f', description: 'd', parameters: { type: 'object' } }] };

  it('assembles tool calls whose arguments arrive over several chunks, in index order, after the text', async () => {
    fake.enqueue({ text: 'Let me look.', toolCalls: [{ name: 'ReadFile', id: 'call_a', arguments: { path: 'src/some/long/path/name.ts', startLine: 10 } }, { name: 'GetSelection', id: 'call_b' }] });
    const chunks = await collect(model().stream(request, new AbortController().signal));
    assert.deepEqual(chunks, [
      { type: 'text', text: 'Let me look.' },
      { type: 'usage', promptTokens: 42, completionTokens: 7, cachedPromptTokens: 0 },
      { type: 'toolCall', call: { id: 'call_a', name: 'ReadFile', arguments: '{"path":"src/some/long/path/name.ts","startLine":10}' } },
      { type: 'toolCall', call: { id: 'call_b', name: 'GetSelection', arguments: '{}' } },
      { type: 'finish', reason: 'tool_calls' },
    ]);
    const body = fake.requests[0].body;
    assert.equal(body.model, 'gpt-test');
    assert.deepEqual(body.tools, [{ type: 'function', function: { name: 'f', description: 'd', parameters: { type: 'object' } } }]);
  });

  it('reports the usage of the final chunk, cached prompt tokens included, and leaves them out when the endpoint does', async () => {
    fake.enqueue({ text: 'cached answer', usage: { prompt: 1234, completion: 340, cached: 800 } }, { text: 'plain', usage: { prompt: 50, completion: 5, cached: null } });
    const usageOf = async () => (await collect(model().stream(request, new AbortController().signal))).filter((c) => c.type === 'usage');
    assert.deepEqual(await usageOf(), [{ type: 'usage', promptTokens: 1234, completionTokens: 340, cachedPromptTokens: 800 }]);
    assert.deepEqual(await usageOf(), [{ type: 'usage', promptTokens: 50, completionTokens: 5 }]);
    assert.deepEqual(fake.requests[0].body.stream_options, { include_usage: true });
  });

  it('leaves tools out of the request when there are none', async () => {
    fake.enqueue({ text: 'plain' });
    await collect(model().stream({ messages: request.messages, tools: [] }, new AbortController().signal));
    assert.equal('tools' in fake.requests[0].body, false);
  });

  it('throws a ModelFailure with MODEL_AUTH on 401 that names no key', async () => {
    fake.enqueue({ status: 401 });
    await assert.rejects(collect(model().stream(request, new AbortController().signal)), (e: unknown) => {
      assert.ok(e instanceof ModelFailure);
      assert.equal(e.code, ErrorCode.ModelAuth);
      assert.equal(e.retryable, false);
      assert.equal(e.message.includes('sk-x'), false);
      return true;
    });
  });

  it('says so when no API key is set at all', async () => {
    fake.enqueue({ status: 401 });
    await assert.rejects(collect(model({ apiKey: undefined }).stream(request, new AbortController().signal)), /No API key is set/);
  });

  it('stops quietly when aborted mid-stream', async () => {
    fake.enqueue({ hang: true });
    const controller = new AbortController();
    const done = collect(model().stream(request, controller.signal));
    await fake.waitForRequests(1);
    controller.abort();
    assert.deepEqual(await done, []);
  });

  it('converts history to chat-completions messages; images go to the model only when enabled', async () => {
    const bytes = new Uint8Array(makePng(2, 2));
    const png = { type: 'binary' as const, mimeType: 'image/png', filename: 'logo.png', bytes };
    const history = [
      { role: 'system' as const, content: 'sys' },
      { role: 'user' as const, content: 'read logo' },
      { role: 'assistant' as const, content: '', toolCalls: [{ id: 'c1', name: 'ReadFile', arguments: '{"path":"logo.png"}' }] },
      { role: 'tool' as const, toolCallId: 'c1', toolName: 'ReadFile', content: [png] },
    ];
    assert.deepEqual(await toOpenAIMessages(history, false), [
      { role: 'system', content: 'sys' },
      { role: 'user', content: 'read logo' },
      { role: 'assistant', content: null, tool_calls: [{ id: 'c1', type: 'function', function: { name: 'ReadFile', arguments: '{"path":"logo.png"}' } }] },
      { role: 'tool', tool_call_id: 'c1', content: `[logo.png: image/png, ${bytes.length} bytes]` },
    ]);
    const withImages = await toOpenAIMessages(history, true);
    assert.deepEqual(withImages.at(-2), { role: 'tool', tool_call_id: 'c1', content: `[logo.png: image/png, ${bytes.length} bytes; image 1 below, 2x2]` });
    assert.deepEqual(withImages.at(-1), {
      role: 'user',
      content: [{ type: 'text', text: 'Images returned by the tool calls above:' }, { type: 'image_url', image_url: { url: `data:image/png;base64,${Buffer.from(bytes).toString('base64')}` } }],
    });
  });

  it('is backed by a fake endpoint that also answers non-streaming requests like the real service', async () => {
    fake.enqueue({ toolCalls: [{ name: 'OpenFile', id: 'call_x', arguments: { path: 'a.ts' } }] });
    const client = new OpenAI({ baseURL: fake.baseURL, apiKey: 'sk-x', maxRetries: 0 });
    const completion = await client.chat.completions.create({ model: 'gpt-test', messages: [{ role: 'user', content: 'open a.ts' }] });
    assert.equal(completion.object, 'chat.completion');
    assert.equal(completion.choices[0].finish_reason, 'tool_calls');
    assert.deepEqual(completion.choices[0].message.tool_calls, [{ id: 'call_x', type: 'function', function: { name: 'OpenFile', arguments: '{"path":"a.ts"}' } }]);
    assert.equal(completion.usage?.total_tokens, 49);
  });

  it('renders text-like binaries as their text and JSON compactly', () => {
    const text = toolResultText([
      { type: 'binary', mimeType: 'application/json', bytes: new TextEncoder().encode('{"a":1}') },
      { type: 'json', value: { b: [1, 2] } },
      { type: 'text', text: 'done' },
    ]);
    assert.equal(text, '[application/json, 7 bytes]\n{"a":1}\n{"b":[1,2]}\ndone');
    assert.equal(toolResultText([]), '(no content)');
  });

  it('a JSON value nested too deeply to print reads as a note, not [object Object]', () => {
    const deep = JSON.parse(`${'{"a":'.repeat(10_000)}0${'}'.repeat(10_000)}`) as unknown;
    assert.match(toolResultText([{ type: 'json', value: deep }]), /^\[a JSON value that could not be printed: Maximum call stack size exceeded\]$/);
  });
});
