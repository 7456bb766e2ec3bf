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

/** Work on one source's items between turns of the event loop (`paced`). */
export const PACE_SLICE_MS = 8;

/**
 * `source`'s items as they come, with a turn of the event loop (`nextTurn`) once `sliceMs` has
 * passed since the last. A stream read from a peer (a model endpoint's events) can hold thousands
 * of items in one network read, which its reader hands on in microtasks without yielding: the work
 * done on them, ours included (this measures from the consumer's side too), would hold the loop.
 */
export async function* paced<T>(source: AsyncIterable<T>, sliceMs = PACE_SLICE_MS): AsyncGenerator<T, void, undefined> {
  let turned = performance.now();
  for await (const item of source) {
    if (performance.now() - turned >= sliceMs) {
      await nextTurn();
      turned = performance.now();
    }
    yield item;
  }
}
