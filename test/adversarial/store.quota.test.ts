/**
 * Thread ids come from clients: a client that makes thread after thread, or fills threads with large
 * images, must not fill the disk behind `--data-dir`. Past the store's quota the least recently
 * written threads are forgotten, and the thread just written always stays.
 */
import { strict as assert } from 'node:assert';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import type { StoredRecord } from '../../src/backend/store/conversationStore';
import { LogStore } from '../../src/backend/store/logStore';
import type { Logger } from '../../src/base/logger';
import { silentLogger } from '../../src/base/logger';

const note = (text: string): StoredRecord => ({ kind: 'message', message: { role: 'user', content: text } });
const image = (bytes: number, seed: number): StoredRecord => ({
  kind: 'message',
  message: { role: 'tool', toolCallId: 'c1', toolName: 'ReadFile', content: [{ type: 'binary', mimeType: 'image/png', filename: 'big.png', bytes: new Uint8Array(bytes).fill(seed) }] },
});

/** Bytes of every file under `dir`. */
function bytesUnder(dir: string): number {
  let total = 0;
  for (const entry of fs.readdirSync(dir, { withFileTypes: true, recursive: true })) {
    if (entry.isFile()) total += fs.statSync(path.join(entry.parentPath, entry.name)).size;
  }
  return total;
}

describe('conversation store: a client that would fill the disk', () => {
  let dir: string;
  let data: string;
  let infos: string[];
  let log: Logger;
  beforeEach(() => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'ct-quota-'));
    data = path.join(dir, 'conversations');
    infos = [];
    log = { ...silentLogger, info: (m: string) => infos.push(m) };
  });
  afterEach(() => fs.rmSync(dir, { recursive: true, force: true }));

  it('T-QUOTA-01 200 new threads past a 20-thread quota: 20 stay on disk, the newest ones, and the oldest load as none', async () => {
    const store = await LogStore.open(data, log, { maxThreads: 20 });
    for (let i = 0; i < 200; i++) await store.append(`thread-${i}`, [note(`note ${i}`)]);
    assert.equal(fs.readdirSync(path.join(data, 'threads')).length, 20);
    const kept = (await store.list()).map((t) => t.threadId).sort();
    assert.deepEqual(kept, Array.from({ length: 20 }, (_, i) => `thread-${180 + i}`).sort());
    assert.equal(await store.load('thread-0'), undefined);
    assert.deepEqual((await store.load('thread-199'))?.messages, [{ role: 'user', content: 'note 199' }]);
    assert.ok(infos.some((m) => /forgot 1 least recently written thread\(s\) to stay within 20 threads/.test(m)), infos.join('\n'));
    await store.close();
  });

  it('T-QUOTA-02 threads of 256 KB images past a 2 MB quota: the folder stays within the quota plus one thread, images of forgotten threads go too, the last thread stays', async () => {
    const quota = 2 * 1024 * 1024;
    const store = await LogStore.open(data, log, { maxBytes: quota });
    for (let i = 0; i < 40; i++) {
      await store.append(`t${i}`, [note('look'), image(256 * 1024, i)]);
      assert.ok(bytesUnder(data) <= quota + 300 * 1024, `after thread ${i}: ${bytesUnder(data)} bytes on disk`);
    }
    assert.ok(store.held.bytes <= quota);
    assert.ok(fs.readdirSync(path.join(data, 'blobs')).length <= 8, 'blob folders of forgotten threads are removed');
    const last = await store.load('t39');
    const item = last?.messages[1]?.role === 'tool' ? last.messages[1].content[0] : undefined;
    assert.ok(item?.type === 'binary' && item.bytes.byteLength === 256 * 1024 && item.bytes[0] === 39);
    await store.close();
  });

  it('T-QUOTA-03 a folder already over the quota when opened: the next append forgets the oldest threads, the new one stays', async () => {
    const first = await LogStore.open(data, log);
    for (let i = 0; i < 30; i++) await first.append(`old-${i}`, [note(`n${i}`)]);
    await first.close();
    const store = await LogStore.open(data, log, { maxThreads: 10 });
    assert.equal(store.held.threads, 30, 'measured when opened');
    await store.append('new', [note('new')]);
    const kept = (await store.list()).map((t) => t.threadId);
    assert.equal(kept.length, 10);
    assert.ok(kept.includes('new'));
    assert.ok(!kept.includes('old-0'));
    await store.close();
  });

  it('T-QUOTA-04 the store\'s bookkeeping per thread stays within the threads on disk: 500 threads past a 20-thread quota and 2,000 loads of thread ids that have no file', async () => {
    const store = await LogStore.open(data, log, { maxThreads: 20 });
    for (let i = 0; i < 500; i++) await store.append(`thread-${i}`, [note(`note ${i}`)]);
    for (let i = 0; i < 2000; i++) assert.equal(await store.load(`never-${i}`), undefined);
    assert.equal(fs.readdirSync(path.join(data, 'threads')).length, 20);
    assert.ok(store.tracked <= 21, `bookkeeping for ${store.tracked} threads, 20 on disk`);
    await store.close();
  });

  it('T-QUOTA-05 a thread the quota forgot and another process wrote again: this process\'s next lease on it says it is stale (its copy is loaded again)', async () => {
    const mine = await LogStore.open(data, log, { maxThreads: 2 });
    await mine.append('kept', [note('mine 1')]);
    await mine.append('b', [note('b')]);
    await mine.append('c', [note('c')]); // forgets "kept"
    assert.equal(await mine.load('kept'), undefined);
    const other = await LogStore.open(data, log);
    await other.append('kept', [note('other window')]);
    await other.close();
    const lease = await mine.leaseThread('kept');
    assert.ok(lease, 'the lease is free');
    assert.equal(lease.stale, true);
    await lease.release();
    await mine.close();
  });
});
