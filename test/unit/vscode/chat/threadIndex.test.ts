import assert from 'node:assert/strict';
import { mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { DEFAULT_TITLE, MAX_TITLE_CHARS, ThreadIndex, titleFrom } from '../../../../src/vscode/chat/threadIndex';

describe('ThreadIndex (the chat\'s thread list, in a real folder)', () => {
  let dir: string;
  let clock: number;
  const now = () => clock;

  beforeEach(() => {
    dir = mkdtempSync(path.join(os.tmpdir(), 'threads-'));
    clock = 1_000;
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  async function reopen(index: ThreadIndex, options: Parameters<typeof ThreadIndex.open>[1] = {}): Promise<ThreadIndex> {
    await index.flush();
    return ThreadIndex.open(dir, { now, ...options });
  }

  it('starts with one empty current thread, adopting the id an older version kept', async () => {
    const adopted = '0b0b6b1e-2f0c-4c8e-9d1a-3a5b7c9d1e2f';
    const index = ThreadIndex.open(dir, { now, adoptId: adopted });
    assert.equal(index.current.id, adopted);
    assert.equal(index.current.title, DEFAULT_TITLE);
    const again = await reopen(index, { adoptId: 'ffffffff-2f0c-4c8e-9d1a-3a5b7c9d1e2f' });
    assert.equal(again.current.id, adopted, 'an existing index wins over the adopted id');
  });

  it('titles a thread from its first user message and keeps threads, current and transcripts across a reopen', async () => {
    const index = ThreadIndex.open(dir, { now });
    const first = index.current.id;
    index.noteUserMessage(first, '  How does the\nconnection reconnect?');
    index.noteUserMessage(first, 'a follow-up does not rename it');
    assert.deepEqual(index.saveTranscript(first, JSON.stringify({ items: ['one'] }), 1_234), []);
    clock = 2_000;
    const { thread: second } = index.create();
    assert.notEqual(second.id, first);
    index.noteUserMessage(second.id, 'Second topic');

    const again = await reopen(index);
    assert.equal(again.current.id, second.id);
    assert.deepEqual(again.list().map((t) => t.title), ['Second topic', 'How does the']);
    assert.deepEqual(again.list().map((t) => [t.createdAt, t.updatedAt]), [[2_000, 2_000], [1_000, 1_000]]);
    assert.deepEqual(await again.loadTranscript(first), { items: ['one'] });
    assert.equal(again.get(first)?.transcriptSavedAt, 1_234, 'the host knows how fresh its copy is');
    assert.equal(await again.loadTranscript(second.id), undefined);
  });

  it('New Chat on a thread with no message yet keeps that thread instead of adding another', () => {
    const index = ThreadIndex.open(dir, { now });
    const empty = index.current.id;
    assert.equal(index.create().thread.id, empty);
    assert.equal(index.list().length, 1);
  });

  it('switches, renames (trimmed, capped, not empty) and searches by title in any case', async () => {
    const index = ThreadIndex.open(dir, { now });
    const a = index.current.id;
    index.noteUserMessage(a, 'Refactor the parser');
    clock = 2_000;
    const b = index.create().thread.id;
    index.noteUserMessage(b, 'Write tests for the PARSER');
    clock = 3_000;
    const c = index.create().thread.id;
    index.noteUserMessage(c, 'Release notes');

    assert.deepEqual(index.list('parser').map((t) => t.id), [b, a]);
    assert.deepEqual(index.list('  ').map((t) => t.id), [c, b, a]);
    assert.equal(index.switchTo(a), true);
    assert.equal(index.switchTo('00000000-0000-4000-8000-000000000000'), false);
    assert.equal(index.rename(c, '   '), false);
    assert.equal(index.rename(c, `  Notes  for\n${'x'.repeat(200)}`), true);
    assert.equal(index.get(c)?.title, `Notes for ${'x'.repeat(MAX_TITLE_CHARS - 10)}`);

    const again = await reopen(index);
    assert.equal(again.current.id, a);
    assert.equal(again.get(c)?.title.startsWith('Notes for x'), true);
    assert.deepEqual(again.list('notes').map((t) => t.id), [c]);
  });

  it('delete removes the thread and its transcript file; deleting the current one moves to the most recent other', async () => {
    const index = ThreadIndex.open(dir, { now });
    const a = index.current.id;
    index.noteUserMessage(a, 'first');
    index.saveTranscript(a, '{"a":1}');
    clock = 2_000;
    const b = index.create().thread.id;
    index.noteUserMessage(b, 'second');
    index.saveTranscript(b, '{"b":1}');
    await index.flush();
    assert.ok(readdirSync(dir).includes(`${b}.json`));

    assert.equal(index.delete(b), true);
    assert.equal(index.current.id, a);
    await index.flush();
    assert.ok(!readdirSync(dir).includes(`${b}.json`));
    assert.equal(index.delete(a), true);
    assert.equal(index.list().length, 1, 'a new empty thread replaces the last one deleted');
    assert.notEqual(index.current.id, a);
    assert.equal(index.delete(a), false);

    const again = await reopen(index);
    assert.deepEqual(again.list().map((t) => t.id), [index.current.id]);
    assert.deepEqual(readdirSync(dir).sort(), ['index.json']);
  });

  it('drops the least recently used threads beyond the count cap, never the current one, and reports them', () => {
    const index = ThreadIndex.open(dir, { now, limits: { maxThreads: 3 } });
    const ids: string[] = [];
    for (let i = 0; i < 3; i++) {
      clock = 1_000 * (i + 1);
      const id = i === 0 ? index.current.id : index.create().thread.id;
      index.noteUserMessage(id, `thread ${i}`);
      ids.push(id);
    }
    clock = 10_000;
    index.noteUserMessage(ids[0], 'the oldest is used again');
    clock = 11_000;
    const { thread, dropped } = index.create();
    assert.deepEqual(dropped.map((t) => t.title), ['thread 1']);
    assert.deepEqual(index.list().map((t) => t.id), [thread.id, ids[0], ids[2]]);
  });

  it('drops the oldest threads beyond the total size cap and refuses one transcript over its own cap', async () => {
    const index = ThreadIndex.open(dir, { now, limits: { maxTotalChars: 250, maxTranscriptChars: 200 } });
    const a = index.current.id;
    index.noteUserMessage(a, 'big one');
    assert.deepEqual(index.saveTranscript(a, JSON.stringify('x'.repeat(150))), []);
    clock = 2_000;
    const b = index.create().thread.id;
    index.noteUserMessage(b, 'newer');
    assert.equal(index.saveTranscript(b, JSON.stringify('y'.repeat(300))), undefined, 'over the per-transcript cap');
    const dropped = index.saveTranscript(b, JSON.stringify('y'.repeat(150)));
    assert.deepEqual(dropped?.map((t) => t.id), [a]);
    assert.deepEqual(index.list().map((t) => t.id), [b]);
    await index.flush();
    assert.deepEqual(readdirSync(dir).sort(), [`${b}.json`, 'index.json']);
  });

  it('a corrupt index starts a fresh list; an unreadable transcript loads as nothing', async () => {
    writeFileSync(path.join(dir, 'index.json'), '{"version":1,"threads":[{"id":"../../etc"}]');
    const index = ThreadIndex.open(dir, { now });
    assert.equal(index.list().length, 1);
    writeFileSync(path.join(dir, `${index.current.id}.json`), '{not json');
    assert.equal(await index.loadTranscript(index.current.id), undefined);
  });

  it('titleFrom takes the first non-empty line, collapses spaces and clips long lines', () => {
    assert.equal(titleFrom('\n\n  hello   world \nmore'), 'hello world');
    assert.equal(titleFrom('   '), DEFAULT_TITLE);
    const long = titleFrom('y'.repeat(500));
    assert.equal(long.length, MAX_TITLE_CHARS);
    assert.ok(long.endsWith('…'));
  });
});
