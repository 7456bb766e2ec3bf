/**
 * The limits the extension announces in `hello.limits` bind the backend (PROTOCOL.md "Limits each
 * side announces"): no frame larger than `maxMessageBytes` (display events shortened, a long text
 * split, a request that cannot fit never sent), at most `maxInFlight` requests pending, and no
 * re-send later than `replayWindowMs` after the request went out. Without `limits` (an older
 * extension) the defaults apply and nothing is shortened.
 */
import { strict as assert } from 'node:assert';
import type { WebSocket } from 'ws';
import type { BackendOptions } from '../../../../src/backend';
import { ErrorCode, type Hello } from '../../../../src/protocol';
import { delay, type TestClient } from '../../../support/backend-client';
import type { ChatRequestMessage } from '../../../support/fake-openai';
import type { Harness } from '../../../support/backend-harness';
import { eventFor, eventually, harness } from '../../../support/backend-harness';

const SMALL = 65_536;
const lastToolText = (h: Harness, i: number) => String(h.fake.requests[i].body.messages.filter((m: ChatRequestMessage) => m.role === 'tool').at(-1)?.content);

/** The size of every frame the client receives from now on (a fragmented binary message counts whole). */
function frameSizes(client: TestClient): number[] {
  const sizes: number[] = [];
  (client.ws as WebSocket).on('message', (data: Buffer | Buffer[]) => sizes.push(Array.isArray(data) ? data.reduce((n, b) => n + b.length, 0) : data.length));
  return sizes;
}

