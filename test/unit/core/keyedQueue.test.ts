import * as assert from 'node:assert/strict';
import { ErrorCode } from '../../../src/protocol';
import { KeyedQueue } from '../../../src/core/keyedQueue';

function gate(): { promise: Promise<void>; open: () => void } {
  let open = () => {};
  const promise = new Promise<void>((r) => (open = r));
  return { promise, open };
}

describe('KeyedQueue', () => {
  it('runs tasks of one key one at a time, in order, and other keys at once', async () => {
    const q = new KeyedQueue();
    const log: string[] = [];
    const g1 = gate();
    const never = new AbortController().signal;
    const a1 = q.run('a', never, async () => { log.push('a1 start'); await g1.promise; log.push('a1 end'); });
    let waited = false;
    const a2 = q.run('a', never, async () => { log.push('a2'); }, () => (waited = true));
    const b1 = q.run('b', never, async () => { log.push('b1'); });
    await b1;
    assert.deepEqual(log, ['a1 start', 'b1']);
    assert.equal(waited, true);
    assert.equal(q.size('a'), 2);
    g1.open();
    await Promise.all([a1, a2]);
    assert.deepEqual(log, ['a1 start', 'b1', 'a1 end', 'a2']);
    assert.equal(q.size('a'), 0);
  });

  it('a waiting task whose signal aborts leaves without running, and the next still waits its turn', async () => {
    const q = new KeyedQueue();
    const g1 = gate();
    const never = new AbortController().signal;
    const log: string[] = [];
    const first = q.run('k', never, async () => { await g1.promise; log.push('first'); });
    const ctl = new AbortController();
    const second = q.run('k', ctl.signal, async () => { log.push('second'); });
    const third = q.run('k', never, async () => { log.push('third'); });
    ctl.abort();
    await assert.rejects(second, (e: { code?: string }) => e.code === ErrorCode.Cancelled);
    await new Promise((r) => setTimeout(r, 10));
    assert.deepEqual(log, [], 'third waits for first');
    g1.open();
    await Promise.all([first, third]);
    assert.deepEqual(log, ['first', 'third']);
  });

  it('a failing task does not block the queue', async () => {
    const q = new KeyedQueue();
    const never = new AbortController().signal;
    await assert.rejects(q.run('k', never, async () => { throw new Error('boom'); }), /boom/);
    assert.equal(await q.run('k', never, async () => 42), 42);
  });
});
