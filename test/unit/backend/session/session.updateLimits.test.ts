import * as assert from 'node:assert/strict';
import { MAX_SESSION_GROUPS, MAX_UPDATE_BYTES, oversizedUpdate, overfullState, UPDATE_BURST, UPDATES_PER_SECOND, UpdateAllowance } from '../../../../src/backend/session/updateLimits';
import { ClientToolState, MAX_CONTEXT_ITEMS } from '../../../../src/backend/toolset/toolState';
import { isContextOnly, mergeContext } from '../../../../src/backend/run/queuedUpdates';

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
    assert.match(overfullState(over) ?? '', new RegExp(`${MAX_SESSION_GROUPS + 1} tool groups`));
  });
});

describe('backend: merging context-only updates a thread holds', () => {
  it('tells context-only updates from the rest', () => {
    assert.equal(isContextOnly({ addContext: [{ name: 'a', text: 'b' }] }), true);
    assert.equal(isContextOnly({ addContext: [{ name: 'a', text: 'b' }], hideTools: ['X'] }), false);
    assert.equal(isContextOnly({ expandGroups: ['G'] }), false);
    assert.equal(isContextOnly({}), false);
  });

  it('merges like applying both in order: first position, last text, at most MAX_CONTEXT_ITEMS', () => {
    const merged = mergeContext({ addContext: [{ name: 'a', text: '1' }, { name: 'b', text: '1' }] }, { addContext: [{ name: 'c', text: '2' }, { name: 'a', text: '2' }] });
    assert.deepEqual(merged, { addContext: [{ name: 'a', text: '2' }, { name: 'b', text: '1' }, { name: 'c', text: '2' }] });
    const many = { addContext: Array.from({ length: MAX_CONTEXT_ITEMS + 10 }, (_, i) => ({ name: `n${i}`, text: '' })) };
    const capped = mergeContext(many, { addContext: [] }).addContext ?? [];
    assert.equal(capped.length, MAX_CONTEXT_ITEMS);
    assert.equal(capped[0].name, 'n10');
  });
});
