import * as assert from 'node:assert/strict';
import type { ClientToolInvokeResponse } from '../../../src/protocol';
import { ReplayCache, type ReplayLimits } from '../../../src/core/replayCache';

function answer(requestId: string, text = `answer of ${requestId}`): ClientToolInvokeResponse {
  return { type: 'clientToolInvokeResponse', requestId, success: true, content: [{ type: 'text', text }] };
}

/** A cache on a clock the test moves by hand. */
function makeCache(limits: Partial<ReplayLimits> = {}) {
  const clock = { now: 1_000_000 };
  const all: ReplayLimits = { replayWindowMs: 60_000, replayMaxAnswers: 100, replayMaxBytes: 1_000_000, replayMaxIds: 1_000, ...limits };
  const cache = new ReplayCache(all, () => clock.now);
  return { cache, clock, limits: all };
}

describe('ReplayCache', () => {
  it('answers a remembered id with its stored answer and the tool it was for', () => {
    const { cache } = makeCache();
    const response = answer('r1');
    cache.remember('r1', 'ReadFile', response, 40);
    assert.deepEqual(cache.lookup('r1'), { kind: 'answer', toolName: 'ReadFile', response });
    assert.equal(cache.has('r1'), true);
  });

  it('knows nothing of an id it was never given (a call still running is the dispatcher\'s, not here)', () => {
    const { cache } = makeCache();
    cache.remember('done', 'Echo', answer('done'), 10);
    assert.equal(cache.lookup('running'), undefined);
    assert.equal(cache.has('running'), false);
  });

  it('forgets answers and ids once the replay window has passed', () => {
    const { cache, clock } = makeCache({ replayWindowMs: 60_000 });
    cache.remember('r1', 'Echo', answer('r1'), 10);
    clock.now += 59_999;
    assert.equal(cache.lookup('r1')?.kind, 'answer', 'still within the window');
    clock.now += 1;
    assert.equal(cache.lookup('r1'), undefined);
    assert.deepEqual(cache.kept, { answers: 0, bytes: 0, ids: 0 });
  });

  it('past the answer count, drops the oldest answers first but keeps their ids', () => {
    const { cache } = makeCache({ replayMaxAnswers: 2 });
    cache.remember('a', 'Echo', answer('a'), 10);
    cache.remember('b', 'Echo', answer('b'), 10);
    cache.remember('c', 'Wait', answer('c'), 10);
    assert.deepEqual(cache.lookup('a'), { kind: 'answeredOnly', toolName: 'Echo' });
    assert.equal(cache.lookup('b')?.kind, 'answer');
    assert.equal(cache.lookup('c')?.kind, 'answer');
    assert.deepEqual(cache.kept, { answers: 2, bytes: 20, ids: 3 });
  });

  it('past the byte budget, drops the oldest answers until the rest fit', () => {
    const { cache } = makeCache({ replayMaxBytes: 100 });
    cache.remember('a', 'Echo', answer('a'), 40);
    cache.remember('b', 'Echo', answer('b'), 40);
    cache.remember('c', 'Echo', answer('c'), 40);
    assert.equal(cache.lookup('a')?.kind, 'answeredOnly');
    assert.equal(cache.lookup('b')?.kind, 'answer');
    assert.deepEqual(cache.kept, { answers: 2, bytes: 80, ids: 3 });
    // One answer larger than the whole budget is not kept either.
    cache.remember('huge', 'ReadFile', answer('huge'), 101);
    assert.equal(cache.lookup('huge')?.kind, 'answeredOnly');
    assert.deepEqual(cache.kept, { answers: 0, bytes: 0, ids: 4 });
  });

  it('past the id count, forgets the oldest ids entirely', () => {
    const { cache } = makeCache({ replayMaxAnswers: 1, replayMaxIds: 2 });
    cache.remember('a', 'Echo', answer('a'), 1);
    cache.remember('b', 'Echo', answer('b'), 1);
    cache.remember('c', 'Echo', answer('c'), 1);
    assert.equal(cache.lookup('a'), undefined);
    assert.equal(cache.has('a'), false);
    assert.equal(cache.lookup('b')?.kind, 'answeredOnly');
    assert.equal(cache.lookup('c')?.kind, 'answer');
  });

  it('an id answered again replaces its answer, counts its bytes once and expires from the newer time', () => {
    const { cache, clock } = makeCache({ replayWindowMs: 1_000 });
    cache.remember('a', 'Echo', answer('a', 'first'), 30);
    clock.now += 600;
    const second = answer('a', 'second');
    cache.remember('a', 'Echo', second, 50);
    assert.deepEqual(cache.kept, { answers: 1, bytes: 50, ids: 1 });
    clock.now += 600; // the first entry's window is over, the second's is not
    assert.deepEqual(cache.lookup('a'), { kind: 'answer', toolName: 'Echo', response: second });
    clock.now += 400;
    assert.equal(cache.lookup('a'), undefined);
    assert.deepEqual(cache.kept, { answers: 0, bytes: 0, ids: 0 });
  });

  it('follows limits changed after it was made (new settings)', () => {
    const { cache, limits } = makeCache();
    for (const id of ['a', 'b', 'c']) cache.remember(id, 'Echo', answer(id), 10);
    limits.replayMaxAnswers = 1;
    assert.equal(cache.lookup('a')?.kind, 'answeredOnly');
    assert.equal(cache.lookup('b')?.kind, 'answeredOnly');
    assert.equal(cache.lookup('c')?.kind, 'answer');
  });

  it('clear forgets every answer and id (a new session)', () => {
    const { cache } = makeCache({ replayMaxAnswers: 1 });
    cache.remember('a', 'Echo', answer('a'), 10);
    cache.remember('b', 'Echo', answer('b'), 10);
    cache.clear();
    assert.equal(cache.lookup('a'), undefined);
    assert.equal(cache.lookup('b'), undefined);
    assert.deepEqual(cache.kept, { answers: 0, bytes: 0, ids: 0 });
    cache.remember('a', 'Wait', answer('a'), 5);
    assert.equal(cache.lookup('a')?.toolName, 'Wait');
  });

  it('stays exact over thousands of evictions (its queues compact as they go)', () => {
    const { cache, clock } = makeCache({ replayMaxAnswers: 10, replayMaxIds: 100, replayWindowMs: 1_000_000 });
    for (let i = 0; i < 5_000; i++) {
      clock.now += 1;
      cache.remember(`r${i}`, 'Echo', answer(`r${i}`), 7);
    }
    assert.deepEqual(cache.kept, { answers: 10, bytes: 70, ids: 100 });
    assert.equal(cache.lookup('r4999')?.kind, 'answer');
    assert.equal(cache.lookup('r4990')?.kind, 'answer');
    assert.equal(cache.lookup('r4989')?.kind, 'answeredOnly');
    assert.equal(cache.lookup('r4900')?.kind, 'answeredOnly');
    assert.equal(cache.lookup('r4899'), undefined);
    clock.now += 1_000_000;
    assert.equal(cache.lookup('r4999'), undefined);
    assert.deepEqual(cache.kept, { answers: 0, bytes: 0, ids: 0 });
  });
});