describe('backend: the limits the extension announces in hello', () => {
  let h: Harness | undefined;
  afterEach(async () => {
    await h?.close();
    h = undefined;
  });

  async function start(limits: Hello['limits'], options: BackendOptions = {}): Promise<Harness> {
    // A window large enough that these tests' long texts never trigger compaction.
    h = await harness({ invokeTimeoutMs: 10_000, contextWindow: 1_000_000, ...options }, { preExpanded: ['IDE'], ...(limits ? { limits } : {}) });
    return h;
  }

  it('a result too large to echo within maxMessageBytes: toolCallEnded keeps its outcome with a note instead of the content; the model gets the result', async () => {
    await start({ maxMessageBytes: SMALL, maxInFlight: 64, replayWindowMs: 600_000 });
    const sizes = frameSizes(h!.client);
    const big = 'x'.repeat(100_000);
    h!.fake.enqueue({ toolCalls: [{ name: 'ReadFile', id: 'c1', arguments: { path: 'big.txt' } }] }, { text: 'read it' });
    h!.client.autoAnswer(() => ({ success: true, content: [{ type: 'text', text: big }] }));
    const { finished } = await h!.client.run('t1', 'read big.txt');
    assert.equal(finished.reason, 'completed');
    const ended = h!.client.all('toolCallEnded')[0];
    assert.equal(ended.outcome, 'succeeded');
    assert.equal(ended.content.length, 1);
    assert.match(ended.content[0].type === 'text' ? ended.content[0].text : '', /^\[result not shown here: this message would have been \d+ bytes, more than the editor accepts \(65536\)\]$/);
    assert.ok(lastToolText(h!, 1).startsWith('x'.repeat(1000)), 'the model received the result, not the note');
    assert.ok(sizes.length > 0 && Math.max(...sizes) <= SMALL, `largest frame ${Math.max(...sizes)}`);
  });

  it('arguments too large for the extension: toolCallStarted is shortened, the request is never sent, the call fails with MESSAGE_TOO_LARGE', async () => {
    await start({ maxMessageBytes: SMALL, maxInFlight: 64, replayWindowMs: 600_000 });
    const sizes = frameSizes(h!.client);
    h!.fake.enqueue({ toolCalls: [{ name: 'ShowMessage', id: 'c1', arguments: { message: 'y'.repeat(80_000) } }] }, { text: 'could not' });
    const { finished } = await h!.client.run('t1', 'say a lot');
    assert.equal(finished.reason, 'completed');
    assert.equal(h!.client.all('clientToolInvokeRequest').length, 0, 'no request was sent');
    const started = h!.client.all('toolCallStarted')[0];
    assert.equal(started.executor, 'client');
    assert.deepEqual(Object.keys(started.arguments), ['…']);
    const ended = h!.client.all('toolCallEnded')[0];
    assert.deepEqual([ended.outcome, ended.errorCode], ['failed', ErrorCode.MessageTooLarge]);
    assert.match(lastToolText(h!, 1), /^Error \(MESSAGE_TOO_LARGE\): ShowMessage was not sent/);
    assert.ok(Math.max(...sizes) <= SMALL);
  });

  it('a long answer is split into textDeltas that each fit and add up to the whole text', async () => {
    await start({ maxMessageBytes: SMALL, maxInFlight: 64, replayWindowMs: 600_000 });
    const sizes = frameSizes(h!.client);
    const text = `${'é'.repeat(40_000)}😀${'"'.repeat(40_000)}`;
    h!.fake.enqueue({ text, pieces: 1 });
    const { runId } = await h!.client.run('t1', 'talk');
    assert.equal(h!.client.text(runId), text);
    assert.ok(h!.client.all('textDelta').length > 1);
    assert.ok(Math.max(...sizes) <= SMALL, `largest frame ${Math.max(...sizes)}`);
  });

  it('maxJsonBytes binds the JSON of every message under a larger maxMessageBytes: a result echo is shortened, a long answer split, each within it', async () => {
    await start({ maxMessageBytes: 33_554_432, maxInFlight: 64, replayWindowMs: 600_000, maxJsonBytes: SMALL });
    const sizes = frameSizes(h!.client);
    const answer = 'z'.repeat(150_000);
    h!.fake.enqueue({ toolCalls: [{ name: 'ReadFile', id: 'c1', arguments: { path: 'big.txt' } }] }, { text: answer, pieces: 1 });
    h!.client.autoAnswer(() => ({ success: true, content: [{ type: 'text', text: 'x'.repeat(100_000) }] }));
    const { runId, finished } = await h!.client.run('t1', 'read big.txt');
    assert.equal(finished.reason, 'completed');
    const ended = h!.client.all('toolCallEnded')[0];
    assert.equal(ended.outcome, 'succeeded');
    assert.match(ended.content[0].type === 'text' ? ended.content[0].text : '', /^\[result not shown here: this message would have been \d+ bytes, more than the editor accepts \(65536\)\]$/);
    assert.ok(lastToolText(h!, 1).startsWith('x'.repeat(1000)), 'the model received the result, not the note');
    assert.equal(h!.client.text(runId), answer);
    assert.ok(h!.client.all('textDelta').length > 1);
    assert.ok(Math.max(...sizes) <= SMALL, `largest frame ${Math.max(...sizes)}`);
  });

  it('without limits (an older extension) nothing is shortened: the default of 32 MiB applies', async () => {
    await start(undefined);
    const big = 'x'.repeat(100_000);
    h!.fake.enqueue({ toolCalls: [{ name: 'ReadFile', id: 'c1', arguments: { path: 'big.txt' } }] }, { text: 'read it' });
    h!.client.autoAnswer(() => ({ success: true, content: [{ type: 'text', text: big }] }));
    await h!.client.run('t1', 'read big.txt');
    assert.deepEqual(h!.client.all('toolCallEnded')[0].content, [{ type: 'text', text: big }]);
  });

  it('maxInFlight: at most that many requests are pending; a call past it ends at the backend with TOO_MANY_IN_FLIGHT, unsent', async () => {
    await start({ maxMessageBytes: 33_554_432, maxInFlight: 1, replayWindowMs: 600_000 });
    h!.fake.enqueue({ toolCalls: [{ name: 'OpenFile', id: 'c1', arguments: { path: 'a.ts' } }, { name: 'GetSelection', id: 'c2' }] }, { text: 'done' });
    h!.client.autoAnswer(async () => {
      await delay(50);
      return { success: true, content: [{ type: 'text', text: 'ok' }] };
    });
    await h!.client.run('t1', 'two at once');
    assert.deepEqual(h!.client.all('clientToolInvokeRequest').map((r) => r.toolName), ['OpenFile']);
    const second = h!.client.all('toolCallEnded').find((e) => e.callId === 'c2');
    assert.deepEqual([second?.outcome, second?.errorCode], ['failed', ErrorCode.TooManyInFlight]);
  });

  it('replayWindowMs: a call waiting for a resume ends with DISCONNECTED once its request could no longer be re-sent safely, and is not re-sent', async () => {
    await start({ maxMessageBytes: 33_554_432, maxInFlight: 64, replayWindowMs: 300 }, { disconnectStrategy: 'suspend' });
    h!.fake.enqueue({ toolCalls: [{ name: 'OpenFile', id: 'c1', arguments: { path: 'a.ts' } }] }, { text: 'after' });
    h!.client.send({ type: 'userMessage', threadId: 't1', text: 'open a.ts' });
    await h!.client.next('clientToolInvokeRequest');
    await h!.client.drop();
    await eventually(() => assert.ok(eventFor(h!.events, 'toolCallEnded', 'c1')));
    const ended = eventFor(h!.events, 'toolCallEnded', 'c1')!;
    assert.deepEqual([ended.outcome, ended.errorCode], ['failed', ErrorCode.Disconnected]);
    assert.match(ended.errorMessage ?? '', /replay window/);
    const again = await h!.connect({ resumeSession: h!.sessionId, resumeSecret: h!.resumeSecret });
    await delay(100);
    assert.equal(again.all('clientToolInvokeRequest').length, 0, 'the request was not sent again');
  });

  it('a resume within the window re-sends the request as before', async () => {
    await start({ maxMessageBytes: 33_554_432, maxInFlight: 64, replayWindowMs: 5_000 }, { disconnectStrategy: 'suspend' });
    h!.fake.enqueue({ toolCalls: [{ name: 'OpenFile', id: 'c1', arguments: { path: 'a.ts' } }] }, { text: 'after' });
    h!.client.send({ type: 'userMessage', threadId: 't1', text: 'open a.ts' });
    const first = await h!.client.next('clientToolInvokeRequest');
    await h!.client.drop();
    const again = await h!.connect({ resumeSession: h!.sessionId, resumeSecret: h!.resumeSecret, limits: { maxMessageBytes: 33_554_432, maxInFlight: 64, replayWindowMs: 5_000 } });
    const resent = await again.next('clientToolInvokeRequest');
    assert.equal(resent.requestId, first.requestId);
  });
});
