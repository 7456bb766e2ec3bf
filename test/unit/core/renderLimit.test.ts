import * as assert from 'node:assert/strict';
import { hunkReview } from '../../../src/core/hunkReview';
import { longLinesOf, unrenderedLines, unrenderedWarning } from '../../../src/core/renderLimit';

describe('lines longer than the editor draws (render limit)', () => {
  it('finds the changed lines of either side past the limit, not unchanged ones, and none without a limit', () => {
    const review = hunkReview(`keep ${'k'.repeat(20)}\nold ${'o'.repeat(20)}\nsame\n`, `keep ${'k'.repeat(20)}\nnew ${'n'.repeat(30)}\nsame\n`);
    assert.deepEqual(unrenderedLines(review, 20), [{ side: 'proposal', line: 2, length: 34 }, { side: 'file', line: 2, length: 24 }]);
    assert.deepEqual(unrenderedLines(review, 40), []);
    assert.deepEqual(unrenderedLines(review, undefined), []);
  });

  it('a line exactly at the limit is drawn whole; its line ending does not count', () => {
    assert.deepEqual(longLinesOf('a'.repeat(10), 10), []);
    assert.deepEqual(longLinesOf(`${'a'.repeat(10)}\r\n${'b'.repeat(11)}\r\n${'c'.repeat(12)}`, 10), [{ side: 'proposal', line: 2, length: 11 }, { side: 'proposal', line: 3, length: 12 }]);
    assert.deepEqual(longLinesOf('x'.repeat(99), undefined), []);
  });

  it('names every line by number, ranges joined, and says what Accept does', () => {
    assert.equal(unrenderedWarning([], 10), undefined);
    assert.equal(
      unrenderedWarning([{ side: 'proposal', line: 7, length: 12_345 }], 10_000),
      'Line 7 of the proposal is longer than the editor draws of a line (its first 10,000 characters, editor.stopRenderingLineAfter, unless it wraps lines; ' +
        'it has 12,345): the rest of it may not be shown in the diff, and Accept writes it all the same.',
    );
    const lines = [3, 4, 5, 9].map((line) => ({ side: 'proposal' as const, line, length: 20 }));
    assert.match(unrenderedWarning([...lines, { side: 'file', line: 2, length: 40 }], 10) ?? '', /^Lines 3–5, 9 of the proposal and line 2 of the file are longer .*the longest has 40\).*writes or removes it all the same\.$/);
    assert.match(unrenderedWarning([{ side: 'file', line: 2, length: 40 }], 10) ?? '', /Accept removes it all the same\.$/);
  });

  it('keeps the warning short for a notification: past 12 ranges it counts up to the last line', () => {
    const many = Array.from({ length: 500 }, (_, i) => ({ side: 'proposal' as const, line: i * 2 + 1, length: 20 }));
    const warning = unrenderedWarning(many, 10) ?? '';
    assert.match(warning, /^Lines 1, 3, 5, .*, 23, and more up to line 999 of the proposal are longer/);
    assert.ok(warning.length < 400, `${warning.length} characters`);
  });
});
