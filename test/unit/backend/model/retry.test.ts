/**
 * streamWithRetries (src/backend/model/retry.ts): which model failures are sent again, and that a
 * request that already streamed something never is.
 */
import * as assert from 'node:assert/strict';
import { ModelFailure, type ChatModel, type ModelChunk } from '../../../../src/backend/model/chatModel';
import { streamWithRetries, type ModelRetryNote } from '../../../../src/backend/model/retry';
import { ErrorCode } from '../../../../src/protocol';

/** A model whose n-th request runs the n-th script: chunks, then a failure (or none). */
function scriptedModel(scripts: Array<{ chunks?: ModelChunk[]; fail?: ModelFailure }>): ChatModel & { requests: number } {
  const model = {
    name: 'm',
    offline: false,
    requests: 0,
    async *stream(): AsyncIterable<ModelChunk> {
      const script = scripts[model.requests++];
      for (const chunk of script?.chunks ?? []) yield chunk;
      if (script?.fail) throw script.fail;
    },
  };
  return model;
}

const timeout = () => new ModelFailure(ErrorCode.ModelTimeout, 'No answer from m within 1 s: long.', true, 'No answer from m within 1 s');
const request = { messages: [], tools: [] };

async function collect(model: ChatModel, retries: number, signal = new AbortController().signal): Promise<{ chunks: ModelChunk[]; notes: ModelRetryNote[]; error?: unknown }> {
  const notes: ModelRetryNote[] = [];
  const chunks: ModelChunk[] = [];
  try {
    for await (const c of streamWithRetries(model, request, signal, retries, (n) => notes.push(n), () => 1)) chunks.push(c);
    return { chunks, notes };
  } catch (error) {
    return { chunks, notes, error };
  }
}

describe('streamWithRetries: a model request with no answer in time is sent again, announced', () => {
  it('a timeout before anything arrived is retried and announced; the next answer streams', async () => {
    const model = scriptedModel([{ fail: timeout() }, { chunks: [{ type: 'text', text: 'hi' }] }]);
    const { chunks, notes, error } = await collect(model, 2);
    assert.equal(error, undefined);
    assert.deepEqual(chunks, [{ type: 'text', text: 'hi' }]);
    assert.deepEqual(notes.map((n) => [n.attempt, n.of, n.failure.summary]), [[1, 2, 'No answer from m within 1 s']]);
    assert.equal(model.requests, 2);
  });

  it('after the last retry the failure says how often it was tried', async () => {
    const model = scriptedModel([{ fail: timeout() }, { fail: timeout() }, { fail: timeout() }]);
    const { notes, error } = await collect(model, 2);
    assert.deepEqual(notes.map((n) => n.attempt), [1, 2]);
    assert.ok(error instanceof ModelFailure);
    assert.equal(error.code, ErrorCode.ModelTimeout);
    assert.equal(error.message, 'No answer from m within 1 s: long. Tried 3 times.');
  });

  it('a request that streamed text before its timeout is not repeated (its text is already shown)', async () => {
    const model = scriptedModel([{ chunks: [{ type: 'text', text: 'half' }], fail: timeout() }, { chunks: [{ type: 'text', text: 'again' }] }]);
    const { chunks, notes, error } = await collect(model, 2);
    assert.ok(error instanceof ModelFailure);
    assert.deepEqual(chunks, [{ type: 'text', text: 'half' }]);
    assert.equal(notes.length, 0);
    assert.equal(model.requests, 1);
  });

  it('other failures (a refused key) are not retried here', async () => {
    const model = scriptedModel([{ fail: new ModelFailure(ErrorCode.ModelAuth, 'refused', false) }]);
    const { notes, error } = await collect(model, 2);
    assert.equal((error as ModelFailure).code, ErrorCode.ModelAuth);
    assert.equal(notes.length, 0);
    assert.equal(model.requests, 1);
  });

  it('a cancelled run does not retry', async () => {
    const controller = new AbortController();
    const model = scriptedModel([{ fail: timeout() }, { chunks: [{ type: 'text', text: 'x' }] }]);
    controller.abort();
    const { chunks, error } = await collect(model, 2, controller.signal);
    assert.ok(error instanceof ModelFailure);
    assert.deepEqual(chunks, []);
    assert.equal(model.requests, 1);
  });
});
