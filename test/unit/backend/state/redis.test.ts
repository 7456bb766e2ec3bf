/**
 * The SharedState and ConversationStore contracts against a real redis-server (started by the test
 * harness on a random loopback port), and what only Redis can get wrong: records someone else wrote,
 * the size cap, binary content kept as bytes.
 */
import { strict as assert } from 'node:assert';
import { Redis } from 'ioredis';
import { RedisSharedState } from '../../../../src/backend/state/redisSharedState';
import { StoreError } from '../../../../src/backend/store/conversationStore';
import { silentLogger } from '../../../../src/base/logger';
import { startRedis, type RedisServer } from '../../../support/redisServer';
import { storeContract } from '../store/storeContract';
import { stateContract } from './stateContract';

describe('on a real redis-server', () => {
  let redis: RedisServer;
  let n = 0;
  const opened: RedisSharedState[] = [];
  before(async () => {
    redis = await startRedis();
  });
  after(async () => {
    for (const s of opened) await s.close();
    await redis.stop();
  });

  /** A prefix per test: tests share the server, never each other's keys. */
  async function open(prefix = `ct-test-${++n}:`, replica = 'replica-a', extra: { maxThreadBytes?: number; threadTtlMs?: number } = {}): Promise<RedisSharedState> {
    const state = await RedisSharedState.connect({ url: redis.url, prefix, replica, log: silentLogger, ...extra });
    opened.push(state);
    return state;
  }

  stateContract('RedisSharedState', async () => {
    const prefix = `ct-test-${++n}:`;
    return { a: await open(prefix, 'replica-a'), b: await open(prefix, 'replica-b') };
  });

  storeContract('RedisStore', true, async () => {
    const prefix = `ct-store-${++n}:`;
    const state = await open(prefix);
    return {
      store: state.store,
      reopen: async () => (await open(prefix)).store,
    };
  });

  describe('RedisStore', () => {
    it('refuses an append that would take a thread over its cap with STORE_TOO_LARGE, keeping what was there', async () => {
      const state = await open(undefined, 'replica-a', { maxThreadBytes: 4_096 });
      await state.store.append('t', [{ kind: 'message', message: { role: 'user', content: 'small' } }]);
      await assert.rejects(state.store.append('t', [{ kind: 'message', message: { role: 'user', content: 'x'.repeat(5_000) } }]), (e: unknown) => e instanceof StoreError && e.code === 'STORE_TOO_LARGE');
      assert.deepEqual((await state.store.load('t'))?.messages.map((m) => m.content), ['small']);
    });

    it('refuses to load a thread grown past the cap by another writer, with STORE_TOO_LARGE, without reading it', async () => {
      const prefix = `ct-big-${++n}:`;
      const writer = await open(prefix, 'writer', { maxThreadBytes: 10 * 1024 * 1024 });
      await writer.store.append('t', [{ kind: 'message', message: { role: 'user', content: 'y'.repeat(64 * 1024) } }]);
      const reader = await open(prefix, 'reader', { maxThreadBytes: 16 * 1024 });
      await assert.rejects(reader.store.load('t'), (e: unknown) => e instanceof StoreError && e.code === 'STORE_TOO_LARGE');
    });

    it('keeps binary content as raw bytes in Redis, not base64 in the JSON', async () => {
      const prefix = `ct-bin-${++n}:`;
      const state = await open(prefix);
      const bytes = new Uint8Array(1024).map((_, i) => (i * 7) & 0xff);
      await state.store.append('img', [{ kind: 'message', message: { role: 'tool', toolCallId: 'c', toolName: 'Screenshot', content: [{ type: 'binary', mimeType: 'image/png', bytes }] } }]);
      const raw = new Redis(redis.url);
      try {
        const keys = await raw.keys(`${prefix}*:blobs`);
        assert.equal(keys.length, 1);
        const stored = await raw.hgetallBuffer(keys[0]);
        assert.deepEqual(Object.values(stored).map((b) => [...b]), [[...bytes]]);
        const [log] = await raw.keys(`${prefix}*:log`);
        const line = (await raw.lrange(log, 0, -1))[0];
        assert.ok(line.length < 500, `the record holds a reference, not the bytes: ${line.length} chars`);
      } finally {
        raw.disconnect();
      }
      const loaded = (await state.store.load('img'))?.messages[0];
      assert.ok(loaded?.role === 'tool' && loaded.content[0].type === 'binary');
      assert.deepEqual([...loaded.content[0].bytes], [...bytes]);
    });

    it('treats records someone else wrote into Redis as input: a bad record ends the load there, a bad session or call is absent', async () => {
      const prefix = `ct-lies-${++n}:`;
      const state = await open(prefix);
      await state.store.append('t', [{ kind: 'message', message: { role: 'user', content: 'good' } }]);
      await state.putCall({ requestId: 'c1', sessionId: 's1', threadId: undefined, runId: undefined, request: '{}', outcome: undefined }, 60_000);
      const raw = new Redis(redis.url);
      try {
        const [log] = await raw.keys(`${prefix}*:log`);
        await raw.rpush(log, '{"kind":"message","message":{"role":"hacker"}}', '{"kind":"message","message":{"role":"user","content":"after"}}');
        await raw.set(`${prefix}session:s1`, '{"sessionId":"s1","secretDigest":5}');
        await raw.hset(`${prefix}call:c1`, 'record', 'not json');
      } finally {
        raw.disconnect();
      }
      assert.deepEqual((await state.store.load('t'))?.messages.map((m) => m.content), ['good']);
      assert.equal(await state.getSession('s1'), undefined);
      assert.deepEqual(await state.callsOf('s1'), []);
    });

    it('forgets a thread nobody wrote for its time to live, in its keys and in the thread index', async () => {
      const prefix = `ct-idx-${++n}:`;
      const state = await open(prefix, 'replica-a', { threadTtlMs: 300 });
      await state.store.append('old', [{ kind: 'message', message: { role: 'user', content: 'old' } }]);
      await new Promise((r) => setTimeout(r, 1_200));
      await state.store.append('new', [{ kind: 'message', message: { role: 'user', content: 'new' } }]);
      assert.equal(await state.store.load('old'), undefined);
      const raw = new Redis(redis.url);
      try {
        assert.deepEqual(await raw.zrange(`${prefix}threads`, 0, -1), ['new'], 'the index dropped the expired thread without a list()');
      } finally {
        raw.disconnect();
      }
    });

    it('deletes a call and its place in the session index in one step', async () => {
      const prefix = `ct-del-${++n}:`;
      const state = await open(prefix);
      await state.putCall({ requestId: 'c1', sessionId: 's/1', threadId: undefined, runId: undefined, request: '{}', outcome: undefined }, 60_000);
      await state.putCall({ requestId: 'c2', sessionId: 's/1', threadId: undefined, runId: undefined, request: '{}', outcome: undefined }, 60_000);
      await state.deleteCall('c1');
      const raw = new Redis(redis.url);
      try {
        assert.deepEqual(await raw.zrange(`${prefix}calls:s/1`, 0, -1), [`${prefix}call:c2`]);
        assert.equal(await raw.exists(`${prefix}call:c1`), 0);
      } finally {
        raw.disconnect();
      }
    });

    it('gives every key the prefix and a time to live, except the fence counter', async () => {
      const prefix = `ct-ttl-${++n}:`;
      const state = await open(prefix);
      await state.putSession({ sessionId: 's', secretDigest: 'd', owner: 'o', createdAt: 1, replica: 'r' }, 60_000);
      await state.putCall({ requestId: 'c', sessionId: 's', threadId: 't', runId: 'r', request: '{}', outcome: undefined }, 60_000);
      const lease = await state.acquireLease('t', 60_000);
      assert.ok(lease);
      await state.appendFenced(lease, [{ kind: 'message', message: { role: 'tool', toolCallId: 'c', toolName: 'X', content: [{ type: 'binary', mimeType: 'image/png', bytes: new Uint8Array([1, 2]) }] } }]);
      const raw = new Redis(redis.url);
      try {
        const keys = await raw.keys(`${prefix}*`);
        const without = [];
        for (const k of keys) if ((await raw.pttl(k)) < 0) without.push(k);
        // The thread index and the counters hold no one's data: they order things and only grow.
        assert.deepEqual(without.sort(), [`${prefix}callseq`, `${prefix}fences`, `${prefix}threads`]);
        assert.ok(keys.length >= 9, keys.join(', '));
      } finally {
        raw.disconnect();
      }
    });
  });
});
