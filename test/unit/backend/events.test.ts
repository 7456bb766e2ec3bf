import * as assert from 'node:assert/strict';
import { BackendEventEmitter, type EventName } from '../../../src/backend/events';

describe('backend events (backend.on)', () => {
  it('calls a listener with the event\'s arguments until it is removed', () => {
    const emitter = new BackendEventEmitter(() => assert.fail('no listener throws'));
    const seen: unknown[][] = [];
    const off = emitter.on('toolGroupState', (state, sessionId) => seen.push([state.type, sessionId]));
    emitter.on('session', (info) => seen.push([info.sessionId, info.resumed]));
    emitter.emit('toolGroupState', { type: 'toolGroupState', collapsing: true, groups: [] }, 's1');
    emitter.emit('session', { sessionId: 's2', resumed: true });
    off();
    emitter.emit('toolGroupState', { type: 'toolGroupState', collapsing: true, groups: [] }, 's3');
    assert.deepEqual(seen, [['toolGroupState', 's1'], ['s2', true]]);
  });

  it('reports a throwing listener with the event\'s name; the other listeners still hear it', () => {
    const errors: [EventName, unknown][] = [];
    const emitter = new BackendEventEmitter((event, error) => errors.push([event, error]));
    const seen: string[] = [];
    emitter.on('disconnect', () => {
      throw new Error('embedder bug');
    });
    emitter.on('disconnect', (info) => seen.push(info.sessionId));
    assert.doesNotThrow(() => emitter.emit('disconnect', { sessionId: 's1' }));
    assert.deepEqual(seen, ['s1']);
    assert.equal(errors[0][0], 'disconnect');
    assert.equal((errors[0][1] as Error).message, 'embedder bug');
  });

  it('an event nobody listens to is a no-op', () => {
    const emitter = new BackendEventEmitter(() => assert.fail('nothing to throw'));
    assert.doesNotThrow(() => emitter.emit('sessionEnded', { sessionId: 's', reason: 'gone' }));
  });
});
