import { strict as assert } from 'node:assert';
import { ErrorCode } from '../../../../src/protocol';
import { MAX_STEERS_PER_RUN } from '../../../../src/backend/run/steering';
import type { ChatRequestMessage } from '../../../support/fake-openai';
import type { Harness } from '../../../support/backend-harness';
import { harness } from '../../../support/backend-harness';

const userTexts = (messages: ChatRequestMessage[]) => messages.filter((m) => m.role === 'user').map((m) => String(m.content));

describe('backend: steering a run (steer, withdrawSteer, steerUpdated)', () => {
  let h: Harness | undefined;
  afterEach(async () => {
    await h?.close();
    h = undefined;
  });

  /** Starts a run whose model calls GetSelection (after expanding IDE); resolves with the run id once the call waits for an answer. */
  async function runWaitingOnTool(hh: Harness): Promise<{ runId: string; requestId: string }> {
    hh.fake.enqueue({ toolCalls: [{ name: 'IDE', id: 'call_ide' }] }, { toolCalls: [{ name: 'GetSelection', id: 'call_sel', arguments: {} }] }, { text: 'Done, with your note.' });
    hh.client.send({ type: 'userMessage', threadId: 't1', text: 'look at my selection' });
    const started = await hh.client.next('runStarted', (m) => m.threadId === 't1');
    const request = await hh.client.next('clientToolInvokeRequest');
    return { runId: started.runId, requestId: request.requestId };
  }

  it('a steer sent while a tool runs is queued, replaced by its id, delivered at the tool boundary, and in the model\'s next request after the tool result', async () => {
    h = await harness();
    const { runId, requestId } = await runWaitingOnTool(h);
    h.client.send({ type: 'steer', threadId: 't1', runId, steerId: 's1', text: 'use the tests folder' });
    assert.equal((await h.client.next('steerUpdated', (m) => m.steerId === 's1')).state, 'queued');
    h.client.send({ type: 'steer', threadId: 't1', runId, steerId: 's1', text: 'use the staging folder, not production' });
    assert.equal((await h.client.next('steerUpdated', (m) => m.steerId === 's1')).state, 'queued');
    assert.equal(h.fake.requests.length, 2, 'nothing reached the model before the tool boundary');

    h.client.respond(requestId, { success: true, content: [{ type: 'text', text: 'selected: foo' }] });
    assert.equal((await h.client.next('steerUpdated', (m) => m.steerId === 's1')).state, 'delivered');
    const finished = await h.client.next('runFinished', (m) => m.runId === runId);
    assert.equal(finished.reason, 'completed');

    const last = h.fake.requests[2].body.messages;
    assert.deepEqual(userTexts(last), ['look at my selection', 'use the staging folder, not production']);
    const toolAt = last.findIndex((m) => m.role === 'tool' && m.tool_call_id === 'call_sel');
    assert.ok(toolAt >= 0 && toolAt < last.length - 1 && last[toolAt + 1].role === 'user', 'the steer follows the tool result');
  });

  it('a withdrawn steer never reaches the model; one the run found no tool boundary for is returned before runFinished', async () => {
    h = await harness();
    const { runId, requestId } = await runWaitingOnTool(h);
    h.client.send({ type: 'steer', threadId: 't1', runId, steerId: 'gone', text: 'never mind' });
    await h.client.next('steerUpdated', (m) => m.steerId === 'gone');
    h.client.send({ type: 'withdrawSteer', threadId: 't1', runId, steerId: 'gone' });
    assert.equal((await h.client.next('steerUpdated', (m) => m.steerId === 'gone')).state, 'withdrawn');
    h.client.respond(requestId, { success: true, content: [{ type: 'text', text: 'selected: foo' }] });
    await h.client.next('runFinished', (m) => m.runId === runId);
    assert.deepEqual(userTexts(h.fake.requests[2].body.messages), ['look at my selection']);

    // A run that ends without another tool boundary (here: stopped while the model thinks): the steer is handed back, before the run's end.
    h.fake.enqueue({ hang: true });
    h.client.send({ type: 'userMessage', threadId: 't1', text: 'just answer' });
    const second = await h.client.next('runStarted', (m) => m.threadId === 't1' && m.runId !== runId);
    h.client.send({ type: 'steer', threadId: 't1', runId: second.runId, steerId: 'late', text: 'and be brief' });
    await h.client.next('steerUpdated', (m) => m.steerId === 'late' && m.state === 'queued');
    h.client.send({ type: 'cancel', threadId: 't1', runId: second.runId });
    const returned = await h.client.next('steerUpdated', (m) => m.steerId === 'late');
    assert.equal(returned.state, 'returned');
    await h.client.next('runFinished', (m) => m.runId === second.runId);
    const order = h.client.runEvents(second.runId).map((m) => m.type);
    assert.ok(order.lastIndexOf('steerUpdated') < order.indexOf('runFinished'));
  });

  it('a steer for a run that is not in progress gets NOT_RUNNING; past the per-run cap LIMIT_EXCEEDED; nothing is queued either way', async () => {
    h = await harness();
    h.client.send({ type: 'steer', threadId: 't1', runId: 'run_nope', steerId: 's0', text: 'hello?' });
    const error = await h.client.next('error', (m) => m.relatedId === 's0');
    assert.equal(error.code, ErrorCode.NotRunning);

    const { runId, requestId } = await runWaitingOnTool(h);
    for (let i = 0; i < MAX_STEERS_PER_RUN; i++) h.client.send({ type: 'steer', threadId: 't1', runId, steerId: `s${i + 1}`, text: `note ${i + 1}` });
    h.client.send({ type: 'steer', threadId: 't1', runId, steerId: 'one-too-many', text: 'too many' });
    assert.equal((await h.client.next('error', (m) => m.relatedId === 'one-too-many')).code, ErrorCode.LimitExceeded);
    h.client.respond(requestId, { success: true, content: [{ type: 'text', text: 'selected: foo' }] });
    await h.client.next('runFinished', (m) => m.runId === runId);
    const users = userTexts(h.fake.requests[2].body.messages);
    assert.equal(users.length, 1 + MAX_STEERS_PER_RUN);
    assert.ok(!users.includes('too many'));
  });
});
