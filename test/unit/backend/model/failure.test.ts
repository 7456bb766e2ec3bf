/**
 * toModelFailure (src/backend/model/failure.ts): a model endpoint that cannot be reached is named
 * with the network's reason in words, not the SDK's bare "Connection error.".
 */
import * as assert from 'node:assert/strict';
import net from 'node:net';
import { ModelFailure } from '../../../../src/backend/model/chatModel';
import { OpenAIChatModel } from '../../../../src/backend/model/openai';
import { ErrorCode } from '../../../../src/protocol';

/** A loopback port nothing listens on: one that was just open and is closed again. */
async function closedPort(): Promise<number> {
  const server = net.createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as net.AddressInfo;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

describe('toModelFailure: an unreachable endpoint says why, in words', () => {
  it('connection refused: "Could not reach llama3.1 at …: connection refused (is the server running?)", MODEL_ERROR, retryable', async () => {
    const baseURL = `http://127.0.0.1:${await closedPort()}/v1`;
    const model = new OpenAIChatModel({ model: 'llama3.1', baseURL, apiKey: 'sk-test', maxRetries: 0 });
    let failure: unknown;
    try {
      for await (const _ of model.stream({ messages: [{ role: 'user', content: 'hi' }], tools: [] }, new AbortController().signal)) void _;
    } catch (e) {
      failure = e;
    }
    assert.ok(failure instanceof ModelFailure, String(failure));
    assert.equal(failure.code, ErrorCode.ModelError);
    assert.equal(failure.retryable, true);
    assert.equal(failure.message, `Could not reach llama3.1 at ${baseURL}: connection refused (is the server running?).`);
    assert.doesNotMatch(failure.message, /Connection error/);
  });
});
