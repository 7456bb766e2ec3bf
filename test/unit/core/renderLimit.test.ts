import * as assert from 'node:assert/strict';
import { hunkReview } from '../../../src/core/hunkReview';
import { longLinesOf, unrenderedChangeWarning, unrenderedLines, unrenderedWarning, type UnrenderedLine } from '../../../src/core/renderLimit';
import { MAX_CHANGE_FILES } from '../../../src/tools/language/workspaceChange';
import { ChatReview } from '../../../src/protocol/webview';

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

  describe('a change to several files (RenameSymbol, ApplyCodeAction)', () => {
    const proposal = (line: number, length = 20): UnrenderedLine => ({ side: 'proposal', line, length });

    it('names each file with long lines by path, side and line, leaves the others out, and none at all is no warning', () => {
      assert.equal(unrenderedChangeWarning([]), undefined);
      assert.equal(unrenderedChangeWarning([{ relative: 'a.ts', lines: [], limit: 10 }]), undefined);
      assert.equal(
        unrenderedChangeWarning([{ relative: 'src/a.ts', lines: [], limit: 10_000 }, { relative: 'src/b.ts', lines: [proposal(7, 12_345)], limit: 10_000 }]),
        'In src/b.ts, line 7 of the proposal: this line is longer than the editor draws of a line (its first 10,000 characters, editor.stopRenderingLineAfter, unless it wraps lines; ' +
          'it has 12,345): the rest of it may not be shown in the diff, and Accept writes it all the same.',
      );
      assert.match(
        unrenderedChangeWarning([{ relative: 'a.ts', lines: [proposal(3), proposal(4), { side: 'file', line: 2, length: 40 }], limit: 10 }, { relative: 'b.ts', lines: [{ side: 'file', line: 9, length: 11 }], limit: 10 }]) ?? '',
        /^In a\.ts, lines 3–4 of the proposal and line 2 of the file; in b\.ts, line 9 of the file: these lines are longer .*\(its first 10 characters, .*the longest has 40\).*writes or removes it all the same\.$/,
      );
    });

    it('says so when files draw different lengths of a line (the setting is per language)', () => {
      assert.match(unrenderedChangeWarning([{ relative: 'a.ts', lines: [proposal(1, 300)], limit: 200 }, { relative: 'b.md', lines: [proposal(1, 600)], limit: 500 }]) ?? '', /\(its first 200 to 500 characters, by file, /);
    });

    it('stays short enough for a notification and the chat card, however many files and lines and however long their paths', () => {
      const lines = Array.from({ length: 5000 }, (_, i) => [proposal(1_000_000 + i * 2), { side: 'file' as const, line: 1_000_000 + i * 2, length: 20 }]).flat();
      const files = Array.from({ length: MAX_CHANGE_FILES }, (_, i) => ({ relative: `${'deep/'.repeat(200)}file${i}.ts`, lines, limit: 10 }));
      const warning = unrenderedChangeWarning(files) ?? '';
      assert.match(warning, /^In …(\/deep)+\/file0\.ts, lines 1000000, 1000002, 1000004, and more up to line 1009998 of the proposal and lines .*; and in 47 more files: these lines are/);
      assert.ok(warning.length < 1000, `${warning.length} characters`);
      const card = { recordId: 'r', reviewId: 'v', path: 'p', newFile: false, open: true, hunks: [], moreHunks: 0, warning };
      assert.equal(ChatReview.safeParse(card).success, true, 'the chat card refuses the warning');
    });
  });
});
