/**
 * A rogue (or confused) backend sends a request id again: to get a delete run twice, to get an
 * answered call's result for other arguments, or to slip another tool in under a known id.
 *
 * Proven elsewhere: a replay after a dropped connection gets the stored answer
 * (test/unit/core/clientCore.test.ts), the replay cache's count and time bounds
 * (test/unit/core/dispatcher.test.ts).
 */
import * as assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { ErrorCode } from '../../src/protocol';
import { assertRefused, CoreRig } from './support/core-rig';

describe('rogue backend: replayed request ids', () => {
  let rig: CoreRig;

  beforeEach(async () => {
    rig = await CoreRig.start();
    rig.host.answerPrompts('allow');
    await rig.connect();
  });
  afterEach(() => rig.dispose());

  it('T-REPLAY-01 fifty replays of an answered delete all get the first answer; the file is deleted once, after one prompt', async () => {
    const first = await rig.backend.call('DeleteFile', { path: 'old.txt' }, { requestId: 'del-1' });
    assert.equal(first.success, true, first.errorMessage);
    for (let i = 0; i < 50; i++) rig.backend.invoke('DeleteFile', { path: 'old.txt' }, { requestId: 'del-1' });
    const echo = await rig.backend.call('Echo', {}); // answered after the replays: they are all in by now
    assert.equal(echo.success, true);
    const answers = rig.backend.responsesFor('del-1');
    assert.equal(answers.length, 51);
    for (const a of answers) assert.deepEqual(a, first);
    assert.equal(rig.host.deletesOf(rig.file('old.txt')), 1);
    assert.equal(rig.host.prompts.length, 1);
  });

  it('T-REPLAY-02 a replay while the call waits for the user gets DUPLICATE_REQUEST at once; one real answer follows, one delete', async () => {
    rig.host.holdPrompts();
    rig.backend.invoke('DeleteFile', { path: 'old.txt' }, { requestId: 'del-2' });
    const prompt = await rig.host.nextPrompt();
    const dup = await rig.backend.call('DeleteFile', { path: 'old.txt' }, { requestId: 'del-2' });
    assertRefused(dup, ErrorCode.DuplicateRequest);
    const real = rig.backend.response('del-2');
    prompt.answer('allow');
    assert.equal((await real).success, true);
    assert.equal(rig.host.deletesOf(rig.file('old.txt')), 1);
    assert.equal(rig.host.prompts.length, 1);
    assert.deepEqual(rig.backend.responsesFor('del-2').map((r) => r.errorCode ?? 'ok'), [ErrorCode.DuplicateRequest, 'ok']);
  });

  it('T-REPLAY-03 an answered id replayed with other arguments gets the first answer; the other file is untouched', async () => {
    const first = await rig.backend.call('DeleteFile', { path: 'old.txt' }, { requestId: 'del-3' });
    const replay = await rig.backend.call('DeleteFile', { path: 'notes.txt' }, { requestId: 'del-3' });
    assert.deepEqual(replay, first);
    assert.equal(existsSync(rig.file('notes.txt')), true);
    assert.equal(rig.host.deleted.length, 1);
  });

  it('T-REPLAY-04 an answered id reused for another tool is refused with DUPLICATE_REQUEST and that tool does not run', async () => {
    assert.equal((await rig.backend.call('Echo', { n: 1 }, { requestId: 'mixed-1' })).success, true);
    assertRefused(await rig.backend.call('DeleteFile', { path: 'old.txt' }, { requestId: 'mixed-1' }), ErrorCode.DuplicateRequest);
    assert.equal(rig.host.prompts.length, 0);
    assert.equal(existsSync(rig.file('old.txt')), true);
  });

  it('T-REPLAY-05 a replay across a reconnect while the prompt is still open gets DUPLICATE_REQUEST; the answer follows once, one delete', async () => {
    rig.host.holdPrompts();
    rig.backend.invoke('DeleteFile', { path: 'old.txt' }, { requestId: 'del-5' });
    const prompt = await rig.host.nextPrompt();
    const back = rig.resumed();
    rig.backend.dropClients();
    await back;
    assertRefused(await rig.backend.call('DeleteFile', { path: 'old.txt' }, { requestId: 'del-5' }), ErrorCode.DuplicateRequest);
    const real = rig.backend.response('del-5');
    prompt.answer('allow');
    assert.equal((await real).success, true);
    assert.equal(rig.host.deletesOf(rig.file('old.txt')), 1);
    assert.equal(rig.host.prompts.length, 1);
  });

  it('T-REPLAY-06 a replay after the backend was killed and restarted on the same port (session resumed) gets the stored answer', async () => {
    const first = await rig.backend.call('DeleteFile', { path: 'old.txt' }, { requestId: 'del-6' });
    const back = rig.resumed();
    await rig.restartBackend();
    await back;
    const replay = await rig.backend.call('DeleteFile', { path: 'old.txt' }, { requestId: 'del-6' });
    assert.deepEqual(replay, first);
    assert.equal(rig.host.deletesOf(rig.file('old.txt')), 1);
    assert.equal(rig.host.prompts.length, 1);
  });

  it('T-REPLAY-07 a backend that starts a new session gets no answers of the old one: a reused id runs as a new call and deletes nothing twice', async () => {
    const first = await rig.backend.call('DeleteFile', { path: 'old.txt' }, { requestId: 'del-7' });
    assert.equal(first.success, true);
    rig.sessions.clear(); // the restarted backend forgot every session
    const fresh = rig.stateOf('connected', (s) => s.kind === 'connected' && !s.resumed);
    await rig.restartBackend();
    await fresh;
    const again = await rig.backend.call('DeleteFile', { path: 'old.txt' }, { requestId: 'del-7' });
    assertRefused(again, ErrorCode.NotFound);
    assert.equal(rig.host.deleted.length, 1);
  });
});
