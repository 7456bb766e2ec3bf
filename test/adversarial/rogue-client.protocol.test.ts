/**
 * A rogue client that holds the token abuses the protocol against the real backend (offline demo
 * model): garbage and messages before `hello`, a second `hello`, floods of user messages, answers
 * given twice, to unknown ids, after the timeout, or to another session's request. Each gets a
 * coded `error` (or is ignored where the protocol says so), the connection stays, and every tool
 * call ends exactly once.
 *
 * Malformed JSON, unknown types and UNKNOWN_REQUEST on an established session are in
 * test/unit/backend/transport/server.test.ts; DUPLICATE_REQUEST for re-sent calls in invoker.test.ts.
 */
import * as assert from 'node:assert/strict';
import { ErrorCode, type ClientToServer } from '../../src/protocol';
import { delay, helloMessage } from '../support/backend-client';
import { pendingDelete, startBackend, type BackendRig } from './support/backend-rig';
import { until } from './support/core-rig';

describe('rogue client: protocol abuse', () => {
  let rig: BackendRig;

  afterEach(() => rig.closeAlive());

  it('T-PROTO-01 garbage before hello gets coded errors and the connection stays: hello still works afterwards', async () => {
    rig = await startBackend();
    const c = await rig.connect();
    c.send('{not json');
    c.send(JSON.stringify({ type: 'launchMissiles' }));
    c.send(JSON.stringify([1, 2, 3]));
    c.ws.send(Buffer.from([0, 0, 0, 9, 1]), { binary: true });
    const codes = [];
    for (let i = 0; i < 4; i++) codes.push((await c.next('error')).code);
    assert.deepEqual(codes, [ErrorCode.ParseError, ErrorCode.UnknownType, ErrorCode.InvalidMessage, ErrorCode.BadBinaryFrame]);
    const welcome = await c.hello();
    assert.ok(welcome.sessionId);
  });

  it('T-PROTO-02 every message before hello gets NOT_READY and does nothing: no run starts, no session exists', async () => {
    rig = await startBackend();
    let sessions = 0;
    rig.backend.on('session', () => sessions++);
    const c = await rig.connect();
    const early: ClientToServer[] = [
      { type: 'userMessage', threadId: 't', text: 'delete notes.txt' },
      { type: 'clientToolInvokeResponse', requestId: 'r', success: true, content: [] },
      { type: 'clientToolProgress', requestId: 'r', status: 'running' },
      { type: 'cancel' },
      { type: 'resetThread', threadId: 't' },
      { type: 'updateToolGroups', augmentation: { addContext: [{ name: 'x', text: 'y' }] } },
    ];
    for (const m of early) c.send(m);
    for (let i = 0; i < early.length; i++) assert.equal((await c.next('error')).code, ErrorCode.NotReady);
    assert.equal(sessions, 0);
    assert.equal(c.all('runStarted').length, 0);
    await c.hello();
    await delay(50);
    assert.equal(c.all('runStarted').length, 0, 'an early userMessage was run after all');
  });

  it('T-PROTO-03 a second hello is refused (INVALID_MESSAGE) and does not replace the session or its tools', async () => {
    rig = await startBackend();
    const c = await rig.open();
    const first = c.all('welcome')[0];
    c.send(helloMessage({ toolGroups: [], resumeSession: 'someone-else' }));
    assert.equal((await c.next('error')).code, ErrorCode.InvalidMessage);
    assert.equal(c.all('welcome').length, 1);
    const req = await pendingDelete(c);
    assert.equal(req.toolName, 'DeleteFile', 'the first hello\'s tools are still registered');
    assert.ok(first.sessionId);
  });

  it('T-PROTO-04 a flood of 500 user messages on a busy thread gets RUN_BUSY for each; one run, one tool call', async () => {
    rig = await startBackend();
    const c = await rig.open();
    const req = await pendingDelete(c);
    for (let i = 0; i < 500; i++) c.send({ type: 'userMessage', threadId: 't1', text: `delete other-${i}.txt` });
    await until(() => c.all('error').length >= 500, '500 errors');
    const busy = c.all('error');
    assert.equal(busy.length, 500);
    assert.ok(busy.every((e) => e.code === ErrorCode.RunBusy && e.relatedId === 't1'));
    c.respond(req.requestId, { success: true, content: [{ type: 'text', text: 'deleted' }] });
    await c.next('runFinished');
    assert.equal(c.all('runStarted').length, 1);
    assert.equal(c.all('clientToolInvokeRequest').length, 1);
  });

  it('T-PROTO-05 user messages on 300 threads at once: at most maxInFlight client calls wait, the rest end TOO_MANY_IN_FLIGHT, every run finishes', async () => {
    // 300 runs at once: room for them all, so the in-flight cap is what refuses (RUN_LIMIT has its own tests).
    rig = await startBackend({ limits: { maxInFlight: 8 }, maxRunsPerSession: 300, maxThreadsPerSession: 300 });
    const c = await rig.open();
    for (let i = 0; i < 300; i++) c.send({ type: 'userMessage', threadId: `t${i}`, text: 'show a warning saying hi' });
    await until(() => c.all('runFinished').length >= 292, '292 runs to finish', 10_000);
    assert.equal(c.all('clientToolInvokeRequest').length, 8);
    const refused = c.all('toolCallEnded', (e) => e.outcome === 'failed' && /already running/.test(e.errorMessage ?? ''));
    assert.equal(refused.length, 292);
    c.autoAnswer(() => ({ success: true, content: [{ type: 'text', text: 'shown' }] }));
    await until(() => c.all('runFinished').length === 300, 'all 300 runs to finish', 10_000);
    assert.equal(new Set(c.all('runFinished').map((f) => f.threadId)).size, 300);
  });

  it('T-PROTO-06 a client that answers twice: the first answer counts, the second gets UNKNOWN_REQUEST; the call ends once', async () => {
    rig = await startBackend();
    const c = await rig.open();
    const req = await pendingDelete(c);
    c.respond(req.requestId, { success: true, content: [{ type: 'text', text: 'deleted' }] });
    c.respond(req.requestId, { success: false, content: [], errorCode: ErrorCode.ToolFailed, errorMessage: 'changed my mind' });
    const err = await c.next('error', (e) => e.code === ErrorCode.UnknownRequest);
    assert.equal(err.relatedId, req.requestId);
    await c.next('runFinished');
    const ended = c.all('toolCallEnded', (e) => e.callId === req.callId);
    assert.deepEqual(ended.map((e) => e.outcome), ['succeeded']);
  });

  it('T-PROTO-11 an answer whose JSON value is nested 5,000 deep (it parses; printing it overflows the stack): the card ends (it never did), its result replaced by a note; the run completes (it ended INTERNAL) and the thread goes on', async () => {
    rig = await startBackend();
    const c = await rig.open();
    const req = await pendingDelete(c);
    const started = await c.next('runStarted');
    const value = `${'{"a":'.repeat(5_000)}0${'}'.repeat(5_000)}`;
    c.send(`{"type":"clientToolInvokeResponse","requestId":${JSON.stringify(req.requestId)},"success":true,"content":[{"type":"json","value":${value}}]}`);
    const ended = await c.next('toolCallEnded', (e) => e.callId === req.callId);
    assert.equal(ended.outcome, 'succeeded');
    assert.deepEqual(ended.content, [{ type: 'text', text: '[result not shown here: it is nested too deeply to be sent]' }]);
    const finished = await c.next('runFinished', (m) => m.runId === started.runId);
    assert.deepEqual(c.all('runError'), []);
    assert.equal(finished.reason, 'completed');
    const again = await c.run('t1', 'hello again');
    assert.equal(again.finished.reason, 'completed');
  });

  it('T-PROTO-07 answers and progress for 1,000 unknown request ids each get UNKNOWN_REQUEST; nothing else happens', async () => {
    rig = await startBackend();
    const c = await rig.open();
    for (let i = 0; i < 500; i++) {
      c.respond(`req_forged_${i}`, { success: true, content: [{ type: 'text', text: 'pwned' }] });
      c.send({ type: 'clientToolProgress', requestId: `req_forged_p${i}`, status: 'awaiting-permission' });
    }
    await until(() => c.all('error').length >= 1000, '1,000 errors', 10_000);
    assert.ok(c.all('error').every((e) => e.code === ErrorCode.UnknownRequest));
    assert.equal(c.all('toolCallEnded').length, 0);
    const { finished } = await c.run('t2', 'hello');
    assert.equal(finished.reason, 'completed');
  });

  it('T-PROTO-08 a late answer after the invoke timeout gets UNKNOWN_REQUEST; the call already ended timedOut, once', async () => {
    rig = await startBackend({ invokeTimeoutMs: 150 });
    const c = await rig.open();
    const req = await pendingDelete(c);
    const cancel = await c.next('clientToolCancel', (m) => m.requestId === req.requestId);
    assert.equal(cancel.reason, 'timed out');
    const ended = await c.next('toolCallEnded', (e) => e.callId === req.callId);
    assert.equal(ended.outcome, 'timedOut');
    c.respond(req.requestId, { success: true, content: [{ type: 'text', text: 'deleted, late' }] });
    assert.equal((await c.next('error', (e) => e.code === ErrorCode.UnknownRequest)).relatedId, req.requestId);
    await c.next('runFinished');
    assert.equal(c.all('toolCallEnded', (e) => e.callId === req.callId).length, 1);
  });

  it('T-PROTO-09 a client cannot answer another session\'s request: UNKNOWN_REQUEST for it, and the owner\'s call is untouched', async () => {
    rig = await startBackend();
    const owner = await rig.open();
    const intruder = await rig.open();
    const req = await pendingDelete(owner);
    intruder.respond(req.requestId, { success: false, content: [], errorCode: ErrorCode.PermissionDenied, errorMessage: 'denied by the intruder' });
    assert.equal((await intruder.next('error')).code, ErrorCode.UnknownRequest);
    owner.respond(req.requestId, { success: true, content: [{ type: 'text', text: 'deleted' }] });
    await owner.next('runFinished');
    assert.deepEqual(owner.all('toolCallEnded', (e) => e.callId === req.callId).map((e) => e.outcome), ['succeeded']);
  });

  it('T-PROTO-10 progress after the final answer, and a cancel for an unknown run, change nothing', async () => {
    rig = await startBackend();
    const c = await rig.open();
    const req = await pendingDelete(c);
    c.respond(req.requestId, { success: true, content: [{ type: 'text', text: 'deleted' }] });
    c.send({ type: 'clientToolProgress', requestId: req.requestId, status: 'awaiting-permission' });
    c.send({ type: 'cancel', threadId: 't1', runId: 'run_forged' });
    c.send({ type: 'cancel', threadId: 'no-such-thread' });
    await c.next('runFinished');
    assert.equal((await c.next('error', (e) => e.code === ErrorCode.UnknownRequest)).relatedId, req.requestId);
    assert.deepEqual(c.all('runFinished').map((f) => f.reason), ['completed']);
  });
});
