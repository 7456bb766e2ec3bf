/**
 * The in-process shared state keeps a fence per thread ever leased; thread ids come from clients,
 * so the fences it keeps by name are bounded, and dropping one never lets a superseded holder write.
 */
import { strict as assert } from 'node:assert';
import { MemorySharedState } from '../../../../src/backend/state/memorySharedState';
import { SharedStateError } from '../../../../src/backend/state/sharedState';
import type { StoredRecord } from '../../../../src/backend/store/conversationStore';

const note = (content: string): StoredRecord => ({ kind: 'message', message: { role: 'user', content } });
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Leases and releases `count` other threads, as clients naming new thread ids would. */
async function churn(state: MemorySharedState, count: number, prefix: string): Promise<void> {
  for (let i = 0; i < count; i++) {
    const lease = await state.acquireLease(`${prefix}-${i}`, 60_000);
    assert.ok(lease);
    await state.releaseLease(lease);
  }
}

describe('MemorySharedState: fences of threads clients name', () => {
  it('keeps at most its bound of fences by name after 5,000 threads were leased and released', async () => {
    const state = new MemorySharedState({ maxFencedThreads: 100 });
    await churn(state, 5_000, 'thread');
    assert.ok(state.fencedThreads <= 100, `${state.fencedThreads} fences kept`);
    await state.close();
  });

  it('a superseded holder is still refused after its thread\'s fence was dropped', async () => {
    const a = new MemorySharedState({ replica: 'a', maxFencedThreads: 10 });
    const b = a.peer('b');
    const old = await a.acquireLease('t1', 100);
    assert.ok(old);
    await sleep(300);
    const taken = await b.acquireLease('t1', 60_000);
    assert.ok(taken);
    await b.appendFenced(taken, [note('from b')]);
    await b.releaseLease(taken);
    await churn(b, 50, 'other');
    assert.ok(a.fencedThreads <= 10);
    await assert.rejects(a.appendFenced(old, [note('stale')]), (e: unknown) => e instanceof SharedStateError && e.code === 'STORE_FENCED');
    assert.deepEqual((await a.store.load('t1'))?.messages.map((m) => m.content), ['from b']);
    await a.close();
  });

  it('a thread with a live lease keeps its fence however many threads come after: its holder goes on writing', async () => {
    const state = new MemorySharedState({ maxFencedThreads: 10 });
    const held = await state.acquireLease('kept', 60_000);
    assert.ok(held);
    await churn(state, 50, 'other');
    await state.appendFenced(held, [note('still mine')]);
    const renewed = await state.acquireLease('kept', 60_000, held);
    assert.equal(renewed?.fence, held.fence);
    assert.deepEqual((await state.store.load('kept'))?.messages.map((m) => m.content), ['still mine']);
    await state.close();
  });
});
