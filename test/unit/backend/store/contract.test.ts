import { strict as assert } from 'node:assert';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { LogStore } from '../../../../src/backend/store/logStore';
import { MemoryStore } from '../../../../src/backend/store/memoryStore';
import { silentLogger } from '../../../../src/base/logger';
import { storeContract } from './storeContract';

storeContract('MemoryStore', false, () => Promise.resolve({ store: new MemoryStore() }));

const folders: string[] = [];
after(() => {
  for (const f of folders) fs.rmSync(f, { recursive: true, force: true });
});
storeContract('LogStore', true, async () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'ct-store-'));
  folders.push(dir);
  const data = path.join(dir, 'conversations');
  return { store: await LogStore.open(data, silentLogger), reopen: () => LogStore.open(data, silentLogger) };
});

describe('MemoryStore', () => {
  it('forgets the least recently written thread past its cap', async () => {
    const store = new MemoryStore(2);
    for (const id of ['a', 'b', 'c']) await store.append(id, [{ kind: 'message', message: { role: 'user', content: id } }]);
    assert.equal(await store.load('a'), undefined);
    assert.deepEqual((await store.list()).map((s) => s.threadId), ['c', 'b']);
  });
});
