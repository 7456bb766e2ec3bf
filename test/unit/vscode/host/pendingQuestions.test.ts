import * as assert from 'node:assert/strict';
import { PendingQuestions } from '../../../../src/vscode/host/pendingQuestions';

/** A notification that the test answers (or never does). */
function notification(): { promise: Promise<string | undefined>; click(label: string | undefined): void } {
  let click!: (label: string | undefined) => void;
  const promise = new Promise<string | undefined>((resolve) => (click = resolve));
  return { promise, click };
}

describe('ShowMessage questions answered in the chat (PendingQuestions)', () => {
  it('the chat answers by position; a later click on the notification changes nothing', async () => {
    const q = new PendingQuestions();
    const toast = notification();
    const answer = q.ask({ recordId: 'r1', signal: new AbortController().signal }, ['Yes', 'No'], toast.promise);
    assert.equal(q.answer('r1', 1), true);
    toast.click('Yes');
    assert.equal(await answer, 'No');
    assert.equal(q.answer('r1', 0), false, 'answered already');
  });

  it('Give up (null) answers nothing; an index out of range or an unknown id is refused', async () => {
    const q = new PendingQuestions();
    const answer = q.ask({ recordId: 'r2', signal: new AbortController().signal }, ['Yes'], notification().promise);
    assert.equal(q.answer('r2', 3), false);
    assert.equal(q.answer('other', 0), false);
    assert.equal(q.answer('r2', null), true);
    assert.equal(await answer, undefined);
  });

  it('the notification still answers, and a cancelled call ends the wait at once', async () => {
    const q = new PendingQuestions();
    const toast = notification();
    const first = q.ask({ recordId: 'r3', signal: new AbortController().signal }, ['Yes', 'No'], toast.promise);
    toast.click('Yes');
    assert.equal(await first, 'Yes');
    const cancel = new AbortController();
    const second = q.ask({ recordId: 'r4', signal: cancel.signal }, ['Yes'], notification().promise);
    cancel.abort();
    assert.equal(await second, undefined);
    assert.equal(q.answer('r4', 0), false, 'nothing waits after the call ended');
  });
});
