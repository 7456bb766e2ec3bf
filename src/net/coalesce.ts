/**
 * Write coalescing for a WebSocket's underlying stream.
 *
 * `ws` writes every frame with its own system call. When many answers are produced in one turn of
 * the event loop (a burst of requests read from one TCP segment, each answered by a quick tool),
 * those calls dominate: the profile of 64 calls in flight showed `writev` at 47 % of the time.
 * Corking the socket at the first frame of a turn and uncorking it once the turn's promise
 * callbacks have run sends them together, without delaying a lone frame past its own turn.
 *
 * Node only (it uses `process.nextTick`); shared by the extension's connection (`src/core/`) and the
 * backend's server (`src/backend/`), so it lives outside both, and outside `src/protocol/`, which the
 * browser webview bundles.
 *
 * Corked bytes count in `ws`'s `bufferedAmount` like any other unsent bytes, until the turn ends.
 * Without corking the kernel would have taken some of them at once, so the limits that read it (the
 * connection's maximum buffered bytes, the dispatcher's backlog; megabytes, both covered by the
 * T-FLOOD tests) see at most one socket send buffer more, and only within the turn.
 *
 * A frame sent in the same turn as `terminate()` is lost with the socket, where without corking it
 * would have reached the kernel. Both ends terminate only a peer they are giving up on (missed
 * heartbeats, a peer that stopped reading, a protocol violation); the extension's unsent answers
 * then fail their send callbacks and are kept for the resume, and a clean close (`close()`) sends
 * its close frame after the turn's frames, in order.
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
    // Uncork once the turn's promise callbacks have run. A tick queued from a microtask runs after
    // the whole microtask queue has drained, so every answer the turn produces is in the buffer.
    // (A tick queued directly would run before the promise callbacks when the first frame is sent
    // from a plain callback, such as the socket's 'message' handler, splitting the turn in two.)
    queueMicrotask(() => process.nextTick(flush));
  });
}

/** Call before `ws.send`: holds the frame until the end of this turn (no-op for an unregistered socket). */
export function holdForTurn(ws: object): void {
  corkers.get(ws)?.();
}
