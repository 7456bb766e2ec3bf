/**
 * A user's view of the conversation store: the same thread id of two users names two threads; no
 * thread id a user can send reaches another user's thread (the anonymous user's ids included,
 * whatever they look like); list shows only one's own; the shared token's user keeps the plain ids
 * of data saved before users existed.
 */
import { strict as assert } from 'node:assert';
import { scopedKey, scopedStore } from '../../../../src/backend/auth/scopedStore';
import type { StoredRecord } from '../../../../src/backend/store/conversationStore';
import { MemoryStore } from '../../../../src/backend/store/memoryStore';

function said(text: string): StoredRecord[] {
  return [{ kind: 'message', message: { role: 'user', content: text } }];
}

describe('backend auth: the user-scoped store view', () => {
  it('two users with the same thread id hold two threads; load, append, list and delete reach only their own', async () => {
    const shared = new MemoryStore();
    const alice = scopedStore(shared, 'alice');
    const bob = scopedStore(shared, 'bob');
    await alice.append('t1', said('alice secret'));
    assert.equal(await bob.load('t1'), undefined);
    await bob.append('t1', said('bob words'));
    await bob.delete('t1');
    const mine = await alice.load('t1');
    assert.equal(mine?.threadId, 't1');
    assert.deepEqual(mine?.messages.map((m) => m.content), ['alice secret']);
    assert.deepEqual((await alice.list()).map((t) => t.threadId), ['t1']);
    assert.deepEqual(await bob.list(), []);
  });

  it('the anonymous user cannot name another user\'s key, and keeps plain ids for data saved before users existed', async () => {
    const shared = new MemoryStore();
    await shared.append('legacy', said('saved before users'));
    const alice = scopedStore(shared, 'alice');
    const anonymous = scopedStore(shared, 'anonymous');
    await alice.append('t1', said('alice secret'));
    const aliceKey = scopedKey('alice', 't1');
    assert.equal(await anonymous.load(aliceKey), undefined, 'the raw key of alice\'s thread');
    await anonymous.delete(aliceKey);
    assert.ok(await alice.load('t1'), 'an anonymous delete of the raw key left alice\'s thread alone');
    assert.deepEqual((await anonymous.load('legacy'))?.messages.map((m) => m.content), ['saved before users']);
    await anonymous.append('~x', said('tilde'));
    assert.deepEqual((await anonymous.list()).map((t) => t.threadId).sort(), ['legacy', '~x']);
    assert.deepEqual((await alice.list()).map((t) => t.threadId), ['t1']);
  });

  it('keys are one-to-one across users and ids, including ids that look like keys', () => {
    const users = ['anonymous', 'alice', 'bob', 'alice/', '~u'];
    const ids = ['t1', '~', '~~', '~u/', `~u/${'0'.repeat(64)}/t1`, scopedKey('alice', 't1'), scopedKey('bob', 't1'), 'a/b'];
    const seen = new Map<string, string>();
    for (const u of users) {
      for (const id of ids) {
        const key = scopedKey(u, id);
        assert.equal(seen.get(key), undefined, `${u}:${id} collides with ${seen.get(key) ?? ''}`);
        seen.set(key, `${u}:${id}`);
      }
    }
  });
});
