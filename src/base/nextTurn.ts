/**
 * A promise that resolves in a later turn of the event loop, after the timers and I/O callbacks
 * that are due: what code that works in slices awaits between them, so other work (in the extension
 * host, every other extension's) runs in between. One `setImmediate` is not enough: queued from an
 * I/O callback (the poll phase), it runs in the check phase of the same loop iteration, before any
 * due timer; queued from an immediate, it runs in the next iteration, after them. Two in a row give
 * a turn whatever phase they are queued from.
 */
export function nextTurn(): Promise<void> {
  return new Promise((resolve) => setImmediate(() => setImmediate(resolve)));
}
