import { strict as assert } from 'node:assert';
import { ResultStore } from '../../../../src/backend/context/resultStore';
import { READ_TOOL_RESULT, resultTools, SEARCH_TOOL_RESULT } from '../../../../src/backend/context/resultTools';
import type { ServerTool, ServerToolContext } from '../../../../src/backend/toolset/serverTools';
import { toToolCallResult } from '../../../../src/backend/toolset/serverTools';

const CONTEXT: ServerToolContext = { callId: 'c', threadId: 't', runId: 'r', signal: new AbortController().signal, progress: () => undefined };

async function call(tool: ServerTool, args: Record<string, unknown>): Promise<{ text: string; failed: boolean }> {
  const r = toToolCallResult(await tool.execute(args, CONTEXT));
  const text = r.content.map((c) => (c.type === 'text' ? c.text : '')).join('');
  return { text, failed: r.outcome !== 'succeeded' };
}

describe('context/resultStore + resultTools: paging through cut tool results', () => {
  const lines = Array.from({ length: 2000 }, (_, i) => `line ${i + 1}: ${i === 1234 ? 'NEEDLE here' : 'hay'}`).join('\n');

  it('pages through the whole text by offset and length, saying where the next page starts', async () => {
    const store = new ResultStore();
    const handle = store.keep('t', 'RunTests', lines);
    const [read] = resultTools(store, 't', 5_000);
    assert.equal(read.name, READ_TOOL_RESULT);
    let offset = 0;
    let rebuilt = '';
    for (let i = 0; i < 100 && offset < lines.length; i++) {
      const { text } = await call(read, { handle, offset, length: 4_000 });
      const header = /^\[RunTests result, characters (\d+)-(\d+) of (\d+)\.[^\n]*\]\n/.exec(text);
      assert.ok(header, text.slice(0, 200));
      assert.equal(Number(header[1]), offset);
      assert.equal(Number(header[3]), lines.length);
      rebuilt += text.slice(header[0].length);
      offset = Number(header[2]);
    }
    assert.equal(rebuilt, lines);
  });

  it('caps a page at the tool\'s page size', async () => {
    const store = new ResultStore();
    const handle = store.keep('t', 'RunTests', lines);
    const [read] = resultTools(store, 't', 2_000);
    const { text } = await call(read, { handle, length: 1_000_000 });
    assert.match(text, /characters 0-2000 of/);
  });

  it('finds the lines that contain a string, with line numbers and offsets that ReadToolResult accepts', async () => {
    const store = new ResultStore();
    const handle = store.keep('t', 'RunTests', lines);
    const [read, search] = resultTools(store, 't', 5_000);
    assert.equal(search.name, SEARCH_TOOL_RESULT);
    const { text } = await call(search, { handle, query: 'needle' });
    const m = /1 matching line:\nline 1235, offset (\d+): line 1235: NEEDLE here/.exec(text);
    assert.ok(m, text);
    const page = await call(read, { handle, offset: Number(m[1]), length: 30 });
    assert.match(page.text, /\nline 1235: NEEDLE here/);
    assert.match((await call(search, { handle, query: 'absent' })).text, /No line of the RunTests result contains "absent"/);
  });

  it('drops the oldest handles past the per-thread cap and says a dropped one expired', async () => {
    const store = new ResultStore({ perThread: 2, perThreadChars: 1_000_000, threads: 8 });
    const first = store.keep('t', 'A', 'first');
    const second = store.keep('t', 'B', 'second');
    const third = store.keep('t', 'C', 'third');
    const [read] = resultTools(store, 't', 5_000);
    const expired = await call(read, { handle: first });
    assert.equal(expired.failed, true);
    assert.match(expired.text, /has expired/);
    assert.match((await call(read, { handle: second })).text, /second$/);
    assert.match((await call(read, { handle: third })).text, /third$/);
  });

  it('bounds the characters a thread keeps, and the threads that keep any', () => {
    const store = new ResultStore({ perThread: 10, perThreadChars: 100, threads: 2 });
    const a = store.keep('t', 'A', 'a'.repeat(60));
    const b = store.keep('t', 'B', 'b'.repeat(60));
    assert.equal(store.get('t', a).ok, false);
    assert.equal(store.get('t', b).ok, true);
    store.keep('u', 'A', 'u');
    store.keep('v', 'A', 'v');
    assert.equal(store.has('t'), false);
    assert.equal(store.has('u') && store.has('v'), true);
  });

  it('keeps handles per thread: another thread cannot read them', async () => {
    const store = new ResultStore();
    const handle = store.keep('t', 'A', 'secret');
    const [read] = resultTools(store, 'other', 5_000);
    const r = await call(read, { handle });
    assert.equal(r.failed, true);
    assert.doesNotMatch(r.text, /secret/);
  });
});
