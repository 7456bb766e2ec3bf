/**
 * The conformance kit keeps everything a peer under test sends, so a check can look back. A hostile
 * backend or extension must not turn that into unbounded memory in the kit: one frame larger than
 * the protocol's largest message closes the connection (1009) unread, and past the kit's budget for
 * one connection it records a violation and closes.
 */
import * as assert from 'node:assert/strict';
import type { AddressInfo } from 'node:net';
import { WebSocket, WebSocketServer } from 'ws';
import { BackendPeer, upgrade } from '../../src/conformance/backendPeer';
import { listen } from '../../src/conformance/extension/server';
import { SUBPROTOCOL } from '../../src/protocol';

/** A frame past the protocol's 32 MiB message limit, below ws's own 100 MiB default. */
const HUGE = 40 * 1024 * 1024;

async function rogueBackend(onConnection: (ws: WebSocket) => void): Promise<{ url: string; close(): Promise<void> }> {
  const wss = new WebSocketServer({ host: '127.0.0.1', port: 0, handleProtocols: () => SUBPROTOCOL, maxPayload: HUGE * 2 });
  await new Promise<void>((resolve) => wss.once('listening', resolve));
  wss.on('connection', onConnection);
  return {
    url: `ws://127.0.0.1:${(wss.address() as AddressInfo).port}`,
    close: async () => {
      for (const c of wss.clients) c.terminate();
      await new Promise<void>((resolve) => wss.close(() => resolve()));
    },
  };
}

describe('rogue peer vs. the conformance kit', () => {
  it('T-KIT-01 a backend that sends one 40 MiB frame: the kit closes the connection with 1009 and keeps nothing of it', async () => {
    let closedBy: (code: number) => void = () => undefined;
    const rogueSawClose = new Promise<number>((resolve) => (closedBy = resolve));
    const backend = await rogueBackend((ws) => {
      ws.on('close', (code) => closedBy(code));
      ws.send(Buffer.alloc(HUGE, 0x61), { binary: false });
    });
    try {
      const up = await upgrade(backend.url, { timeoutMs: 10_000 });
      assert.equal(up.kind, 'open');
      if (up.kind !== 'open') return;
      await up.peer.closed;
      assert.equal(await rogueSawClose, 1009, 'the kit told the backend why it closed');
      assert.equal(up.peer.received.length, 0);
    } finally {
      await backend.close();
    }
  });

  it('T-KIT-02 a backend that never stops sending: past the budget the kit records one violation, closes, and keeps no more', async () => {
    const chunk = `{"type":"${'x'.repeat(1024 * 1024)}"}`;
    let stop = false;
    const backend = await rogueBackend((ws) => {
      const pump = () => {
        for (let i = 0; i < 8 && !stop && ws.readyState === WebSocket.OPEN; i++) ws.send(chunk);
        if (!stop && ws.readyState === WebSocket.OPEN) setImmediate(pump);
      };
      pump();
    });
    try {
      const ws = new WebSocket(backend.url, [SUBPROTOCOL]);
      const peer = new BackendPeer(ws, 8 * 1024 * 1024);
      const closed = await peer.closed;
      stop = true;
      assert.equal(closed.code, 1009);
      const kept = peer.received.filter((r) => !r.invalid?.message.includes('stopped keeping'));
      assert.ok(kept.length <= 8, `${kept.length} messages kept`);
      const violations = peer.received.filter((r) => r.invalid?.code === 'MESSAGE_TOO_LARGE');
      assert.equal(violations.length, 1);
      assert.match(violations[0].invalid!.message, /more than 8388608 bytes on one connection/);
    } finally {
      stop = true;
      await backend.close();
    }
  });

  it('T-KIT-03 an extension that sends one 40 MiB frame to the kit playing the backend: the connection is closed with 1009', async () => {
    const kit = await listen('127.0.0.1', 0, undefined);
    try {
      const ws = new WebSocket(kit.url, [SUBPROTOCOL], { maxPayload: HUGE * 2 });
      await new Promise<void>((resolve, reject) => {
        ws.once('open', resolve);
        ws.once('error', reject);
      });
      const closedWith = new Promise<number>((resolve) => ws.once('close', (code) => resolve(code)));
      const { peer } = await kit.nextConnection(10_000);
      ws.send(Buffer.alloc(HUGE, 0x61), { binary: false });
      assert.equal(await closedWith, 1009);
      assert.equal(peer.mark(), 0, 'nothing kept');
    } finally {
      await kit.close();
    }
  });
});
