/**
 * The contract every SharedState keeps (contract.test.ts and redis.test.ts run it against each implementation): two replicas' views (`a`,
 * `b`) of one state, as two backend processes would have.
 */
import { strict as assert } from 'node:assert';
import type { CallRecord, SessionRecord, SharedState } from '../../../../src/backend/state/sharedState';
import { SharedStateError } from '../../../../src/backend/state/sharedState';

const LONG = 60_000;
/** Short enough to wait out in a test, long enough that nothing on a loaded machine outlives it by accident. */
const SHORT = 300;
const WAIT_OUT = 1_200;

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

function session(id: string, over: Partial<SessionRecord> = {}): SessionRecord {
  return { sessionId: id, secretDigest: 'ab'.repeat(32), owner: 'anonymous', createdAt: 1_700_000_000_000, replica: 'r1', ...over };
}

function call(requestId: string, sessionId = 's1', over: Partial<CallRecord> = {}): CallRecord {
  return { requestId, sessionId, threadId: 't1', runId: 'run_1', request: JSON.stringify({ type: 'clientToolInvokeRequest', requestId }), outcome: undefined, ...over };
}

async function rejectsWith(p: Promise<unknown>, code: string): Promise<void> {
  await assert.rejects(p, (e: unknown) => e instanceof SharedStateError && e.code === code);
}

