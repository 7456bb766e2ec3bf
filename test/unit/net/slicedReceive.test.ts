import { strict as assert } from 'node:assert';
import type { AddressInfo, Socket } from 'node:net';
import { WebSocket, WebSocketServer } from 'ws';
import { coalesceWrites, holdForTurn } from '../../../src/net/coalesce';
import { FIRST_SLICE_MESSAGES, MAX_MESSAGES_PER_TURN, MAX_MS_PER_TURN, nextSlice, receiveSliced } from '../../../src/net/slicedReceive';

interface Receiver {
  handled: string[];
  /** How many messages had been handled when each turn boundary (a setImmediate queued at the first message) ran. */
  handledAtFirstBoundary: number | undefined;
  closedAfter: number | undefined;
  pausedSeen: boolean;
}

/** A real ws pair on loopback; the server's burst leaves in one write (coalesced), the client receives sliced. */
async function pair(onHandled: (data: string) => void = () => {}): Promise<{ sender: WebSocket; receiver: Receiver; client: WebSocket; close: () => Promise<void> }> {
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
      onHandled(String(data));
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

  it('lets a timer due during the first slice run before the second: the next slice waits for a turn after the due timers', async () => {
    let handledWhenTimerRan: number | undefined;
    let handled = 0;
    const p = await pair(() => {
      if (handled++ > 0) return;
      // The first message sets a timer and takes 2 ms, so the timer is due when the first slice ends.
      setTimeout(() => (handledWhenTimerRan = handled), 1);
      const end = performance.now() + 2;
      while (performance.now() < end);
    });
    try {
      sendBurst(p.sender, 500);
      await until(() => p.receiver.handled.length === 500);
      assert.ok(handledWhenTimerRan !== undefined && handledWhenTimerRan <= FIRST_SLICE_MESSAGES, `the timer ran after ${handledWhenTimerRan} messages`);
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

  it('counts what the handled messages set off in promise jobs: a turn admits only what fits the budget, continuations included', async () => {
    // Each message's continuation (as a tool call's is) busies the loop 1 ms after the slice that
    // handled it. Event-loop iterations are told apart by a setImmediate ticker.
    const CONTINUATION_MS = 1;
    let iteration = 0;
    let ticking = true;
    const tick = (): void => {
      iteration++;
      if (ticking) setImmediate(tick);
    };
    tick();
    const continuationsPerIteration = new Map<number, number>();
    const p = await pair(() => {
      void Promise.resolve().then(() => {
        const until = performance.now() + CONTINUATION_MS;
        while (performance.now() < until);
        continuationsPerIteration.set(iteration, (continuationsPerIteration.get(iteration) ?? 0) + 1);
      });
    });
    try {
      sendBurst(p.sender, 300);
      await until(() => p.receiver.handled.length === 300);
      await new Promise((r) => setImmediate(r));
      assert.deepEqual(p.receiver.handled, inOrder(300));
      const most = Math.max(...continuationsPerIteration.values());
      // The budget is MAX_MS_PER_TURN ms a turn; at most two turns share an iteration (one in the
      // poll phase, one in the check phase), and a slice's size comes from the turn before it.
      assert.ok(most <= (2 * MAX_MS_PER_TURN) / CONTINUATION_MS, `${most} continuations of ${CONTINUATION_MS} ms ran in one event-loop iteration (budget ${MAX_MS_PER_TURN} ms a turn)`);
    } finally {
      ticking = false;
      await p.close();
    }
  });

  it('sizes the next slice from the last turn: what fits the budget at its cost per message, doubling while turns stay well under it', () => {
    assert.equal(nextSlice(64, 64, 64), MAX_MS_PER_TURN, '1 ms a message: as many as the budget has ms');
    assert.equal(nextSlice(8, 8, 1), 16, 'a full, quick turn doubles the slice');
    assert.equal(nextSlice(8, 3, 0.5), 8, 'a turn that did not fill its slice does not grow it');
    assert.equal(nextSlice(MAX_MESSAGES_PER_TURN, MAX_MESSAGES_PER_TURN, 0.1), MAX_MESSAGES_PER_TURN, 'never past the cap');
    assert.equal(nextSlice(8, 1, 500), 1, 'one message over the budget: still one a turn, so the queue moves');
  });
});
