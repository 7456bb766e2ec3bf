/**
 * Incoming messages handled in slices of the event loop.
 *
 * `ws` emits every message of what one socket read brought in the same turn, and a socket read in
 * a busy turn brings megabytes: a burst of 10,000 small requests was handled in one stretch, and in
 * the extension host (which every extension shares) nothing else ran meanwhile. Here a turn handles
 * at most a slice of messages, or stops after MAX_MS_PER_TURN; the rest wait, in order, for the
 * next turns (after the due timers and I/O). What a handled message sets off in
 * promise jobs (a tool call's continuations, its answer encoded and sent) runs after the slice and
 * before the next turn, so the slice's clock does not see it: each turn is therefore measured from
 * its start to the next macrotask, and the next slice admits as many messages as fit the budget at
 * the cost per message that turn showed (from 1 up to MAX_MESSAGES_PER_TURN; it starts small and
 * doubles while turns stay well under the budget). While more than PAUSE_MESSAGES messages or
 * PAUSE_BYTES bytes wait, the socket is paused, so the kernel and the peer hold the rest (TCP flow
 * control) rather than this process's memory. The socket's `close` reaches `onClose` after every
 * message that came before it, as it did without slicing.
 *
 * Node only, shared like coalesce.ts.
 */
import type WebSocket from 'ws';

export const MAX_MESSAGES_PER_TURN = 64;
export const MAX_MS_PER_TURN = 8;
/** The first slice's size, before a turn showed what a message costs. */
export const FIRST_SLICE_MESSAGES = 8;
const PAUSE_MESSAGES = 256;
const PAUSE_BYTES = 8 * 1024 * 1024;

type Handler = (data: WebSocket.RawData, isBinary: boolean) => void;
type CloseHandler = (code: number, reason: Buffer) => void;

/** Calls `handle` for each message `ws` receives, in order, a slice of them per event-loop turn; then `onClose`. */
export function receiveSliced(ws: WebSocket, handle: Handler, onClose: CloseHandler): void {
  const waiting: { data: WebSocket.RawData; isBinary: boolean; bytes: number }[] = [];
  let waitingBytes = 0;
  let handledThisTurn = 0;
  /** Messages the current turn may handle: what the last measured turn's cost per message lets fit in the budget. */
  let slice = FIRST_SLICE_MESSAGES;
  let turnStartedAt = 0;
  let turnEndScheduled = false;
  let drainScheduled = false;
  let paused = false;
  let closed: { code: number; reason: Buffer } | undefined;

  const startTurn = (): void => {
    if (turnEndScheduled) return;
    turnEndScheduled = true;
    handledThisTurn = 0;
    turnStartedAt = performance.now();
    setImmediate(endTurn);
  };
  // Runs at the next macrotask: after the slice and every promise job its messages set off.
  const endTurn = (): void => {
    turnEndScheduled = false;
    if (handledThisTurn > 0) slice = nextSlice(slice, handledThisTurn, performance.now() - turnStartedAt);
  };
  const turnHasRoom = (): boolean => handledThisTurn < slice && performance.now() - turnStartedAt < MAX_MS_PER_TURN;
  const run = (data: WebSocket.RawData, isBinary: boolean): void => {
    handledThisTurn++;
    handle(data, isBinary);
  };
  const drain = (): void => {
    drainScheduled = false;
    startTurn();
    while (waiting.length > 0 && turnHasRoom()) {
      const next = waiting.shift()!;
      waitingBytes -= next.bytes;
      run(next.data, next.isBinary);
    }
    if (waiting.length > 0) scheduleDrain(true);
    else if (closed) onClose(closed.code, closed.reason);
    else if (paused && ws.readyState === ws.OPEN) {
      paused = false;
      ws.resume();
    }
  };
  // An immediate queued from the socket's message event (an I/O callback) runs in the same loop
  // iteration, before the due timers: there it takes two in a row to reach the next turn (as
  // src/base/nextTurn.ts); queued from a drain (an immediate), one does.
  const scheduleDrain = (fromImmediate: boolean): void => {
    if (drainScheduled) return;
    drainScheduled = true;
    if (fromImmediate) setImmediate(drain);
    else setImmediate(() => setImmediate(drain));
  };

  ws.on('message', (data, isBinary) => {
    startTurn();
    if (waiting.length === 0 && turnHasRoom()) {
      run(data, isBinary);
      return;
    }
    const bytes = byteLength(data);
    waiting.push({ data, isBinary, bytes });
    waitingBytes += bytes;
    if (!paused && (waiting.length > PAUSE_MESSAGES || waitingBytes > PAUSE_BYTES) && ws.readyState === ws.OPEN) {
      paused = true;
      ws.pause();
    }
    scheduleDrain(false);
  });
  ws.on('close', (code, reason) => {
    if (waiting.length === 0) onClose(code, reason);
    else closed = { code, reason };
  });
}

/**
 * The next slice's size from a turn that handled `handled` messages in `turnMs`, continuations
 * included: as many as fit the budget at that cost, doubling at most while turns stay well under it.
 */
export function nextSlice(current: number, handled: number, turnMs: number): number {
  const fit = Math.floor((MAX_MS_PER_TURN * handled) / Math.max(turnMs, 0.001));
  // A turn that did not fill its slice says little about a fuller one: grow only from full turns.
  const grown = handled >= current && turnMs < MAX_MS_PER_TURN / 2 ? current * 2 : current;
  return Math.max(1, Math.min(MAX_MESSAGES_PER_TURN, grown, fit));
}

function byteLength(data: WebSocket.RawData): number {
  if (Array.isArray(data)) return data.reduce((n, b) => n + b.byteLength, 0);
  return data.byteLength;
}