export function stateContract(name: string, open: () => Promise<{ a: SharedState; b: SharedState }>): void {
  describe(`SharedState contract: ${name}`, () => {
    let a: SharedState;
    let b: SharedState;
    beforeEach(async () => ({ a, b } = await open()));
    afterEach(async () => {
      await a.close();
      await b.close();
    });

    it('names its replica', () => {
      assert.equal(a.replica, 'replica-a');
      assert.equal(b.replica, 'replica-b');
    });

    it('stores a session every replica reads, replaces it, deletes it, knows no other', async () => {
      await a.putSession(session('s1'), LONG);
      assert.deepEqual(await b.getSession('s1'), session('s1'));
      await b.putSession(session('s1', { replica: 'r2' }), LONG);
      assert.equal((await a.getSession('s1'))?.replica, 'r2');
      assert.equal(await a.getSession('s2'), undefined);
      await a.deleteSession('s1');
      await a.deleteSession('never-there');
      assert.equal(await b.getSession('s1'), undefined);
    });

    it('forgets a session after its time to live', async () => {
      await a.putSession(session('short'), SHORT);
      await a.putSession(session('long'), LONG);
      await sleep(WAIT_OUT);
      assert.equal(await b.getSession('short'), undefined);
      assert.ok(await b.getSession('long'));
    });

    it("lists a session's calls oldest first, each with its request, and no other session's", async () => {
      for (const id of ['c1', 'c2', 'c3']) await a.putCall(call(id), LONG);
      await a.putCall(call('other', 's2'), LONG);
      await b.putCall(call('c4', 's1', { threadId: undefined, runId: undefined }), LONG);
      const calls = await b.callsOf('s1');
      assert.deepEqual(calls.map((c) => c.requestId), ['c1', 'c2', 'c3', 'c4']);
      assert.deepEqual(calls[0], call('c1'));
      assert.deepEqual(calls[3], call('c4', 's1', { threadId: undefined, runId: undefined }));
      assert.deepEqual(await a.callsOf('nobody'), []);
    });

    it('settles a call once: the first outcome wins, from whichever replica', async () => {
      await a.putCall(call('c1'), LONG);
      assert.equal(await b.settleCall('c1', '{"first":true}'), true);
      assert.equal(await a.settleCall('c1', '{"second":true}'), false);
      assert.equal((await a.callsOf('s1'))[0].outcome, '{"first":true}');
      assert.equal(await a.settleCall('unknown', '{}'), false, 'an unknown call has nothing to settle');
      assert.deepEqual(await a.callsOf('s1').then((c) => c.length), 1, 'settling an unknown call creates nothing');
    });

    it('settles a call once under a race of replicas', async () => {
      await a.putCall(call('race'), LONG);
      const outcomes = Array.from({ length: 20 }, (_, i) => `{"n":${i}}`);
      const won = await Promise.all(outcomes.map((o, i) => (i % 2 ? a : b).settleCall('race', o)));
      assert.equal(won.filter(Boolean).length, 1);
      assert.equal((await b.callsOf('s1'))[0].outcome, outcomes[won.indexOf(true)]);
    });

    it('keeps the outcome and the place of a call recorded again', async () => {
      await a.putCall(call('c1'), LONG);
      await a.putCall(call('c2'), LONG);
      await a.settleCall('c1', '{"done":1}');
      await b.putCall(call('c1'), LONG);
      const calls = await a.callsOf('s1');
      assert.deepEqual(calls.map((c) => [c.requestId, c.outcome]), [['c1', '{"done":1}'], ['c2', undefined]]);
    });

    it('deletes a call and forgets one after its time to live', async () => {
      await a.putCall(call('gone'), LONG);
      await a.putCall(call('short'), SHORT);
      await a.putCall(call('kept'), LONG);
      await b.deleteCall('gone');
      await b.deleteCall('never-there');
      await sleep(WAIT_OUT);
      assert.deepEqual((await a.callsOf('s1')).map((c) => c.requestId), ['kept']);
      assert.equal(await a.settleCall('short', '{}'), false);
    });

    it('grants a lease to one replica at a time, renews it under the same fence, and releases it', async () => {
      const first = await a.acquireLease('t1', LONG);
      assert.ok(first);
      assert.equal(first.holder, 'replica-a');
      assert.equal(first.threadId, 't1');
      assert.ok(first.expiresAt > Date.now() + LONG / 2, 'expiresAt is in milliseconds since the epoch');
      assert.equal(await b.acquireLease('t1', LONG), undefined);
      const renewed = await a.acquireLease('t1', LONG);
      assert.equal(renewed?.fence, first.fence);
      await b.releaseLease({ ...first, holder: 'replica-b' });
      assert.equal(await b.acquireLease('t1', LONG), undefined, "another replica cannot release a's lease");
      await a.releaseLease(first);
      const second = await b.acquireLease('t1', LONG);
      assert.ok(second);
      assert.ok(second.fence > first.fence);
    });

    it('lets another replica take a lease after it expired, with a newer fence; the stale release changes nothing', async () => {
      const old = await a.acquireLease('t1', SHORT);
      assert.ok(old);
      assert.equal(await b.acquireLease('t1', LONG), undefined);
      await sleep(WAIT_OUT);
      const taken = await b.acquireLease('t1', LONG);
      assert.ok(taken);
      assert.ok(taken.fence > old.fence);
      await a.releaseLease(old);
      assert.equal(await a.acquireLease('t1', LONG), undefined);
    });

    it('a renewal that comes after its lease ran out keeps the fence while nobody took the thread: appends under it go on; once another replica took it, the renewal is refused', async () => {
      // A replica starved of CPU renews late: its lease ran out, nobody else wanted the thread. The old
      // renewal minted a new fence, and the run's own append still in flight under the old one was refused
      // as if another replica had superseded it (the failover test under load: "fence 3 superseded").
      const old = await a.acquireLease('t1', SHORT);
      assert.ok(old);
      await sleep(WAIT_OUT);
      const renewed = await a.acquireLease('t1', LONG, old);
      assert.equal(renewed?.fence, old.fence, 'the late renewal keeps its fence');
      await a.appendFenced(old, [{ kind: 'message', message: { role: 'user', content: 'in flight' } }]);
      assert.equal(await b.acquireLease('t1', LONG), undefined, 'the renewed lease is live');

      const short = await a.acquireLease('t2', SHORT);
      assert.ok(short);
      await sleep(WAIT_OUT);
      const taken = await b.acquireLease('t2', SHORT);
      assert.ok(taken && taken.fence > short.fence);
      await b.releaseLease(taken);
      const late = await a.acquireLease('t2', LONG, short);
      assert.ok(late && late.fence > taken.fence, 'a renewal after another holder had the thread gets a new fence');
      await rejectsWith(a.appendFenced(short, [{ kind: 'message', message: { role: 'user', content: 'stale' } }]), 'STORE_FENCED');

      const other = await a.acquireLease('t3', SHORT);
      assert.ok(other);
      await sleep(WAIT_OUT);
      const borrowed = await b.acquireLease('t3', LONG, other);
      assert.ok(borrowed && borrowed.fence > other.fence, "another replica cannot renew under a's fence");
    });

    it('grants exactly one lease when replicas race for a free thread', async () => {
      const grants = await Promise.all(Array.from({ length: 10 }, (_, i) => (i % 2 ? a : b).acquireLease('race', LONG)));
      const holders = new Set(grants.filter((g) => g !== undefined).map((g) => g.holder));
      assert.equal(holders.size, 1);
    });

    it('hands out fences that only grow, across threads and replicas', async () => {
      const fences: number[] = [];
      for (let i = 0; i < 6; i++) {
        const lease = await (i % 2 ? a : b).acquireLease(`t${i}`, LONG);
        assert.ok(lease);
        fences.push(lease.fence);
      }
      for (let i = 1; i < fences.length; i++) assert.ok(fences[i] > fences[i - 1], `fences grow: ${fences.join(', ')}`);
    });

    it('refuses an append under a superseded fence with STORE_FENCED and keeps what the new holder wrote', async () => {
      const old = await a.acquireLease('t1', SHORT);
      assert.ok(old);
      await a.appendFenced(old, [{ kind: 'message', message: { role: 'user', content: 'from a' } }]);
      await sleep(WAIT_OUT);
      const taken = await b.acquireLease('t1', LONG);
      assert.ok(taken);
      await b.appendFenced(taken, [{ kind: 'message', message: { role: 'assistant', content: 'from b' } }]);
      await rejectsWith(a.appendFenced(old, [{ kind: 'message', message: { role: 'assistant', content: 'stale' } }]), 'STORE_FENCED');
      assert.deepEqual((await b.store.load('t1'))?.messages.map((m) => m.content), ['from a', 'from b']);
      await a.store.append('t2', [{ kind: 'message', message: { role: 'user', content: 'no lease' } }]);
      assert.equal((await b.store.load('t2'))?.messages.length, 1, 'a thread never leased takes plain appends');
    });

    it('rejects with STATE_UNAVAILABLE once closed', async () => {
      await a.close();
      await rejectsWith(a.getSession('s1'), 'STATE_UNAVAILABLE');
      await rejectsWith(a.acquireLease('t1', LONG), 'STATE_UNAVAILABLE');
    });
  });
}

