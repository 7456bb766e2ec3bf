import * as assert from 'node:assert/strict';
import { DisposableStore, Emitter, Relay, type Disposable } from '../../../src/base/events';

describe('base events', () => {
  it('fires to every listener in the order they subscribed, until each disposes', () => {
    const emitter = new Emitter<number>();
    const seen: string[] = [];
    const a = emitter.event((n) => seen.push(`a${n}`));
    emitter.event((n) => seen.push(`b${n}`));
    emitter.fire(1);
    a.dispose();
    emitter.fire(2);
    assert.deepEqual(seen, ['a1', 'b1', 'b2']);
    assert.equal(emitter.hasListeners, true);
    emitter.dispose();
    emitter.fire(3);
    assert.deepEqual(seen, ['a1', 'b1', 'b2']);
    assert.equal(emitter.hasListeners, false);
  });

  it('a throwing listener goes to the error handler; the others still hear the event and fire returns', () => {
    const errors: unknown[] = [];
    const emitter = new Emitter<string>((e) => errors.push(e));
    const seen: string[] = [];
    emitter.event(() => {
      throw new Error('listener bug');
    });
    emitter.event((s) => seen.push(s));
    emitter.fire('x');
    assert.deepEqual(seen, ['x']);
    assert.equal((errors[0] as Error).message, 'listener bug');
  });

  it('without an error handler, a listener\'s error is thrown later, not into the code that fired', async () => {
    const emitter = new Emitter<void>();
    emitter.event(() => {
      throw new Error('later');
    });
    const uncaught = new Promise<Error>((resolve) => {
      const listeners = process.listeners('uncaughtException');
      process.removeAllListeners('uncaughtException');
      process.once('uncaughtException', (e) => {
        for (const l of listeners) process.on('uncaughtException', l);
        resolve(e);
      });
    });
    assert.doesNotThrow(() => emitter.fire());
    assert.equal((await uncaught).message, 'later');
  });

  it('a relay forwards its current source to listeners that subscribed before it was set, and stops with the old one when swapped', () => {
    const relay = new Relay<string>();
    const first = new Emitter<string>();
    const second = new Emitter<string>();
    const seen: string[] = [];
    relay.event((s) => seen.push(s));
    first.fire('before any input');
    relay.input = first.event;
    first.fire('first 1');
    relay.input = second.event;
    first.fire('first 2, not forwarded');
    second.fire('second 1');
    relay.fire('own');
    relay.input = undefined;
    second.fire('second 2, not forwarded');
    assert.deepEqual(seen, ['first 1', 'second 1', 'own']);
    assert.equal(first.hasListeners, false, 'the relay let go of the old source');
    relay.input = second.event;
    relay.dispose();
    assert.equal(second.hasListeners, false, 'dispose lets go of the source');
    second.fire('after dispose');
    assert.deepEqual(seen, ['first 1', 'second 1', 'own']);
  });

  it('a store disposes its items once, newest first, and disposes at once what is added after', () => {
    const order: string[] = [];
    const item = (name: string): Disposable => ({ dispose: () => order.push(name) });
    const store = new DisposableStore();
    store.add(item('first'));
    store.add(item('second'));
    store.dispose();
    store.dispose();
    store.add(item('late'));
    assert.deepEqual(order, ['second', 'first', 'late']);
  });
});
