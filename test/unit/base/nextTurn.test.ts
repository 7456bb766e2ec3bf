import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import { nextTurn } from '../../../src/base/nextTurn';

/** Waits until `ms` have passed, holding the event loop. */
function hold(ms: number): void {
  const end = performance.now() + ms;
  while (performance.now() < end);
}

/** In an I/O callback (the loop's poll phase): a timer due by the time `wait` is called; the order in which the two ran. */
function fromIoCallback(wait: () => Promise<void>): Promise<string[]> {
  return new Promise((resolve) => {
    fs.stat(__filename, () => {
      const order: string[] = [];
      setTimeout(() => order.push('timer'), 1);
      hold(5);
      void wait().then(() => {
        order.push('next turn');
        setTimeout(() => resolve(order), 5);
      });
    });
  });
}

describe('nextTurn (base/nextTurn)', () => {
  it('resolves after the timers due when it was called from an I/O callback, where one setImmediate runs first', async () => {
    assert.deepEqual(await fromIoCallback(() => new Promise((r) => setImmediate(r))), ['next turn', 'timer'], 'the premise: one setImmediate from the poll phase runs before a due timer');
    assert.deepEqual(await fromIoCallback(nextTurn), ['timer', 'next turn']);
  });

  it('resolves after the timers due when it was called from an immediate', async () => {
    const order: string[] = [];
    await new Promise<void>((resolve) =>
      setImmediate(() => {
        setTimeout(() => order.push('timer'), 1);
        hold(5);
        void nextTurn().then(() => {
          order.push('next turn');
          resolve();
        });
      }),
    );
    assert.deepEqual(order, ['timer', 'next turn']);
  });
});
