import * as assert from 'node:assert/strict';
import { MAX_SESSION_GROUPS, MAX_UPDATE_BYTES, oversizedUpdate, overfullState, UPDATE_BURST, UPDATES_PER_SECOND, UpdateAllowance } from '../../../src/backend/updateLimits';
import { ClientToolState } from '../../../src/backend/toolState';

describe('backend: limits on updateToolGroups', () => {
  it('allows a burst, then refills at a steady rate (a fake clock)', () => {
    let now = 1_000;
    const allowance = new UpdateAllowance(() => now);
    for (let i = 0; i < UPDATE_BURST; i++) assert.ok(allowance.take(), `update ${i} of the burst`);
    assert.equal(allowance.take(), false);
    now += 1000;
    let refilled = 0;
    while (allowance.take()) refilled++;
    assert.equal(refilled, UPDATES_PER_SECOND);
    now += 3_600_000;
    let afterAnHour = 0;
    while (allowance.take()) afterAnHour++;
    assert.equal(afterAnHour, UPDATE_BURST, 'the allowance never grows past the burst');
  });

  it('names the size of an oversized augmentation and the limit; a normal one passes', () => {
    assert.equal(oversizedUpdate({ addContext: [{ name: 'a', text: 'b' }] }), undefined);
    const big = { addContext: Array.from({ length: 6 }, (_, i) => ({ name: `c${i}`, text: 'x'.repeat(200_000) })) };
    assert.match(oversizedUpdate(big) ?? '', new RegExp(`limit is ${MAX_UPDATE_BYTES}`));
  });

  it('refuses a state with more groups than the session may hold', () => {
    const options = { collapsing: true, instructions: '' };
    const group = (name: string) => ({ name, description: '', tools: [] });
    const fits = new ClientToolState(options, Array.from({ length: MAX_SESSION_GROUPS }, (_, i) => group(`g${i}`)));
    assert.equal(overfullState(fits), undefined);
    const over = new ClientToolState(options, Array.from({ length: MAX_SESSION_GROUPS + 1 }, (_, i) => group(`g${i}`)));
    assert.match(overfullState(over) ?? '', /257 tool groups/);
  });
});
