/**
 * Write coalescing for a WebSocket's underlying stream: the first frame of an event-loop turn corks
 * the socket and the end of the turn uncorks it, so a burst of answers (many quick calls read from
 * one TCP segment) leaves in one system call instead of one each, while a lone frame is not delayed
 * past its own turn. Node only (`process.nextTick`); shared by the extension's connection and the
 * backend's server, so it lives outside both, and outside src/protocol/, which the webview bundles.
 */
export interface Corkable {
  cork(): void;
  uncork(): void;
}

const corkers = new WeakMap<object, () => void>();

/**
 * From now on, frames sent on `ws` in one turn leave together through `stream`, its socket.
 *
 * Corked bytes count in `ws`'s `bufferedAmount` until the turn ends, so the limits that read it (the
 * connection's maximum buffered bytes, the dispatcher's backlog) see at most one socket send buffer
 * more, within the turn. A frame sent in the same turn as `terminate()` is lost with the socket;
 * both ends terminate only a peer they are giving up on (the extension keeps its unsent answers for
 * the resume), and `close()` sends its close frame after the turn's frames, in order.
 */
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
