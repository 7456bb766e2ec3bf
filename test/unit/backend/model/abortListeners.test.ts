/**
 * A run hands one AbortSignal to every model request it makes. The SDK adds an abort listener to
 * the signal it is given and never removes it, so a run's signal collected one listener per
 * request (each holding that request's controller), and past ten Node printed
 * MaxListenersExceededWarning. Each request now gets its own signal, untied when it ends.
 */
import { strict as assert } from 'node:assert';
import { getEventListeners } from 'node:events';
import type { ModelChunk } from '../../../../src/backend';
import { OpenAIChatModel, ResponsesChatModel } from '../../../../src/backend';
import { startFakeOpenAI, type FakeOpenAI } from '../../../support/fake-openai';

async function drain(stream: AsyncIterable<ModelChunk>): Promise<void> {
  for await (const chunk of stream) void chunk;
}

describe('backend model requests leave no listener on the run\'s signal', () => {
  let fake: FakeOpenAI;
  beforeEach(async () => (fake = await startFakeOpenAI()));
  afterEach(() => fake.close());

  const request = { messages: [{ role: 'user' as const, content: 'hi' }], tools: [] };

  for (const [wire, make] of [
    ['Chat Completions', () => new OpenAIChatModel({ baseURL: fake.baseURL, model: 'gpt-test', apiKey: 'sk-x', maxRetries: 0 })],
    ['Responses', () => new ResponsesChatModel({ baseURL: fake.baseURL, model: 'gpt-test', apiKey: 'sk-x', maxRetries: 0, api: 'responses' })],
  ] as const) {
    it(`${wire}: 25 requests on one signal (a run of 25 turns) leave it with no abort listener, and no warning is printed`, async () => {
      const warnings: string[] = [];
      const onWarning = (w: Error) => warnings.push(`${w.name}: ${w.message}`);
      process.on('warning', onWarning);
      try {
        const model = make();
        const run = new AbortController();
        for (let turn = 0; turn < 25; turn++) {
          fake.enqueue({ text: `turn ${turn}` });
          await drain(model.stream(request, run.signal));
        }
        // A failed request (an error status) unties too.
        fake.enqueue({ status: 400 });
        await assert.rejects(drain(model.stream(request, run.signal)));
        assert.equal(getEventListeners(run.signal, 'abort').length, 0);
        await new Promise((resolve) => setImmediate(resolve));
        assert.deepEqual(warnings.filter((w) => w.startsWith('MaxListenersExceededWarning')), []);
      } finally {
        process.off('warning', onWarning);
      }
    });
  }

  it('a request the run cancels is stopped: the stream ends quietly and the signal keeps no listener', async () => {
    const model = new OpenAIChatModel({ baseURL: fake.baseURL, model: 'gpt-test', apiKey: 'sk-x', maxRetries: 0 });
    fake.enqueue({ hang: true });
    const run = new AbortController();
    const streaming = drain(model.stream(request, run.signal));
    await fake.waitForRequests(1);
    run.abort();
    await streaming;
    assert.equal(getEventListeners(run.signal, 'abort').length, 0);
  });
});
