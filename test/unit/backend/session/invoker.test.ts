import { strict as assert } from 'node:assert';
import type { BackendOptions } from '../../../../src/backend';
import { ErrorCode } from '../../../../src/protocol';
import type { ToolGroupDefinition } from '../../../../src/protocol';
import { delay } from '../../../support/backend-client';
import type { ChatRequestMessage } from '../../../support/fake-openai';
import type { Harness } from '../../../support/backend-harness';
import { eventFor, eventually, harness } from '../../../support/backend-harness';

const lastToolText = (h: Harness, i: number) => String(h.fake.requests[i].body.messages.filter((m: ChatRequestMessage) => m.role === 'tool').at(-1)?.content);

describe('backend client tool invocation', () => {
  let h: Harness | undefined;
  afterEach(async () => {
    await h?.close();
    h = undefined;
  });

  async function start(options: BackendOptions = {}, toolGroups?: ToolGroupDefinition[]): Promise<Harness> {
    h = await harness(options, { preExpanded: ['IDE'], ...(toolGroups ? { toolGroups, preExpanded: toolGroups.map((g) => g.name) } : {}) });
    return h;
  }

  describe('timeouts', () => {
    it('pauses the timeout while the client waits for permission, longer than the timeout itself', async () => {
      await start({ invokeTimeoutMs: 150 });
      h!.fake.enqueue({ toolCalls: [{ name: 'DeleteFile', id: 'c1', arguments: { path: 'notes.txt' } }] }, { text: 'deleted' });
      h!.client.autoAnswer(async (req, client) => {
        client.send({ type: 'clientToolProgress', requestId: req.requestId, status: 'awaiting-permission', details: 'Allow deleting notes.txt?' });
        await delay(450);
        client.send({ type: 'clientToolProgress', requestId: req.requestId, status: 'running' });
        await delay(50);
        return { success: true, content: [{ type: 'text', text: 'deleted notes.txt' }] };
      });
      const { finished } = await h!.client.run('t1', 'delete notes.txt');
      assert.equal(finished.reason, 'completed');
      const ended = h!.client.all('toolCallEnded')[0];
      assert.equal(ended.outcome, 'succeeded');
      assert.ok(ended.durationMs >= 450);
      const updates = h!.client.all('toolCallUpdated').map((u) => [u.status, u.details]);
      assert.deepEqual(updates, [['awaiting-permission', 'Allow deleting notes.txt?'], ['running', undefined]]);
      assert.equal(h!.client.all('clientToolCancel').length, 0);
    });

    it('restarts the timeout on every progress message', async () => {
      // Gaps of 60 % of the timeout (slack for a loaded machine) over 2.5 timeouts in all.
      await start({ invokeTimeoutMs: 1000 });
      h!.fake.enqueue({ toolCalls: [{ name: 'ReadFile', id: 'c1', arguments: { path: 'big.log' } }] }, { text: 'read' });
      h!.client.autoAnswer(async (req, client) => {
        for (let i = 0; i < 3; i++) {
          await delay(600);
          client.send({ type: 'clientToolProgress', requestId: req.requestId, status: 'progress', details: `${(i + 1) * 33}%` });
        }
        await delay(600);
        return { success: true, content: [{ type: 'text', text: 'all of it' }] };
      });
      await h!.client.run('t1', 'read big.log');
      assert.equal(h!.client.all('toolCallEnded')[0].outcome, 'succeeded');
      assert.equal(h!.client.all('toolCallUpdated').length, 3);
    });

    it('times out a silent call: timedOut outcome, clientToolCancel, an error result, and the run goes on', async () => {
      await start({ invokeTimeoutMs: 100 });
      h!.fake.enqueue({ toolCalls: [{ name: 'GetSelection', id: 'c1' }] }, { text: 'gave up' });
      h!.client.send({ type: 'userMessage', threadId: 't1', text: 'sel' });
      const req = await h!.client.next('clientToolInvokeRequest');
      assert.equal(req.timeoutMs, 100);
      const cancel = await h!.client.next('clientToolCancel');
      assert.equal(cancel.requestId, req.requestId);
      const ended = await h!.client.next('toolCallEnded');
      assert.equal(ended.outcome, 'timedOut');
      assert.equal((await h!.client.next('runFinished')).reason, 'completed');
      assert.equal(lastToolText(h!, 1), 'Error (TIMEOUT): GetSelection did not answer within 0.1 s.');
      // A late answer is not a crash, just an unknown request.
      h!.client.respond(req.requestId, { success: true, content: [] });
      assert.equal((await h!.client.next('error')).code, ErrorCode.UnknownRequest);
    });
  });

  describe('results', () => {
    it('maps PERMISSION_DENIED and SKIPPED to denied and skipped outcomes the model reads', async () => {
      await start();
      h!.fake.enqueue({ toolCalls: [{ name: 'DeleteFile', id: 'c1', arguments: { path: 'a' } }, { name: 'DeleteFile', id: 'c2', arguments: { path: 'b' } }, { name: 'OpenFile', id: 'c3', arguments: { path: 'c' } }, { name: 'DeleteFile', id: 'c4', arguments: { path: 'd' } }] }, { text: 'ok' });
      h!.client.autoAnswer((req) => {
        if (req.arguments.path === 'a') return { success: false, content: [], errorCode: 'PERMISSION_DENIED', errorMessage: 'The user denied DeleteFile.' };
        if (req.arguments.path === 'b') return { success: false, content: [], errorCode: 'SKIPPED', errorMessage: 'The user skipped DeleteFile.' };
        // What the extension really sends for a skip: success with errorCode SKIPPED and a text.
        if (req.arguments.path === 'd') return { success: true, content: [{ type: 'text', text: 'The user declined and skipped this call.' }], errorCode: 'SKIPPED' };
        return { success: false, content: [], errorCode: 'NOT_FOUND', errorMessage: 'c does not exist' };
      });
      await h!.client.run('t1', 'go');
      assert.deepEqual(h!.client.all('toolCallEnded').map((e) => e.outcome), ['denied', 'skipped', 'failed', 'skipped']);
      const texts = h!.fake.requests[1].body.messages.filter((m) => m.role === 'tool').map((m) => m.content);
      assert.deepEqual(texts.slice(0, 3), ['Error (PERMISSION_DENIED): The user denied DeleteFile.', 'Skipped: The user skipped DeleteFile.', 'Error (NOT_FOUND): c does not exist']);
      assert.match(String(texts[3]), /^Skipped: The user declined and skipped this call\./);
    });

    it('passes binary results to the model as a description with type and size', async () => {
      await start();
      h!.fake.enqueue({ toolCalls: [{ name: 'ReadFile', id: 'c1', arguments: { path: 'logo.png' } }] }, { text: 'ok' });
      h!.client.autoAnswer(() => ({ success: true, content: [{ type: 'binary', mimeType: 'image/png', filename: 'logo.png', bytes: new Uint8Array([137, 80, 78, 71]) }] }));
      await h!.client.run('t1', 'read logo.png');
      assert.equal(lastToolText(h!, 1), '[logo.png: image/png, 4 bytes]');
      const ended = h!.client.all('toolCallEnded')[0];
      assert.equal(ended.content[0].type, 'binary');
    });

    it('fails calls beyond maxInFlight at once with TOO_MANY_IN_FLIGHT', async () => {
      await start({ limits: { maxInFlight: 1 } });
      h!.fake.enqueue({ toolCalls: [{ name: 'OpenFile', id: 'c1', arguments: { path: 'a' } }, { name: 'OpenFile', id: 'c2', arguments: { path: 'b' } }] }, { text: 'ok' });
      h!.client.autoAnswer(async () => {
        await delay(30);
        return { success: true, content: [{ type: 'text', text: 'opened' }] };
      });
      await h!.client.run('t1', 'open both');
      assert.deepEqual(h!.client.all('toolCallEnded').map((e) => [e.callId, e.outcome]).sort(), [['c1', 'succeeded'], ['c2', 'failed']]);
      assert.match(lastToolText(h!, 1), /^Error \(TOO_MANY_IN_FLIGHT\)/);
    });
  });

  describe('batches', () => {
    it('never overlaps a sequential tool with other calls of its batch, and keeps the results in order', async () => {
      const group: ToolGroupDefinition = {
        name: 'Diff',
        description: 'diffs',
        tools: [
          { name: 'Fast1', description: '', parameters: { type: 'object' } },
          { name: 'OpenDiff', description: '', parameters: { type: 'object' }, sequential: true },
          { name: 'Fast2', description: '', parameters: { type: 'object' } },
        ],
      };
      await start({}, [group]);
      h!.fake.enqueue({ toolCalls: [{ name: 'Fast1', id: 'a' }, { name: 'OpenDiff', id: 'b' }, { name: 'Fast2', id: 'c' }] }, { text: 'ok' });
      const log: string[] = [];
      h!.client.autoAnswer(async (req) => {
        log.push(`start ${req.toolName}`);
        await delay(40);
        log.push(`end ${req.toolName}`);
        return { success: true, content: [{ type: 'text', text: req.toolName }] };
      });
      await h!.client.run('t1', 'diff');
      assert.deepEqual(log, ['start Fast1', 'end Fast1', 'start OpenDiff', 'end OpenDiff', 'start Fast2', 'end Fast2']);
      const results = h!.fake.requests[1].body.messages.filter((m) => m.role === 'tool');
      assert.deepEqual(results.map((m) => [m.tool_call_id, m.content]), [['a', 'Fast1'], ['b', 'OpenDiff'], ['c', 'Fast2']]);
    });
  });

  describe('cancellation', () => {
    it('a cancel ends the run as cancelled and sends clientToolCancel for its calls in flight', async () => {
      await start();
      h!.fake.enqueue({ toolCalls: [{ name: 'OpenFile', id: 'c1', arguments: { path: 'a' } }, { name: 'GetSelection', id: 'c2' }] });
      h!.client.send({ type: 'userMessage', threadId: 't1', text: 'go' });
      const r1 = await h!.client.next('clientToolInvokeRequest');
      const r2 = await h!.client.next('clientToolInvokeRequest');
      h!.client.send({ type: 'cancel', threadId: 't1' });
      const cancels = [await h!.client.next('clientToolCancel'), await h!.client.next('clientToolCancel')];
      assert.deepEqual(cancels.map((c) => c.requestId).sort(), [r1.requestId, r2.requestId].sort());
      const finished = await h!.client.next('runFinished');
      assert.equal(finished.reason, 'cancelled');
      assert.deepEqual(h!.client.all('toolCallEnded').map((e) => e.outcome), ['cancelled', 'cancelled']);
      assert.equal(h!.fake.requests.length, 1, 'no model call after the cancel');
    });
  });

  describe('disconnection strategies (the client drops mid-call)', () => {
    async function dropOnRequest(h: Harness): Promise<{ requestId: string; runId: string }> {
      h.fake.enqueue({ toolCalls: [{ name: 'OpenFile', id: 'c1', arguments: { path: 'a.ts' } }] }, { text: 'after' });
      h.client.send({ type: 'userMessage', threadId: 't1', text: 'open a.ts' });
      const req = await h.client.next('clientToolInvokeRequest');
      const started = h.client.all('runStarted')[0];
      await h.client.drop();
      return { requestId: req.requestId, runId: started.runId };
    }
    const finishedEvent = (h: Harness) => h.events.find((e) => e.type === 'runFinished');

    it('failFast: fails the call at once with DISCONNECTED, noticed as a disconnect, not a timeout', async () => {
      await start({ disconnectStrategy: 'failFast', invokeTimeoutMs: 10_000 });
      const t0 = Date.now();
      await dropOnRequest(h!);
      await eventually(() => assert.ok(finishedEvent(h!)));
      assert.ok(Date.now() - t0 < 2000);
      const ended = eventFor(h!.events, 'toolCallEnded', 'c1')!;
      assert.equal(ended.outcome, 'failed');
      assert.match(ended.errorMessage ?? '', /disconnected while OpenFile was running/);
      assert.match(lastToolText(h!, 1), /^Error \(DISCONNECTED\)/);
    });

    it('fallbackMessage: answers the model with the template text', async () => {
      await start({ disconnectStrategy: 'fallbackMessage', fallbackMessageTemplate: 'Editor gone; {toolName} is unavailable.', invokeTimeoutMs: 10_000 });
      await dropOnRequest(h!);
      await eventually(() => assert.ok(finishedEvent(h!)));
      assert.equal(lastToolText(h!, 1), 'Error (DISCONNECTED): Editor gone; OpenFile is unavailable.');
    });

    it('retryWithBackoff: waits for the resume and re-sends the SAME requestId, then the run completes', async () => {
      await start({ disconnectStrategy: 'retryWithBackoff', retryBaseDelayMs: 100, maxRetries: 3, invokeTimeoutMs: 10_000 });
      const { requestId, runId } = await dropOnRequest(h!);
      await delay(150);
      const again = await h!.connect({ resumeSession: h!.sessionId, resumeSecret: h!.resumeSecret });
      const resent = await again.next('clientToolInvokeRequest');
      assert.equal(resent.requestId, requestId);
      assert.equal(resent.callId, 'c1');
      again.respond(requestId, { success: true, content: [{ type: 'text', text: 'opened after reconnect' }] });
      const finished = await again.next('runFinished', (m) => m.runId === runId);
      assert.equal(finished.reason, 'completed');
      assert.equal(lastToolText(h!, 1), 'opened after reconnect');
      assert.ok(again.all('toolCallUpdated').some((u) => /waiting up to/.test(u.details ?? '')), 'the wait was reported (replayed on resume)');
    });

    it('retryWithBackoff: gives up with DISCONNECTED after maxRetries when the client does not return', async () => {
      await start({ disconnectStrategy: 'retryWithBackoff', retryBaseDelayMs: 30, maxRetries: 2, invokeTimeoutMs: 10_000 });
      const t0 = Date.now();
      await dropOnRequest(h!);
      await eventually(() => assert.ok(finishedEvent(h!)));
      assert.ok(Date.now() - t0 >= 80, 'it waited 30 + 60 ms of backoff');
      const ended = eventFor(h!.events, 'toolCallEnded', 'c1')!;
      assert.equal(ended.outcome, 'failed');
      assert.match(ended.errorMessage ?? '', /did not come back after 2 retries/);
    });

    it('suspend: the run waits for the client (longer than the invoke timeout) and resumes when it answers', async () => {
      await start({ disconnectStrategy: 'suspend', invokeTimeoutMs: 100 });
      const { requestId, runId } = await dropOnRequest(h!);
      await delay(300);
      assert.equal(finishedEvent(h!), undefined, 'the run is suspended, not finished');
      const update = eventFor(h!.events, 'toolCallUpdated', 'c1')!;
      assert.match(update.details ?? '', /Suspended: waiting for the editor to reconnect/);

      const again = await h!.connect({ resumeSession: h!.sessionId, resumeSecret: h!.resumeSecret });
      const replayed = await again.next('toolCallUpdated');
      assert.match(replayed.details ?? '', /Suspended/);
      const resent = await again.next('clientToolInvokeRequest');
      assert.equal(resent.requestId, requestId);
      again.respond(requestId, { success: true, content: [{ type: 'text', text: 'done late' }] });
      assert.equal((await again.next('runFinished', (m) => m.runId === runId)).reason, 'completed');
      assert.equal(lastToolText(h!, 1), 'done late');
    });

    it('ignores DUPLICATE_REQUEST for a re-sent request and takes the real answer that follows', async () => {
      await start({ disconnectStrategy: 'suspend', invokeTimeoutMs: 10_000 });
      const { requestId, runId } = await dropOnRequest(h!);
      const again = await h!.connect({ resumeSession: h!.sessionId, resumeSecret: h!.resumeSecret });
      await again.next('clientToolInvokeRequest');
      again.respond(requestId, { success: false, content: [], errorCode: ErrorCode.DuplicateRequest, errorMessage: 'still running' });
      await delay(50);
      again.respond(requestId, { success: true, content: [{ type: 'text', text: 'the real answer' }] });
      assert.equal((await again.next('runFinished', (m) => m.runId === runId)).reason, 'completed');
      assert.equal(lastToolText(h!, 1), 'the real answer');
    });
  });
});
