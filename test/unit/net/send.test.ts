import { strict as assert } from 'node:assert';
import type { AddressInfo } from 'node:net';
import { WebSocket, WebSocketServer } from 'ws';
import { receivedData, receiveFragments, sendEncoded } from '../../../src/net/send';
import { decode, encode, encodeParts } from '../../../src/protocol/codec';
import type { ClientToolInvokeResponse } from '../../../src/protocol/types';

/** A real ws pair on loopback; `fragments` chooses how the receiving end delivers binary messages. */
async function pair(fragments: boolean): Promise<{ sender: WebSocket; received: Array<{ data: Buffer | Buffer[]; isBinary: boolean }>; close: () => Promise<void> }> {
  const wss = new WebSocketServer({ host: '127.0.0.1', port: 0, perMessageDeflate: false });
  await new Promise<void>((resolve) => wss.once('listening', () => resolve()));
  const accepted = new Promise<WebSocket>((resolve) => wss.once('connection', (ws) => resolve(ws)));
  const client = new WebSocket(`ws://127.0.0.1:${(wss.address() as AddressInfo).port}`, { perMessageDeflate: false });
  const received: Array<{ data: Buffer | Buffer[]; isBinary: boolean }> = [];
  if (fragments) receiveFragments(client);
  client.on('message', (data, isBinary) => received.push({ data: receivedData(data), isBinary }));
  await new Promise<void>((resolve, reject) => client.once('open', () => resolve()).once('error', reject));
  const sender = await accepted;
  return {
    sender,
    received,
    async close() {
      client.terminate();
      await new Promise<void>((resolve) => wss.close(() => resolve()));
    },
  };
}

async function until(check: () => boolean): Promise<void> {
  for (let i = 0; i < 400 && !check(); i++) await new Promise((r) => setTimeout(r, 5));
  assert.ok(check(), 'timed out');
}

const big = Buffer.alloc(1024 * 1024);
for (let i = 0; i < big.length; i++) big[i] = i % 251;
const message: ClientToolInvokeResponse = {
  type: 'clientToolInvokeResponse',
  requestId: 'r1',
  success: true,
  content: [
    { type: 'text', text: 'a megabyte and a few bytes' },
    { type: 'binary', mimeType: 'application/octet-stream', bytes: big },
    { type: 'binary', mimeType: 'image/png', bytes: new Uint8Array([1, 2, 3]) },
  ],
};

describe('sending an encoded message (src/net/send.ts)', () => {
  it('a binary message goes out as one fragmented message, a frame per part, and arrives as those fragments, in order with the next message', async () => {
    const p = await pair(true);
    try {
      let sentCalls = 0;
      sendEncoded(p.sender, encodeParts(message), (error) => {
        assert.equal(error, undefined);
        sentCalls++;
      });
      sendEncoded(p.sender, encodeParts({ type: 'clientToolInvokeResponse', requestId: 'r2', success: true, content: [{ type: 'text', text: 'after' }] }));
      await until(() => p.received.length === 2 && sentCalls === 1);
      const first = p.received[0];
      assert.equal(first.isBinary, true);
      assert.ok(Array.isArray(first.data), 'delivered as fragments');
      assert.equal(first.data.length, 3, 'header and JSON, then the two attachments');
      const decoded = decode('toServer', first.data, true);
      assert.ok(decoded.ok && decoded.message.type === 'clientToolInvokeResponse');
      const [, mib, png] = decoded.message.content;
      assert.ok(mib.type === 'binary' && Buffer.from(mib.bytes).equals(big));
      assert.ok(png.type === 'binary' && Buffer.from(png.bytes).equals(Buffer.from([1, 2, 3])));
      const second = decode('toServer', p.received[1].data, p.received[1].isBinary);
      assert.ok(second.ok && second.message.type === 'clientToolInvokeResponse' && second.message.requestId === 'r2');
      assert.equal(sentCalls, 1, 'onSent runs once for the whole message');
    } finally {
      await p.close();
    }
  });

  it('a peer that joins fragments (ws default) receives exactly the single-frame encoding', async () => {
    const p = await pair(false);
    try {
      sendEncoded(p.sender, encodeParts(message));
      await until(() => p.received.length === 1);
      const { data } = p.received[0];
      assert.ok(Buffer.isBuffer(data));
      assert.ok(data.equals(encode(message).data as Buffer));
    } finally {
      await p.close();
    }
  });
});
