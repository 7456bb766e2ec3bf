/** The contract every ConversationStore keeps; contract.test.ts and the Redis tests run it against each implementation. */
import { strict as assert } from 'node:assert';
import type { ConversationStore, StoredRecord } from '../../../../src/backend/store/conversationStore';

const PNG = new Uint8Array([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 1, 2, 3]);

const turn: StoredRecord[] = [
  { kind: 'run', run: { runId: 'run_1', status: 'started' } },
  { kind: 'message', message: { role: 'user', content: 'read the logo' } },
  { kind: 'message', message: { role: 'assistant', content: '', toolCalls: [{ id: 'c1', name: 'ReadFile', arguments: '{"path":"logo.png"}' }] } },
  { kind: 'message', message: { role: 'tool', toolCallId: 'c1', toolName: 'ReadFile', content: [{ type: 'text', text: 'here' }, { type: 'json', value: { n: 1 } }, { type: 'binary', mimeType: 'image/png', filename: 'logo.png', bytes: PNG }] } },
  { kind: 'toolState', state: { expanded: ['IDE'], skills: [] } },
  { kind: 'message', message: { role: 'assistant', content: 'It is a PNG.' } },
  { kind: 'run', run: { runId: 'run_1', status: 'finished', reason: 'completed' } },
];

export function storeContract(name: string, durable: boolean, open: () => Promise<{ store: ConversationStore; reopen?: () => Promise<ConversationStore> }>): void {
  describe(`ConversationStore contract: ${name}`, () => {
    let store: ConversationStore;
    let reopen: (() => Promise<ConversationStore>) | undefined;
    beforeEach(async () => ({ store, reopen } = await open()));
    afterEach(() => store.close());

    it('loads what was appended, in order, binary content included, with the last tool state and run status', async () => {
      await store.append('t1', turn.slice(0, 2));
      await store.append('t1', turn.slice(2));
      const t = await store.load('t1');
      assert.ok(t);
      assert.equal(t.threadId, 't1');
      assert.deepEqual(t.messages.map((m) => m.role), ['user', 'assistant', 'tool', 'assistant']);
      const tool = t.messages[2];
      assert.ok(tool.role === 'tool');
      assert.deepEqual(tool.content.slice(0, 2), [{ type: 'text', text: 'here' }, { type: 'json', value: { n: 1 } }]);
      const image = tool.content[2];
      assert.ok(image.type === 'binary');
      assert.deepEqual([...image.bytes], [...PNG]);
      assert.equal(image.filename, 'logo.png');
      assert.deepEqual(t.toolState, { expanded: ['IDE'], skills: [] });
      assert.deepEqual(t.lastRun, { runId: 'run_1', status: 'finished', reason: 'completed' });
    });

    it('keeps a copy: changing the appended message afterwards does not change what is stored', async () => {
      const message = { role: 'user' as const, content: 'original' };
      const saving = store.append('t1', [{ kind: 'message', message }]);
      message.content = 'changed';
      await saving;
      assert.equal((await store.load('t1'))?.messages[0].content, 'original');
    });

    it('knows no thread it was never given, lists threads newest first, deletes one without touching the others', async () => {
      assert.equal(await store.load('nobody'), undefined);
      await store.append('old', [turn[1]]);
      await new Promise((r) => setTimeout(r, 20));
      await store.append('new', [turn[1]]);
      assert.deepEqual((await store.list()).map((s) => s.threadId), ['new', 'old']);
      await store.delete('old');
      await store.delete('never-there');
      assert.equal(await store.load('old'), undefined);
      assert.deepEqual((await store.list()).map((s) => s.threadId), ['new']);
      await store.append('old', [{ kind: 'message', message: { role: 'user', content: 'again' } }]);
      assert.deepEqual((await store.load('old'))?.messages, [{ role: 'user', content: 'again' }]);
    });

    it('keeps thread ids that are not file names apart (slashes, dots, unicode)', async () => {
      const ids = ['../../etc/passwd', 'a/b', '.', 'ünï', 'x'.repeat(500)];
      for (const id of ids) await store.append(id, [{ kind: 'message', message: { role: 'user', content: id } }]);
      for (const id of ids) assert.equal((await store.load(id))?.messages[0].content, id);
      assert.deepEqual(new Set((await store.list()).map((s) => s.threadId)), new Set(ids));
    });

    it('keeps concurrent appends to one thread in call order', async () => {
      await Promise.all(Array.from({ length: 50 }, (_, i) => store.append('t', [{ kind: 'message', message: { role: 'user', content: String(i) } }])));
      assert.deepEqual((await store.load('t'))?.messages.map((m) => m.content), Array.from({ length: 50 }, (_, i) => String(i)));
    });

    if (durable) it('after a reopen, holds everything appended before', async () => {
      await store.append('t1', turn);
      await store.close();
      assert.ok(reopen);
      store = await reopen();
      assert.equal((await store.load('t1'))?.messages.length, 4);
      assert.deepEqual((await store.list()).map((s) => s.threadId), ['t1']);
    });
  });
}
