import * as assert from 'node:assert/strict';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { LineBuffer, useLineBuffer } from '../../../../src/tools/mcpClient/lineBuffer';

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

  it('refuses to hold more than its limit, as the SDK buffer does', () => {
    const b = new LineBuffer(10);
    assert.throws(() => b.append(Buffer.alloc(11)), /exceeded maximum size of 10 bytes/);
    b.append(Buffer.from(ping(1).slice(0, 5)));
  });

  it('takes the place of the SDK transport\'s own buffer (a private field this depends on)', () => {
    const transport = new StdioClientTransport({ command: 'unused' });
    assert.ok('_readBuffer' in transport, 'the SDK no longer has _readBuffer: see useLineBuffer');
    useLineBuffer(transport, 1024);
    assert.ok((transport as unknown as { _readBuffer: unknown })._readBuffer instanceof LineBuffer);
  });
});
