/**
 * Things that go wrong without anyone attacking: the backend process dies mid-call, the network
 * drops (with or without a FIN), the backend stops reading, answers come twice or late, a tool
 * throws or never returns. Real components end to end: the real ClientCore and IDE tools on a fake
 * host with real folders, and the real backend (in process behind a TCP proxy, or as its own
 * process killed with SIGKILL). Every test ends with each call accounted for (answered once, or
 * ended with a code), no side effect done twice, and no call slot or prompt left behind.
 */
import * as assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import type { ToolCallResult } from '../../src/backend';
import { ErrorCode, type ErrorMessage, type RunEvent } from '../../src/protocol';
import { BackendProcess, startBackend, TcpProxy, TOKEN, type BackendRig } from './support/backend-rig';
import { CoreRig, until } from './support/core-rig';

const FAST = { handshakeTimeoutMs: 2000, heartbeatMs: 150, reconnect: { initialDelayMs: 10, maxDelayMs: 40, maxAttempts: 1000 } };

describe('faults: crashes, network loss, stuck peers and tools', () => {
  let rig: CoreRig | undefined;
  let brig: BackendRig | undefined;
  let proxy: TcpProxy | undefined;
  const processes: BackendProcess[] = [];
  let events: RunEvent[];
  let serverErrors: ErrorMessage[];

  afterEach(async () => {
    await rig?.dispose();
    await proxy?.close();
    await brig?.close();
    for (const p of processes.splice(0)) await p.kill();
    rig = brig = proxy = undefined;
  });

  /** A core connected to `url` (the real backend, directly or through the proxy), recording run events. */
  async function coreTo(url: string, core: Parameters<typeof CoreRig.start>[0] = {}): Promise<CoreRig> {
    const r = await CoreRig.start({ ...core, core: { url, token: TOKEN, connection: FAST, ...core.core } });
    events = [];
    serverErrors = [];
    r.core.onRunEvent((e) => events.push(e));
    r.core.onServerError((e) => serverErrors.push(e));
    return r;
  }

  /** Connects `r` and asks the demo model to delete notes.txt on thread t1; the prompt is held open. */
  async function deleteAwaitingPrompt(r: CoreRig) {
    r.host.holdPrompts();
    await r.connect();
    r.core.sendUserMessage('t1', 'delete notes.txt');
    const prompt = await r.host.nextPrompt();
    return { prompt, requestId: prompt.prompt.requestId };
  }

  function finished(threadId: string): Promise<void> {
    return until(() => events.some((e) => e.type === 'runFinished' && e.threadId === threadId), `the run of ${threadId} to finish`, 10_000);
  }

  function deleteCallsEnded(threadId: string): string[] {
    const started = events.filter((e) => e.type === 'toolCallStarted' && e.threadId === threadId && e.toolName === 'DeleteFile').map((e) => (e.type === 'toolCallStarted' ? e.callId : ''));
    return events.filter((e) => e.type === 'toolCallEnded' && started.includes(e.callId)).map((e) => (e.type === 'toolCallEnded' ? e.outcome : ''));
  }

  it('T-FAULT-01 the backend process is killed (SIGKILL) while a delete waits for permission and restarted on the same port: the prompt closes, the call ends once, nothing is deleted, the next request works', async () => {
    const first = await BackendProcess.start(0, TOKEN);
    processes.push(first);
    rig = await coreTo(first.url);
    const { prompt, requestId } = await deleteAwaitingPrompt(rig);

    const lost = rig.stateOf('reconnecting');
    await first.kill();
    await lost;
    const fresh = rig.stateOf('connected', (s) => s.kind === 'connected' && !s.resumed, 15_000);
    processes.push(await BackendProcess.start(first.port, TOKEN));
    await fresh; // the new process knows nothing of the old session

    assert.equal(await prompt.closed, 'aborted');
    prompt.answer('allow'); // a click on the stale prompt changes nothing
    assert.deepEqual(rig.outcomes(requestId), ['cancelled']);
    assert.equal(existsSync(rig.file('notes.txt')), true);
    assert.equal(rig.host.deleted.length, 0);

    rig.host.answerPrompts('allow');
    rig.core.sendUserMessage('t2', 'delete notes.txt');
    await finished('t2');
    assert.deepEqual(deleteCallsEnded('t2'), ['succeeded']);
    assert.equal(rig.host.deletesOf(rig.file('notes.txt')), 1);
    assert.deepEqual(rig.prompting, { open: 0, queued: 0 });
  });

  it('T-FAULT-02 the network drops (TCP reset, no close frame) during a permission prompt: the session resumes, the backend re-sends the same id, the client refuses the copy, and the one answer ends the call once', async () => {
    brig = await startBackend({ retryBaseDelayMs: 50 });
    proxy = await TcpProxy.start(brig.backend.port);
    rig = await coreTo(proxy.url);
    const { prompt, requestId } = await deleteAwaitingPrompt(rig);

    const back = rig.resumed();
    proxy.cut();
    await back;
    await until(() => rig!.logger.entries.some((e) => e.fields?.requestId === requestId && e.fields.code === ErrorCode.DuplicateRequest), 'the re-sent copy to be refused');
    prompt.answer('allow');
    await finished('t1');

    assert.deepEqual(deleteCallsEnded('t1'), ['succeeded']);
    assert.deepEqual(rig.outcomes(requestId), ['succeeded']);
    assert.equal(rig.host.deletesOf(rig.file('notes.txt')), 1);
    assert.equal(rig.host.prompts.length, 1);
  });

  it('T-FAULT-03 the network goes silent (no FIN, no data) during a prompt and the user denies meanwhile: heartbeats notice, the session resumes, the kept answer ends the call once as denied', async () => {
    brig = await startBackend({ heartbeatMs: 150, retryBaseDelayMs: 50, maxRetries: 20 });
    proxy = await TcpProxy.start(brig.backend.port);
    rig = await coreTo(proxy.url);
    const { prompt, requestId } = await deleteAwaitingPrompt(rig);

    const lost = rig.stateOf('reconnecting');
    const hole = proxy.blackhole();
    prompt.answer('deny'); // the answer goes into a socket that no longer carries anything
    const s = await lost;
    assert.ok(s.kind === 'reconnecting' && /heartbeat/.test(s.reason), JSON.stringify(s));
    await rig.resumed();
    await finished('t1');
    hole.heal();

    assert.deepEqual(deleteCallsEnded('t1'), ['denied']);
    assert.deepEqual(rig.outcomes(requestId), ['denied']);
    // The answer lost in the silent socket reached the backend as the stored answer to its re-send.
    assert.ok(rig.logger.entries.some((e) => e.fields?.requestId === requestId && /stored answer/.test(e.message)));
    assert.equal(rig.host.deleted.length, 0);
  });

  it('T-FAULT-04 a backend that stops reading while a prompt is open is dropped by heartbeats; after the resume the answer arrives once and the file is deleted once', async () => {
    rig = await CoreRig.start({ core: { connection: FAST } });
    rig.host.holdPrompts();
    await rig.connect();
    const id = rig.backend.invoke('DeleteFile', { path: 'old.txt' });
    const prompt = await rig.host.nextPrompt();
    const back = rig.resumed();
    rig.backend.freezeClients();
    await back;
    prompt.answer('allow');
    const answer = await rig.answer(id);
    assert.equal(answer.success, true);
    assert.equal(rig.backend.responsesFor(id).length, 1);
    assert.equal(rig.host.deletesOf(rig.file('old.txt')), 1);
    assert.deepEqual(rig.outcomes(id), ['succeeded']);
  });

  it('T-FAULT-05 a call the backend gave up on (invoke timeout) is cancelled on the client; the late CANCELLED answer is ignored by the backend; the result is timedOut, once', async () => {
    brig = await startBackend({ invokeTimeoutMs: 200 });
    rig = await coreTo(brig.backend.url, { core: { limits: { maxInFlight: 4 } } });
    await rig.connect();
    const results: ToolCallResult[] = [];
    await brig.backend.invokeClientTool('any', 'Latch', { key: 'slow' }).then((r) => results.push(r));
    assert.deepEqual(results.map((r) => [r.outcome, r.errorCode]), [['timedOut', ErrorCode.Timeout]]);
    await until(() => serverErrors.some((e) => e.code === ErrorCode.UnknownRequest), 'the backend to refuse the late answer');
    const requestId = serverErrors.find((e) => e.code === ErrorCode.UnknownRequest)?.relatedId ?? '';
    assert.deepEqual(rig.outcomes(requestId), ['cancelled']);
    rig.latches.release('slow'); // the tool's work finishing now changes nothing
    await rig.assertSlotsFree(4, (key) => brig!.backend.invokeClientTool('any', 'Latch', { key }));
  });

  it('T-FAULT-06 a tool that throws ends as TOOL_FAILED with its message, once, and the connection goes on', async () => {
    brig = await startBackend();
    rig = await coreTo(brig.backend.url, { core: { limits: { maxInFlight: 4 } } });
    await rig.connect();
    const r = await brig.backend.invokeClientTool('any', 'Boom', {});
    assert.deepEqual([r.outcome, r.errorCode], ['failed', ErrorCode.ToolFailed]);
    assert.match(r.errorMessage ?? '', /kaboom/);
    assert.equal(rig.runs.get('Boom'), 1);
    const echo = await brig.backend.invokeClientTool('any', 'Echo', { n: 2 });
    assert.equal(echo.outcome, 'succeeded');
    await rig.assertSlotsFree(4, (key) => brig!.backend.invokeClientTool('any', 'Latch', { key }));
  });

  it('T-FAULT-07 a tool that never returns and ignores cancellation: the backend times out, the client answers at once and frees the slot', async () => {
    brig = await startBackend({ invokeTimeoutMs: 200 });
    rig = await coreTo(brig.backend.url, { core: { limits: { maxInFlight: 1 } } });
    await rig.connect();
    const r = await brig.backend.invokeClientTool('any', 'Hang', {});
    assert.equal(r.outcome, 'timedOut');
    await until(() => rig!.logger.entries.some((e) => /^Hang cancelled/.test(e.message)), 'the client to end the call');
    // With one slot, a leaked one would refuse this call.
    await rig.assertSlotsFree(1, (key) => brig!.backend.invokeClientTool('any', 'Latch', { key }));
  });

  it('T-FAULT-08 a tool that never returns, with a patient backend: the client\'s own run-time cap ends it with TIMEOUT, once', async () => {
    brig = await startBackend({ invokeTimeoutMs: 60_000 });
    rig = await coreTo(brig.backend.url, { core: { limits: { maxInFlight: 1, maxRunMs: 200, progressIntervalMs: 50 } } });
    await rig.connect();
    const r = await brig.backend.invokeClientTool('any', 'Hang', {});
    assert.deepEqual([r.outcome, r.errorCode], ['timedOut', ErrorCode.Timeout]);
    assert.deepEqual(rig.logger.entries.filter((e) => /^Hang /.test(e.message)).map((e) => e.fields?.outcome), ['timedOut']);
    await rig.assertSlotsFree(1, (key) => brig!.backend.invokeClientTool('any', 'Latch', { key }));
  });
});
