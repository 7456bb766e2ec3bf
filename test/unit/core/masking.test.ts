import * as assert from 'node:assert/strict';
import type { AddressInfo } from 'node:net';
import { WebSocket, WebSocketServer } from 'ws';
import { Connection, isLoopbackHost, unmaskedFramesSafe } from '../../../src/core/connection';
import { hello } from './hello-fixture';

/** The mask bit and masking key of the first frame a client sends to a server on loopback. */
async function firstFrameMask(connect: (url: string) => () => void): Promise<{ masked: boolean; key: string }> {
  const wss = new WebSocketServer({ host: '127.0.0.1', port: 0, perMessageDeflate: false });
  await new Promise<void>((resolve) => wss.once('listening', () => resolve()));
  const frame = new Promise<Buffer>((resolve) => wss.once('connection', (_ws, req) => req.socket.once('data', (chunk: Buffer) => resolve(chunk))));
  const close = connect(`ws://127.0.0.1:${(wss.address() as AddressInfo).port}`);
  try {
    const bytes = await frame;
    const masked = (bytes[1] & 0x80) !== 0;
    const len = bytes[1] & 0x7f;
    const at = len === 126 ? 4 : len === 127 ? 10 : 2;
    return { masked, key: bytes.subarray(at, at + 4).toString('hex') };
  } finally {
    close();
    await new Promise<void>((resolve) => wss.close(() => resolve()));
  }
}

describe('client frame masking (threat: a proxy between a browser and a server, RFC 6455 §10.3)', () => {
  it('a peer on loopback gets a zero masking key, which ws skips on both ends', async () => {
    const { masked, key } = await firstFrameMask((url) => {
      const conn = new Connection({ url, token: 't', buildHello: hello });
      conn.start();
      return () => conn.dispose();
    });
    assert.equal(masked, true, 'the frame is still marked masked, as the RFC requires of a client');
    assert.equal(key, '00000000');
  });

  it('a default ws client masks with a random key (the cost the zero key avoids)', async () => {
    const { masked, key } = await firstFrameMask((url) => {
      const ws = new WebSocket(url, { perMessageDeflate: false });
      ws.on('open', () => ws.send(JSON.stringify(hello())));
      return () => ws.terminate();
    });
    assert.equal(masked, true);
    assert.notEqual(key, '00000000');
  });

  it('decides by the socket address: IPv4-mapped loopback counts, other addresses do not', () => {
    for (const a of ['127.0.0.1', '::1', '::ffff:127.0.0.1', '127.8.9.10']) assert.equal(isLoopbackHost(a), true, a);
    for (const a of ['10.0.0.1', '::ffff:10.0.0.1', '192.168.1.2', 'fe80::1', '', '::ffff:128.0.0.1']) assert.equal(isLoopbackHost(a), false, a);
  });

  it('zero key only when both the URL and the peer are loopback: a local proxy to a remote URL keeps random keys', () => {
    assert.equal(unmaskedFramesSafe('127.0.0.1', '127.0.0.1'), true);
    assert.equal(unmaskedFramesSafe('localhost', '::1'), true);
    assert.equal(unmaskedFramesSafe('[::1]', '::ffff:127.0.0.1'), true);
    // VS Code's http.proxy: the socket ends at a proxy on this machine, the URL is elsewhere.
    assert.equal(unmaskedFramesSafe('agents.example.com', '127.0.0.1'), false);
    // A loopback URL whose socket reports a foreign peer (should not happen; random keys if it does).
    assert.equal(unmaskedFramesSafe('127.0.0.1', '10.0.0.2'), false);
    assert.equal(unmaskedFramesSafe('127.0.0.1', undefined), false);
    assert.equal(unmaskedFramesSafe('127.0.0.1', 'localhost'), false, 'a socket address is never a name');
  });
});
