/**
 * Liveness of one connection. Every `intervalMs` the server pings with a fresh random payload; only
 * a pong that echoes the payload of our latest ping counts. A client may send pongs whenever it
 * likes (RFC 6455 allows unsolicited ones), so counting any pong let a client that never reads
 * (and so never sees our pings) stay "alive" for ever by sending them on a timer. Two intervals
 * without a matching pong and `onDead` runs.
 */
import { randomBytes } from 'node:crypto';
import type { WebSocket } from 'ws';

/** Starts the heartbeat; the returned function stops it. */
export function startHeartbeat(ws: WebSocket, intervalMs: number, onDead: () => void): () => void {
  let expected: Buffer | undefined;
  let answered = true;
  let missed = 0;
  const onPong = (data: Buffer) => {
    if (expected === undefined || !data.equals(expected)) return;
    answered = true;
    missed = 0;
  };
  ws.on('pong', onPong);
  const timer = setInterval(() => {
    if (!answered && ++missed >= 2) {
      stop();
      onDead();
      return;
    }
    answered = false;
    expected = randomBytes(16);
    ws.ping(expected);
  }, intervalMs);
  timer.unref();
  const stop = () => {
    clearInterval(timer);
    ws.off('pong', onPong);
  };
  return stop;
}
