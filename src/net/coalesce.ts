/**
 * Write coalescing for a WebSocket's underlying stream.
 *
 * `ws` writes every frame with its own system call. When many answers are produced in one turn of
 * the event loop (a burst of requests read from one TCP segment, each answered by a quick tool),
 * those calls dominate: the profile of 64 calls in flight showed `writev` at 47 % of the time.
 * Corking the socket at the first frame of a turn and uncorking it once the turn's promise
 * callbacks have run sends them together, without delaying a lone frame past its own turn.
 *
 * Kept to Node's `Writable` cork/uncork so that it needs no Node import (the webview bundles this
 * directory's other modules).
 */
export interface Corkable {
  cork(): void;
  uncork(): void;
}

const corkers = new WeakMap<object, () => void>();

/** From now on, frames sent on `ws` in one turn leave together through `stream`, its socket. */
export function coalesceWrites(ws: object, stream: Corkable): void {
  let corked = false;
  const flush = (): void => {
    corked = false;
    stream.uncork();
  };
  corkers.set(ws, () => {
    if (corked) return;
    corked = true;
    stream.cork();
    // A tick queued from a promise callback runs after the whole microtask queue has drained, so
    // every answer the turn produces is in the buffer when it fires.
    process.nextTick(flush);
  });
}

/** Call before `ws.send`: holds the frame until the end of this turn (no-op for an unregistered socket). */
export function holdForTurn(ws: object): void {
  corkers.get(ws)?.();
}
