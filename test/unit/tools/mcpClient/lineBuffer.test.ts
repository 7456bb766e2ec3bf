import * as assert from 'node:assert/strict';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { LINE_TOO_LONG, LineBuffer, useLineBuffer } from '../../../../src/tools/mcpClient/lineBuffer';

const ping = (id: number) => `${JSON.stringify({ jsonrpc: '2.0', id, method: 'ping' })}\n`;

describe('MCP servers: the stdio line buffer', () => {
  it('reads messages split across chunks, several in one chunk, and lines ending in CR LF', () => {
    const b = new LineBuffer(1024 * 1024);
    const text = ping(1) + ping(2).replace('\n', '\r\n') + ping(3);
    for (let i = 0; i < text.length; i += 7) b.append(Buffer.from(text.slice(i, i + 7)));
    assert.deepEqual([b.readMessage(), b.readMessage(), b.readMessage(), b.readMessage()], [
      { jsonrpc: '2.0', id: 1, method: 'ping' },
      { jsonrpc: '2.0', id: 2, method: 'ping' },
      { jsonrpc: '2.0', id: 3, method: 'ping' },
      null,
    ]);
  });

  it('joins a long line once, however many chunks it came in (the SDK joined everything held at every chunk)', () => {
    const b = new LineBuffer(64 * 1024 * 1024);
    const line = JSON.stringify({ jsonrpc: '2.0', id: 1, result: { text: 'a'.repeat(8 * 1024 * 1024) } });
    const original = Buffer.concat;
    let joined = 0;
    Buffer.concat = ((list: readonly Uint8Array[], length?: number) => {
      joined += 1;
      return original(list, length);
    }) as typeof Buffer.concat;
    try {
      const bytes = Buffer.from(`${line}\n`);
      for (let i = 0; i < bytes.length; i += 64 * 1024) {
        b.append(bytes.subarray(i, i + 64 * 1024));
        if (i + 64 * 1024 < bytes.length) assert.equal(b.readMessage(), null);
      }
      assert.deepEqual(b.readMessage(), JSON.parse(line));
    } finally {
      Buffer.concat = original;
    }
    assert.equal(joined, 1);
  });

  it('drops a line past the structure limits unparsed, with an error naming the limit, and reads the next', () => {
    const b = new LineBuffer(1024 * 1024, { maxValues: 100, maxMembers: 10 });
    const members = Object.fromEntries(Array.from({ length: 11 }, (_, i) => [`k${i}`, 0]));
    b.append(Buffer.from(`${JSON.stringify({ jsonrpc: '2.0', id: 1, result: members })}\n${ping(2)}`));
    assert.throws(() => b.readMessage(), /dropped unread: an object in the message has more than 10 members/);
    assert.deepEqual(b.readMessage(), { jsonrpc: '2.0', id: 2, method: 'ping' });
  });

  describe('a line longer than a message may be', () => {
    const MAX = 64 * 1024;
    const answer = (id: number | string, idFirst: boolean) => {
      const result = { content: [{ type: 'text', text: 'a'.repeat(MAX) }] };
      return JSON.stringify(idFirst ? { jsonrpc: '2.0', id, result } : { result, jsonrpc: '2.0', id });
    };
    /** Feeds `text` in 1 KiB pieces, reading after each as the SDK's transport does; what was read or thrown, in order. */
    const feed = (b: LineBuffer, text: string): unknown[] => {
      const out: unknown[] = [];
      const bytes = Buffer.from(text);
      for (let i = 0; i < bytes.length; i += 1024) {
        b.append(bytes.subarray(i, i + 1024));
        for (;;) {
          try {
            const m = b.readMessage();
            if (m === null) break;
            out.push(m);
          } catch (e) {
            out.push((e as Error).message);
          }
        }
      }
      return out;
    };
    const tooLong = (bytes: number) => `a message from the MCP server was dropped unread: it is ${bytes} bytes, more than the ${MAX} bytes a message may have`;

    it('is skipped as it comes, holding no more than the limit and a piece; an answer becomes an error answer to its id (first or last), and the next message is read', () => {
      const b = new LineBuffer(MAX);
      const line1 = answer(7, false);
      const line2 = answer('req-8', true).replace(/}$/, '}\r');
      let most = 0;
      const append = b.append.bind(b);
      b.append = (chunk: Buffer) => {
        append(chunk);
        most = Math.max(most, (b as unknown as { held: number }).held);
      };
      assert.deepEqual(feed(b, `${line1}\n${line2}\n${ping(9)}`), [
        { jsonrpc: '2.0', id: 7, error: { code: LINE_TOO_LONG, message: tooLong(Buffer.byteLength(line1)) } },
        { jsonrpc: '2.0', id: 'req-8', error: { code: LINE_TOO_LONG, message: tooLong(Buffer.byteLength(line2)) } },
        { jsonrpc: '2.0', id: 9, method: 'ping' },
      ]);
      assert.ok(most <= MAX + 1024, `held ${most} bytes`);
    });

    it('without an id at either end (a notification, or an id nested deeper) is dropped with an error naming its length', () => {
      const b = new LineBuffer(MAX);
      const notification = JSON.stringify({ jsonrpc: '2.0', method: 'notifications/message', params: { data: 'a'.repeat(MAX), id: 3 } });
      const nested = JSON.stringify({ jsonrpc: '2.0', method: 'x', params: { data: 'a'.repeat(MAX), last: { id: 4 } } });
      assert.deepEqual(feed(b, `${notification}\n${nested}\n${ping(5)}`), [tooLong(Buffer.byteLength(notification)), tooLong(Buffer.byteLength(nested)), { jsonrpc: '2.0', id: 5, method: 'ping' }]);
    });

    it('is dropped the same when it arrives whole in one chunk with what follows', () => {
      const b = new LineBuffer(MAX);
      const line = answer(11, false);
      b.append(Buffer.from(`${line}\n${ping(12)}`));
      assert.deepEqual([b.readMessage(), b.readMessage(), b.readMessage()], [
        { jsonrpc: '2.0', id: 11, error: { code: LINE_TOO_LONG, message: tooLong(Buffer.byteLength(line)) } },
        { jsonrpc: '2.0', id: 12, method: 'ping' },
        null,
      ]);
    });

    it('of exactly the limit is read', () => {
      const b = new LineBuffer(MAX);
      const envelope = JSON.stringify({ jsonrpc: '2.0', id: 1, result: { text: '' } });
      const line = JSON.stringify({ jsonrpc: '2.0', id: 1, result: { text: 'a'.repeat(MAX - envelope.length) } });
      assert.equal(Buffer.byteLength(line), MAX);
      assert.deepEqual(feed(b, `${line}\n`), [JSON.parse(line)]);
    });
  });

  it('takes the place of the SDK transport\'s own buffer (a private field this depends on)', () => {
    const transport = new StdioClientTransport({ command: 'unused' });
    assert.ok('_readBuffer' in transport, 'the SDK no longer has _readBuffer: see useLineBuffer');
    useLineBuffer(transport, 1024);
    assert.ok((transport as unknown as { _readBuffer: unknown })._readBuffer instanceof LineBuffer);
  });
});
