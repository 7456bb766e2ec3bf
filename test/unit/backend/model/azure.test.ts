import { strict as assert } from 'node:assert';
import type { ModelChunk, OpenAIModelConfig } from '../../../../src/backend';
import { createChatModel, ModelFailure, OpenAIChatModel, ResponsesChatModel } from '../../../../src/backend';
import { ErrorCode } from '../../../../src/protocol';
import type { FakeOpenAI } from '../../../support/fake-openai';
import { startFakeOpenAI } from '../../../support/fake-openai';

async function collect(stream: AsyncIterable<ModelChunk>): Promise<ModelChunk[]> {
  const out: ModelChunk[] = [];
  for await (const c of stream) out.push(c);
  return out;
}

describe('backend Azure OpenAI (the SDK\'s AzureOpenAI client against the fake in Azure\'s URL shape)', () => {
  let fake: FakeOpenAI;
  beforeEach(async () => (fake = await startFakeOpenAI()));
  afterEach(() => fake.close());

  const config = (extra: Partial<OpenAIModelConfig> = {}): OpenAIModelConfig => ({
    model: 'gpt-4.1',
    apiKey: 'azure-key-123',
    maxRetries: 0,
    provider: 'azure',
    azure: { endpoint: fake.azureEndpoint, deployment: 'my-gpt', apiVersion: '2025-04-01-preview' },
    ...extra,
  });
  const request = { messages: [{ role: 'user' as const, content: 'hi' }], tools: [{ name: 'f', description: 'd', parameters: { type: 'object' } }] };
  const signal = () => new AbortController().signal;

  it('calls Chat Completions on /openai/deployments/{deployment} with api-version and the api-key header', async () => {
    fake.enqueue({ text: 'Hello from Azure' });
    const model = createChatModel(config());
    assert.ok(model instanceof OpenAIChatModel);
    const chunks = await collect(model.stream(request, signal()));
    assert.equal(chunks.map((c) => (c.type === 'text' ? c.text : '')).join(''), 'Hello from Azure');
    const r = fake.requests[0];
    assert.equal(r.path, '/openai/deployments/my-gpt/chat/completions');
    assert.equal(r.query['api-version'], '2025-04-01-preview');
    assert.equal(r.headers['api-key'], 'azure-key-123');
    assert.equal(r.headers.authorization, undefined, 'a key goes in api-key, not as a bearer token');
  });

  it('routes to the model name as deployment when none is given', async () => {
    fake.enqueue({ text: 'ok' });
    await collect(createChatModel(config({ azure: { endpoint: fake.azureEndpoint, apiVersion: '2024-10-21' } })).stream(request, signal()));
    assert.equal(fake.requests[0].deployment, 'gpt-4.1');
    assert.equal(fake.requests[0].query['api-version'], '2024-10-21');
  });

  it('sends an Entra ID token as Authorization: Bearer and no api-key', async () => {
    fake.enqueue({ text: 'ok' });
    const entra = config({ apiKey: undefined, azure: { endpoint: fake.azureEndpoint, deployment: 'my-gpt', apiVersion: '2025-04-01-preview', entraToken: 'eyJ.entra.token' } });
    await collect(createChatModel(entra).stream(request, signal()));
    assert.equal(fake.requests[0].headers.authorization, 'Bearer eyJ.entra.token');
    assert.equal(fake.requests[0].headers['api-key'], undefined);
  });

  it('streams two parallel tool calls on the Responses API at /openai/responses, the deployment as model', async () => {
    fake.enqueue({ toolCalls: [{ name: 'ReadFile', id: 'call_1', arguments: { path: 'a.ts' } }, { name: 'ReadFile', id: 'call_2', arguments: { path: 'b.ts' } }] });
    const model = createChatModel(config({ api: 'responses' }));
    assert.ok(model instanceof ResponsesChatModel);
    const chunks = await collect(model.stream(request, signal()));
    assert.deepEqual(chunks.filter((c) => c.type === 'toolCall').map((c) => c.type === 'toolCall' && c.call.arguments), ['{"path":"a.ts"}', '{"path":"b.ts"}']);
    const r = fake.requests[0];
    assert.equal(r.path, '/openai/responses');
    assert.equal(r.wire, 'responses');
    assert.equal(r.query['api-version'], '2025-04-01-preview');
    assert.equal(r.body.model, 'my-gpt');
    assert.equal(r.headers['api-key'], 'azure-key-123');
  });

  it('maps 401 to MODEL_AUTH naming the Azure endpoint and neither key nor token; 429 to MODEL_RATE_LIMITED; 400 context length to MODEL_ERROR', async () => {
    fake.enqueue({ status: 401, message: 'Access denied due to invalid subscription key or wrong API endpoint.' });
    await assert.rejects(collect(createChatModel(config()).stream(request, signal())), (e: unknown) => {
      assert.ok(e instanceof ModelFailure);
      assert.equal(e.code, ErrorCode.ModelAuth);
      assert.match(e.message, /Azure OpenAI http:\/\/127\.0\.0\.1:\d+\/ \(deployment my-gpt\)/);
      assert.match(e.message, /AZURE_OPENAI_API_KEY/);
      assert.equal(e.message.includes('azure-key-123'), false);
      return true;
    });
    fake.enqueue({ status: 401 });
    const entra = config({ apiKey: undefined, azure: { endpoint: fake.azureEndpoint, deployment: 'my-gpt', apiVersion: '2025-04-01-preview', entraToken: 'eyJ.entra.token' } });
    await assert.rejects(collect(createChatModel(entra).stream(request, signal())), (e: unknown) => {
      assert.ok(e instanceof ModelFailure);
      assert.equal(e.code, ErrorCode.ModelAuth);
      assert.match(e.message, /Entra ID token.*az account get-access-token/);
      return true;
    });
    fake.enqueue({ status: 429 }, { status: 429 });
    await assert.rejects(collect(createChatModel(config({ maxRetries: 1, api: 'responses' })).stream(request, signal())), (e: unknown) => e instanceof ModelFailure && e.code === ErrorCode.ModelRateLimited);
    assert.equal(fake.requests.length, 4, 'the 429 was retried once after its retry-after');
    fake.enqueue({ status: 400, code: 'context_length_exceeded', message: "This model's maximum context length is 128000 tokens." });
    await assert.rejects(collect(createChatModel(config()).stream(request, signal())), (e: unknown) => e instanceof ModelFailure && e.code === ErrorCode.ModelError && !e.retryable && /maximum context length/.test(e.message));
  });

  it('refuses an Azure config without an endpoint or api-version, saying which', () => {
    assert.throws(() => createChatModel(config({ azure: undefined })), /needs an endpoint/);
    assert.throws(() => createChatModel(config({ azure: { endpoint: fake.azureEndpoint, apiVersion: '' } })), /api-version/);
  });

  it('is backed by a fake that refuses Azure requests without api-version, as Azure does', async () => {
    const res = await fetch(`${fake.azureEndpoint}openai/deployments/my-gpt/chat/completions`, { method: 'POST', body: '{}' });
    assert.equal(res.status, 400);
    assert.match(await res.text(), /api-version/);
  });
});
