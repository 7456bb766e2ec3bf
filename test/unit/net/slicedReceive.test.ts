import { strict as assert } from 'node:assert';
import type { AddressInfo, Socket } from 'node:net';
import { WebSocket, WebSocketServer } from 'ws';
import { coalesceWrites, holdForTurn } from '../../../src/net/coalesce';
import { MAX_MESSAGES_PER_TURN, receiveSliced } from '../../../src/net/slicedReceive';

interface Receiver {
  handled: string[];
  /** How many messages had been handled when each turn boundary (a setImmediate queued at the first message) ran. */
  handledAtFirstBoundary: number | undefined;
  closedAfter: number | undefined;
  pausedSeen: boolean;
}

/** A real ws pair on loopback; the server's burst leaves in one write (coalesced), the client receives sliced. */
async function pair(): Promise<{ sender: WebSocket; receiver: Receiver; client: WebSocket; close: () => Promise<void> }> {
  const wss = new WebSocketServer({ host: '127.0.0.1', port: 0, perMessageDeflate: false });
  await new Promise<void>((resolve) => wss.once('listening', () => resolve()));
  const accepted = new Promise<{ ws: WebSocket; socket: Socket }>((resolve) => wss.once('connection', (ws, req) => resolve({ ws, socket: req.socket })));
  const client = new WebSocket(`ws://127.0.0.1:${(wss.address() as AddressInfo).port}`, { perMessageDeflate: false });
  const receiver: Receiver = { handled: [], handledAtFirstBoundary: undefined, closedAfter: undefined, pausedSeen: false };
  receiveSliced(
    client,
    (data) => {
      if (receiver.handled.length === 0) setImmediate(() => (receiver.handledAtFirstBoundary = receiver.handled.length));
      receiver.pausedSeen ||= client.isPaused;
      receiver.handled.push(String(data));
    },
    () => (receiver.closedAfter = receiver.handled.length),
  );
  await new Promise<void>((resolve, reject) => client.once('open', () => resolve()).once('error', reject));
  const { ws, socket } = await accepted;
  coalesceWrites(ws, socket);
  return {
    sender: ws,
    receiver,
    client,
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
  for (let i = 0; i < 1000 && !check(); i++) await new Promise((r) => setTimeout(r, 5));
  assert.ok(check(), 'timed out');
}

const inOrder = (n: number) => Array.from({ length: n }, (_, i) => `message ${i}`);

describe('sliced receiving', () => {
  it('a burst read at once is handled over several event-loop turns, at most a slice per turn, in order', async () => {
    const p = await pair();
    try {
      sendBurst(p.sender, 2000);
      await until(() => p.receiver.handled.length === 2000);
      assert.deepEqual(p.receiver.handled, inOrder(2000));
      const atBoundary = p.receiver.handledAtFirstBoundary;
      assert.ok(atBoundary !== undefined && atBoundary <= MAX_MESSAGES_PER_TURN, `the next turn ran after ${atBoundary} messages`);
    } finally {
      await p.close();
    }
  });

  it('pauses the socket while many messages wait, and reads again once they are handled', async () => {
    const p = await pair();
    try {
      sendBurst(p.sender, 2000);
      await until(() => p.receiver.handled.length === 2000);
      assert.equal(p.receiver.pausedSeen, true, 'paused while the burst waited');
      assert.equal(p.client.isPaused, false, 'resumed');
      sendBurst(p.sender, 3);
      await until(() => p.receiver.handled.length === 2003);
    } finally {
      await p.close();
    }
  });

  it('reports the close after every message that came before it', async () => {
    const p = await pair();
    try {
      sendBurst(p.sender, 1000);
      p.sender.close(1000, 'done');
      await until(() => p.receiver.closedAfter !== undefined);
      assert.equal(p.receiver.closedAfter, 1000);
      assert.deepEqual(p.receiver.handled, inOrder(1000));
    } finally {
      await p.close();
    }
  });
});
