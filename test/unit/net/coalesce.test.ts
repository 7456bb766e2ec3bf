import { strict as assert } from 'node:assert';
import type { AddressInfo, Socket } from 'node:net';
import { WebSocket, WebSocketServer } from 'ws';
import { coalesceWrites, holdForTurn } from '../../../src/net/coalesce';

/** A real ws pair on loopback; counts the system-call-level writes of the sending side's socket. */
async function pair(coalesce: boolean): Promise<{ sender: WebSocket; received: string[]; writes: () => number; close: () => Promise<void> }> {
  const wss = new WebSocketServer({ host: '127.0.0.1', port: 0, perMessageDeflate: false });
  await new Promise<void>((resolve) => wss.once('listening', () => resolve()));
  const accepted = new Promise<{ ws: WebSocket; socket: Socket }>((resolve) => wss.once('connection', (ws, req) => resolve({ ws, socket: req.socket })));
  const client = new WebSocket(`ws://127.0.0.1:${(wss.address() as AddressInfo).port}`, { perMessageDeflate: false });
  const received: string[] = [];
  client.on('message', (data) => received.push(String(data)));
  await new Promise<void>((resolve, reject) => client.once('open', () => resolve()).once('error', reject));
  const { ws, socket } = await accepted;
  if (coalesce) coalesceWrites(ws, socket);
  // Every way a net.Socket hands data to the kernel goes through _write or _writev.
  let count = 0;
  const s = socket as unknown as { _write: (...a: unknown[]) => void; _writev: (...a: unknown[]) => void };
  for (const key of ['_write', '_writev'] as const) {
    const original = s[key].bind(socket);
    s[key] = (...a: unknown[]) => {
      count++;
      original(...a);
    };
  }
  return {
    sender: ws,
    received,
    writes: () => count,
    async close() {
      client.terminate();
      await new Promise<void>((resolve) => wss.close(() => resolve()));
    },
  };
}

function sendBurst(ws: WebSocket, n: number): void {
  for (let i = 0; i < n; i++) {
    holdForTurn(ws);
    ws.send(`message ${i}`);
  }
}

async function until(check: () => boolean): Promise<void> {
  for (let i = 0; i < 200 && !check(); i++) await new Promise((r) => setTimeout(r, 5));
  assert.ok(check(), 'timed out');
}

describe('write coalescing', () => {
  it('frames sent in one turn leave in one write, in order', async () => {
    const p = await pair(true);
    try {
      sendBurst(p.sender, 20);
      assert.equal(p.writes(), 0, 'held until the turn ends');
      await until(() => p.received.length === 20);
      assert.equal(p.writes(), 1);
      assert.deepEqual(p.received, Array.from({ length: 20 }, (_, i) => `message ${i}`));
    } finally {
      await p.close();
    }
  });

  it('without it, ws writes every frame on its own (what the test above would see)', async () => {
    const p = await pair(false);
    try {
      sendBurst(p.sender, 20);
      await until(() => p.received.length === 20);
      assert.equal(p.writes(), 20);
    } finally {
      await p.close();
    }
  });

  it('frames sent from promise callbacks of the same turn still go together, and nothing waits for the next turn', async () => {
    const p = await pair(true);
    try {
      let writesBeforeNextTurn = -1;
      setImmediate(() => (writesBeforeNextTurn = p.writes()));
      holdForTurn(p.sender);
      p.sender.send('first');
      await Promise.resolve();
      holdForTurn(p.sender);
      p.sender.send('second, from a microtask');
      await until(() => p.received.length === 2);
      assert.equal(writesBeforeNextTurn, 1, 'written before the event loop moved on');
      assert.equal(p.writes(), 1);
      // A later turn corks afresh.
      holdForTurn(p.sender);
      p.sender.send('third');
      await until(() => p.received.length === 3);
      assert.equal(p.writes(), 2);
      assert.deepEqual(p.received, ['first', 'second, from a microtask', 'third']);
    } finally {
      await p.close();
    }
  });
});
