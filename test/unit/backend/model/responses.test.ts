import { strict as assert } from 'node:assert';
import OpenAI from 'openai';
import type { ModelChunk } from '../../../../src/backend';
import { ModelFailure, ResponsesChatModel } from '../../../../src/backend';
import { toResponsesInput } from '../../../../src/backend/model/responses';
import { ErrorCode } from '../../../../src/protocol';
import type { FakeOpenAI } from '../../../support/fake-openai';
import { startFakeOpenAI } from '../../../support/fake-openai';
import { makePng } from '../../../support/png';

async function collect(stream: AsyncIterable<ModelChunk>): Promise<ModelChunk[]> {
  const out: ModelChunk[] = [];
  for await (const c of stream) out.push(c);
  return out;
}

describe('backend Responses API model (real openai SDK against the fake endpoint)', () => {
  let fake: FakeOpenAI;
  beforeEach(async () => (fake = await startFakeOpenAI()));
  afterEach(() => fake.close());

  const model = (extra = {}) => new ResponsesChatModel({ baseURL: fake.baseURL, model: 'gpt-test', apiKey: 'sk-x', maxRetries: 0, api: 'responses', ...extra });
  const request = { messages: [{ role: 'system' as const, content: 'sys' }, { role: 'user' as const, content: 'hi' }], tools: [{ name: 'f', description: 'd', parameters: { type: 'object' } }] };
  const signal = () => new AbortController().signal;

  it('streams text deltas, then usage from response.completed, then finish', async () => {
    fake.enqueue({ text: 'Hello from the Responses API', pieces: 4 });
    const chunks = await collect(model().stream(request, signal()));
    const texts = chunks.filter((c) => c.type === 'text');
    assert.equal(texts.length, 4, 'one chunk per output_text.delta');
    assert.equal(texts.map((c) => c.text).join(''), 'Hello from the Responses API');
    assert.deepEqual(chunks.slice(4), [
      { type: 'usage', promptTokens: 42, completionTokens: 7, cachedPromptTokens: 16 },
      { type: 'finish', reason: 'stop' },
    ]);
    const { body, path, wire } = fake.requests[0];
    assert.equal(path, '/v1/responses');
    assert.equal(wire, 'responses');
    assert.equal(body.stream, true);
    assert.equal(body.store, false);
    assert.deepEqual(body.input, [{ role: 'system', content: 'sys' }, { role: 'user', content: 'hi' }]);
    assert.deepEqual(body.tools, [{ type: 'function', name: 'f', description: 'd', parameters: { type: 'object' }, strict: false }]);
  });

  it('assembles one tool call whose arguments arrive over several deltas', async () => {
    fake.enqueue({ toolCalls: [{ name: 'ReadFile', id: 'call_a', arguments: { path: 'src/some/long/path/name.ts', startLine: 10 } }] });
    const chunks = await collect(model().stream(request, signal()));
    assert.deepEqual(chunks.filter((c) => c.type !== 'usage'), [
      { type: 'toolCall', call: { id: 'call_a', name: 'ReadFile', arguments: '{"path":"src/some/long/path/name.ts","startLine":10}' } },
      { type: 'finish', reason: 'tool_calls' },
    ]);
  });

  it('yields two parallel tool calls (separate output items) in output order, after the text', async () => {
    fake.enqueue({ text: 'Reading both.', toolCalls: [{ name: 'ReadFile', id: 'call_1', arguments: { path: 'a.ts' } }, { name: 'GetSelection', id: 'call_2' }] });
    const chunks = await collect(model().stream(request, signal()));
    assert.deepEqual(chunks.filter((c) => c.type !== 'usage'), [
      { type: 'text', text: 'Reading both.' },
      { type: 'toolCall', call: { id: 'call_1', name: 'ReadFile', arguments: '{"path":"a.ts"}' } },
      { type: 'toolCall', call: { id: 'call_2', name: 'GetSelection', arguments: '{}' } },
      { type: 'finish', reason: 'tool_calls' },
    ]);
  });

  it('feeds a tool result back as a function_call_output item after the function_call it answers', async () => {
    fake.enqueue({ text: 'The file says hello.' });
    const history = [
      { role: 'user' as const, content: 'read a.ts' },
      { role: 'assistant' as const, content: 'Reading.', toolCalls: [{ id: 'call_1', name: 'ReadFile', arguments: '{"path":"a.ts"}' }, { id: 'call_2', name: 'ReadFile', arguments: '{"path":"b.ts"}' }] },
      { role: 'tool' as const, toolCallId: 'call_1', toolName: 'ReadFile', content: [{ type: 'text' as const, text: 'hello' }] },
      { role: 'tool' as const, toolCallId: 'call_2', toolName: 'ReadFile', content: [{ type: 'json' as const, value: { missing: true } }], errorCode: 'NOT_FOUND' },
    ];
    const chunks = await collect(model().stream({ messages: history, tools: [] }, signal()));
    assert.equal(chunks.map((c) => (c.type === 'text' ? c.text : '')).join(''), 'The file says hello.');
    const { body } = fake.requests[0];
    assert.equal('tools' in body, false);
    assert.deepEqual(body.input, [
      { role: 'user', content: 'read a.ts' },
      { role: 'assistant', content: 'Reading.' },
      { type: 'function_call', call_id: 'call_1', name: 'ReadFile', arguments: '{"path":"a.ts"}' },
      { type: 'function_call', call_id: 'call_2', name: 'ReadFile', arguments: '{"path":"b.ts"}' },
      { type: 'function_call_output', call_id: 'call_1', output: 'hello' },
      { type: 'function_call_output', call_id: 'call_2', output: '{"missing":true}' },
    ]);
  });

  it('maps 401 to MODEL_AUTH without the key, 429 (after its retry-after retries) to MODEL_RATE_LIMITED, and a 400 context-length error to MODEL_ERROR', async () => {
    fake.enqueue({ status: 401 });
    await assert.rejects(collect(model().stream(request, signal())), (e: unknown) => {
      assert.ok(e instanceof ModelFailure);
      assert.equal(e.code, ErrorCode.ModelAuth);
      assert.equal(e.retryable, false);
      assert.equal(e.message.includes('sk-x'), false);
      return true;
    });

    fake.enqueue({ status: 429 }, { status: 429 });
    await assert.rejects(collect(model({ maxRetries: 1 }).stream(request, signal())), (e: unknown) => {
      assert.ok(e instanceof ModelFailure);
      assert.equal(e.code, ErrorCode.ModelRateLimited);
      assert.equal(e.retryable, true);
      return true;
    });
    assert.equal(fake.requests.length, 3, 'the SDK retried the 429 once, honouring retry-after');

    fake.enqueue({ status: 400, code: 'context_length_exceeded', message: 'Your input exceeds the context window of this model.' });
    await assert.rejects(collect(model().stream(request, signal())), (e: unknown) => {
      assert.ok(e instanceof ModelFailure);
      assert.equal(e.code, ErrorCode.ModelError);
      assert.equal(e.retryable, false);
      assert.match(e.message, /HTTP 400.*exceeds the context window/);
      return true;
    });
  });

  it('reports a stream that ends before response.completed, and a function call without a name, as malformed', async () => {
    fake.enqueue({ malformed: 'truncated' }, { malformed: 'noFunctionName' }, { malformed: 'badJson' });
    await assert.rejects(collect(model().stream(request, signal())), (e: unknown) => e instanceof ModelFailure && e.code === ErrorCode.ModelError && /no response.completed/.test(e.message));
    await assert.rejects(collect(model().stream(request, signal())), (e: unknown) => e instanceof ModelFailure && /without a name/.test(e.message));
    await assert.rejects(collect(model().stream(request, signal())), (e: unknown) => e instanceof ModelFailure && e.code === ErrorCode.ModelError && /malformed/.test(e.message));
  });

  it('finishes with length when the response is cut short (response.incomplete), usage still reported; fails with MODEL_ERROR on response.failed', async () => {
    fake.enqueue({ responses: { incomplete: 'max_output_tokens', text: 'Half an ans' } }, { responses: { failed: { code: 'server_error', message: 'The model crashed.' } } });
    const chunks = await collect(model().stream(request, signal()));
    assert.deepEqual(chunks.filter((c) => c.type !== 'text'), [
      { type: 'usage', promptTokens: 42, completionTokens: 7, cachedPromptTokens: 16 },
      { type: 'finish', reason: 'length' },
    ]);
    await assert.rejects(collect(model().stream(request, signal())), (e: unknown) => {
      assert.ok(e instanceof ModelFailure);
      assert.equal(e.code, ErrorCode.ModelError);
      assert.match(e.message, /\(server_error\): The model crashed\./);
      return true;
    });
  });

  it('stops quietly when aborted mid-stream', async () => {
    fake.enqueue({ hang: true });
    const controller = new AbortController();
    const done = collect(model().stream(request, controller.signal));
    await fake.waitForRequests(1);
    controller.abort();
    assert.deepEqual(await done, []);
  });

  describe('tool images', () => {
    const png = { type: 'binary' as const, mimeType: 'image/png', filename: 'logo.png', bytes: new Uint8Array(makePng(32, 8)) };
    const history = [
      { role: 'assistant' as const, content: '', toolCalls: [{ id: 'c1', name: 'ReadFile', arguments: '{"path":"logo.png"}' }] },
      { role: 'tool' as const, toolCallId: 'c1', toolName: 'ReadFile', content: [png] },
    ];
    const imagesIn = (input: unknown[]) => input.flatMap((item) => {
      const content = (item as { content?: unknown }).content;
      return Array.isArray(content) ? content.filter((p: { type: string }) => p.type === 'input_image') : [];
    }) as { image_url: string }[];

    it('without vision: a label in the function_call_output, no image', async () => {
      assert.deepEqual(await toResponsesInput(history, undefined), [
        { type: 'function_call', call_id: 'c1', name: 'ReadFile', arguments: '{"path":"logo.png"}' },
        { type: 'function_call_output', call_id: 'c1', output: `[logo.png: image/png, ${png.bytes.byteLength} bytes]` },
      ]);
    });

    it('with vision: scaled down to the longest side, as input_image parts in a following user message, the output saying where it went', async () => {
      const input = await toResponsesInput(history, { maxSide: 16, maxPixels: 1_000_000 });
      assert.deepEqual(input[1], { type: 'function_call_output', call_id: 'c1', output: `[logo.png: image/png, ${png.bytes.byteLength} bytes; image 1 below, downscaled from 32x8 to 16x4]` });
      const [image] = imagesIn(input);
      const sent = Buffer.from(image.image_url.replace(/^data:image\/png;base64,/, ''), 'base64');
      assert.deepEqual([sent.readUInt32BE(16), sent.readUInt32BE(20)], [16, 4], 'the PNG sent is 16x4');
    });

    it('the model follows the vision setting as Chat Completions does: auto sends images to a known vision model, off sends none', async () => {
      const call = { ...request, messages: [...request.messages, ...history] };
      fake.enqueue({ text: 'a logo' }, { text: 'a logo' }, { text: 'a logo' });
      await collect(model({ model: 'gpt-4o' }).stream(call, signal()));
      await collect(model({ model: 'gpt-4o', vision: 'off' }).stream(call, signal()));
      await collect(model({ model: 'gpt-test', imageMaxSide: 16, vision: 'on' }).stream(call, signal()));
      const sent = fake.requests.map((r) => imagesIn(r.body.input as unknown[]).length);
      assert.deepEqual(sent, [1, 0, 1]);
    });
  });

  it('is backed by a fake that the SDK parses like the real service, streamed and not', async () => {
    fake.enqueue({ toolCalls: [{ name: 'OpenFile', id: 'call_x', arguments: { path: 'a.ts' } }] }, { text: 'hi there' });
    const client = new OpenAI({ baseURL: fake.baseURL, apiKey: 'sk-x', maxRetries: 0 });
    const response = await client.responses.create({ model: 'gpt-test', input: 'open a.ts' });
    assert.equal(response.object, 'response');
    assert.deepEqual(response.output.map((o) => o.type === 'function_call' && [o.call_id, o.name, o.arguments]), [['call_x', 'OpenFile', '{"path":"a.ts"}']]);
    assert.equal(response.usage?.total_tokens, 49);
    // The SDK's own stream helper accumulates the events into a final response: every event must fit.
    const final = await client.responses.stream({ model: 'gpt-test', input: 'hi' }).finalResponse();
    assert.equal(final.output_text, 'hi there');
    assert.deepEqual(fake.requests.map((r) => r.body.stream), [undefined, true]);
  });
});
