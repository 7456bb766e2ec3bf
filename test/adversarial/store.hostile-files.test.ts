import { strict as assert } from 'node:assert';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { StoreError } from '../../src/backend/store/conversationStore';
import { fileKey, LogStore } from '../../src/backend/store/logStore';
import { FRAME_HEADER_BYTES } from '../../src/backend/store/recordFrame';
import type { Logger } from '../../src/base/logger';
import { silentLogger } from '../../src/base/logger';

const hello = { kind: 'message' as const, message: { role: 'user' as const, content: 'hello' } };

describe('conversation store: hostile files in the data folder', () => {
  let dir: string;
  let data: string;
  let warnings: string[];
  let log: Logger;
  beforeEach(() => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'ct-hostile-'));
    data = path.join(dir, 'conversations');
    warnings = [];
    log = { ...silentLogger, warn: (m: string) => warnings.push(m) };
  });
  afterEach(() => fs.rmSync(dir, { recursive: true, force: true }));

  const threadFile = (id: string) => path.join(data, 'threads', `${fileKey(id)}.log`);

  it('a file of garbage loads as no thread with a warning, is skipped by list, and the thread starts afresh on the next append', async () => {
    const store = await LogStore.open(data, log);
    fs.writeFileSync(threadFile('t'), Buffer.from('this is not a log at all, just some text someone left here'), { mode: 0o600 });
    assert.equal(await store.load('t'), undefined);
    assert.equal(warnings.length, 1);
    assert.deepEqual(await store.list(), []);
    assert.match(warnings[1], /skipped/);
    await store.append('t', [hello]);
    assert.deepEqual((await store.load('t'))?.messages, [hello.message]);
    await store.close();
  });

  it('a frame claiming 4 GiB is refused from its header (no allocation), and the good frames before it still load', async () => {
    const store = await LogStore.open(data, log);
    await store.append('t', [hello]);
    const header = Buffer.alloc(FRAME_HEADER_BYTES);
    header.writeUInt32BE(0xffffffff, 0);
    fs.appendFileSync(threadFile('t'), Buffer.concat([header, Buffer.from('tiny')]));
    const before = process.memoryUsage().arrayBuffers;
    assert.deepEqual((await store.load('t'))?.messages, [hello.message]);
    assert.ok(process.memoryUsage().arrayBuffers - before < 64 * 1024 * 1024);
    assert.match(warnings.join('\n'), /over the cap/);
    await store.close();
  });

  it('a torn tail (any cut of the last frame) is dropped on load and cut off before the next append', async () => {
    const store = await LogStore.open(data, log);
    await store.append('t', [hello]);
    const good = fs.statSync(threadFile('t')).size;
    await store.append('t', [{ kind: 'message', message: { role: 'assistant', content: 'a longer answer that gets torn' } }]);
    const full = fs.readFileSync(threadFile('t'));
    for (let cut = good + 1; cut < full.length; cut += 7) {
      fs.writeFileSync(threadFile('t'), full.subarray(0, cut));
      const reopened = await LogStore.open(data, log);
      assert.deepEqual((await reopened.load('t'))?.messages, [hello.message], `cut at ${cut}`);
      await reopened.append('t', [{ kind: 'message', message: { role: 'user', content: 'after' } }]);
      assert.deepEqual((await reopened.load('t'))?.messages.map((m) => m.content), ['hello', 'after'], `cut at ${cut}`);
      await reopened.close();
    }
    await store.close();
  });

  it('a flipped byte inside a frame fails its checksum: the frames before it load, the rest are reported', async () => {
    const store = await LogStore.open(data, log);
    await store.append('t', [hello]);
    const good = fs.statSync(threadFile('t')).size;
    await store.append('t', [{ kind: 'message', message: { role: 'user', content: 'second' } }]);
    const bytes = fs.readFileSync(threadFile('t'));
    bytes[good + FRAME_HEADER_BYTES + 3] ^= 0xff;
    fs.writeFileSync(threadFile('t'), bytes);
    assert.deepEqual((await store.load('t'))?.messages, [hello.message]);
    assert.match(warnings.join('\n'), /checksum/);
    await store.close();
  });

  it('a thread file that is a symbolic link is never followed: load skips it with a warning, append fails with STORE_UNSAFE, the target is untouched', async function () {
    if (process.platform === 'win32') return;
    const store = await LogStore.open(data, log);
    const target = path.join(dir, 'precious.txt');
    fs.writeFileSync(target, 'do not touch');
    fs.symlinkSync(target, threadFile('t'));
    assert.equal(await store.load('t'), undefined);
    assert.match(warnings.join('\n'), /symbolic link/);
    await assert.rejects(store.append('t', [hello]), (e: unknown) => e instanceof StoreError && e.code === 'STORE_UNSAFE');
    assert.equal(fs.readFileSync(target, 'utf8'), 'do not touch');
    await store.close();
  });

  it('a data folder that is a symbolic link, or writable by others, is refused with STORE_UNSAFE', async function () {
    if (process.platform === 'win32') return;
    const real = path.join(dir, 'real');
    fs.mkdirSync(real, { mode: 0o700 });
    fs.symlinkSync(real, data);
    await assert.rejects(LogStore.open(data, log), (e: unknown) => e instanceof StoreError && e.code === 'STORE_UNSAFE' && /symbolic link/.test(e.message));
    const open = path.join(dir, 'open');
    fs.mkdirSync(open);
    fs.chmodSync(open, 0o777);
    await assert.rejects(LogStore.open(open, log), (e: unknown) => e instanceof StoreError && e.code === 'STORE_UNSAFE' && /0777/.test(e.message));
  });

  it('a blob that was swapped or removed comes back as a placeholder the model reads, not as wrong bytes', async () => {
    const store = await LogStore.open(data, log);
    const bytes = new Uint8Array([1, 2, 3, 4]);
    await store.append('t', [{ kind: 'message', message: { role: 'tool', toolCallId: 'c', toolName: 'ReadFile', content: [{ type: 'binary', mimeType: 'image/png', filename: 'a.png', bytes }] } }]);
    const blobs = path.join(data, 'blobs', fileKey('t'));
    const [blob] = fs.readdirSync(blobs);
    fs.writeFileSync(path.join(blobs, blob), new Uint8Array([9, 9, 9, 9]));
    const message = (await store.load('t'))?.messages[0];
    assert.ok(message?.role === 'tool');
    assert.deepEqual(message.content, [{ type: 'text', text: '[a.png: image/png, 4 bytes: no longer stored]' }]);
    await store.close();
  });
});
