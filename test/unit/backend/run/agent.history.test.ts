import { strict as assert } from 'node:assert';
import type { Backend, ChatModel, ServerTool } from '../../../../src/backend';
import { createBackend } from '../../../../src/backend';
import { enforceBudget, excerptContent } from '../../../../src/backend/run/historyBudget';
import type { ChatMessage, ModelChunk, ModelRequest } from '../../../../src/backend/model/chatModel';
import { TestClient } from '../../../support/backend-client';

const TOKEN = 'test-token-0123456789abcdef';
const MiB = 1024 * 1024;

/** Bytes of history the model was sent: every message but the system prompt. */
function historyBytes(request: ModelRequest): number {
  let n = 0;
  for (const m of request.messages) {
    if (m.role === 'system') continue;
    if (m.role === 'tool') {
      for (const c of m.content) n += c.type === 'text' ? Buffer.byteLength(c.text) : c.type === 'json' ? JSON.stringify(c.value).length : c.bytes.byteLength;
    } else {
      n += Buffer.byteLength(m.content);
    }
  }
  return n;
}

/** A model that calls `big_result` `calls` times, one per turn, then answers; it records every request. */
function scriptedModel(calls: number, seen: ModelRequest[]): ChatModel {
  return {
    name: 'scripted',
    offline: true,
    async *stream(request: ModelRequest): AsyncIterable<ModelChunk> {
      seen.push(request);
      const sinceUser = request.messages.length - request.messages.map((m) => m.role).lastIndexOf('user');
      const made = Math.floor((sinceUser - 1) / 2);
      if (made < calls) yield { type: 'toolCall', call: { id: `call_${seen.length}`, name: 'big_result', arguments: '{}' } };
      else yield { type: 'text', text: 'done' };
    },
  };
}

/** 2 MiB of text: 1 MiB of H, then 1 MiB of T (16 MiB results behave alike; these keep the test light). */
const bigResult: ServerTool = {
  name: 'big_result',
  description: 'A very large result',
  parameters: { type: 'object', properties: {} },
  execute: () => 'H'.repeat(MiB) + 'T'.repeat(MiB),
};

describe('backend agent: the history budget', () => {
  let backend: Backend | undefined;
  let client: TestClient | undefined;
  afterEach(async () => {
    await client?.drop();
    await backend?.close();
    backend = undefined;
    client = undefined;
  });

  it('eight 2 MiB tool results keep the history under a 256 KiB budget, each large result an excerpt with its marker', async function () {
    this.timeout(60_000);
    const seen: ModelRequest[] = [];
    backend = await createBackend({ token: TOKEN, model: scriptedModel(8, seen), tools: [bigResult], historyResultBytes: 64 * 1024, historyBudgetBytes: 256 * 1024 });
    ({ client } = await TestClient.open(backend.url, TOKEN));
    const { finished } = await client.run('t', 'fetch it eight times', 50_000);
    assert.equal(finished.reason, 'completed');
    assert.equal(seen.length, 9);
    for (const request of seen) assert.ok(historyBytes(request) <= 256 * 1024 + 4096, `the model was sent ${historyBytes(request)} bytes of history`);

    // The turn a result arrives in, the model reads it as a head/tail excerpt of the per-result size.
    const fresh = seen[1].messages.at(-1) as Extract<ChatMessage, { role: 'tool' }>;
    const text = fresh.content[0].type === 'text' ? fresh.content[0].text : '';
    assert.ok(Buffer.byteLength(text) <= 64 * 1024 + 64 && Buffer.byteLength(text) > 60 * 1024, `${Buffer.byteLength(text)} bytes`);
    const omitted = /\[\.\.\. (\d+) bytes omitted \(lines \d+ to \d+ of \d+\); the whole text is \d+ bytes \.\.\.\]/.exec(text);
    assert.ok(omitted, 'no marker');
    assert.equal(Number(omitted[1]) + Buffer.byteLength(text) - Buffer.byteLength(`\n${omitted[0]}\n`), 2 * MiB, 'the marker counts exactly what was left out');
    assert.ok(text.startsWith('HHHH') && text.endsWith('TTTT'));
    // The client still received each whole result.
    assert.equal(client.all('toolCallEnded').filter((m) => m.content[0]?.type === 'text' && m.content[0].text.length === 2 * MiB).length, 8);

    // More runs on the thread stay within the budget, older results shrinking first.
    const again = await client.run('t', 'and again', 50_000);
    assert.equal(again.finished.reason, 'completed');
    const last = seen.at(-1)!;
    assert.ok(historyBytes(last) <= 256 * 1024 + 4096, `${historyBytes(last)} bytes`);
    assert.ok(last.messages.some((m) => m.role === 'user' && m.content === 'and again'));
  });

  it('excerpts binary and JSON items too, and leaves a small result alone', () => {
    const small = [{ type: 'text' as const, text: 'fine' }];
    assert.equal(excerptContent(small, 1024), small);
    const out = excerptContent([{ type: 'binary', mimeType: 'image/png', filename: 'a.png', bytes: new Uint8Array(10_000) }, { type: 'json', value: { list: 'x'.repeat(10_000) } }], 2048);
    assert.deepEqual(out[0], { type: 'text', text: '[a.png: image/png, 10000 bytes omitted ...]' });
    assert.ok(out[1].type === 'text' && /^\{"list":"x+\n\[\.\.\. \d+ bytes omitted \(lines 1 to 1 of 1\); the whole text is \d+ bytes \.\.\.\]\nx+"\}$/.test(out[1].text));
  });

  it('over the budget, drops the oldest exchanges whole, never the latest one', () => {
    const history: ChatMessage[] = [];
    for (let i = 0; i < 10; i++) history.push({ role: 'user', content: `${i}`.repeat(1000) }, { role: 'assistant', content: 'a'.repeat(1000) });
    enforceBudget(history, 5000);
    assert.equal(history[0].role, 'user');
    assert.ok(history.length <= 5 && history.length >= 2);
    assert.equal(history.at(-2)?.content, '9'.repeat(1000));
    const alone: ChatMessage[] = [{ role: 'user', content: 'u'.repeat(10_000) }];
    enforceBudget(alone, 100);
    assert.equal(alone.length, 1);
  });
});
