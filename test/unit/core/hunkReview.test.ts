import * as assert from 'node:assert/strict';
import { cardHunks, headerOf, hunkReview, hunkReviewSliced, locateHunk, readReviewedText, readReviewedTextSliced, userEditsOf, withHunk } from '../../../src/core/hunkReview';
import { MAX_HUNK_PREVIEW } from '../../../src/protocol/webview';
import { diffLines, MAX_TABLE_CELLS, splitLines } from '../../../src/core/lineDiff';

const ORIGINAL = 'one\ntwo\nthree\nfour\nfive\nsix\nseven\n';
/** Two hunks: line 2 changed, a line added after line 6. */
const PROPOSAL = 'one\nTWO\nthree\nfour\nfive\nsix\nsix and a half\nseven\n';

describe('per-hunk review of a proposal (core/hunkReview)', () => {
  it('numbers the proposal\'s hunks against the file, with unified-diff headers', () => {
    const review = hunkReview(ORIGINAL, PROPOSAL);
    assert.equal(review.hunks.length, 2);
    assert.equal(headerOf(review, 0), '@@ -2 +2 @@');
    assert.equal(headerOf(review, 1), '@@ -6,0 +7 @@');
  });

  it('reads every hunk as kept in the proposal itself and as rejected in the original', () => {
    const review = hunkReview(ORIGINAL, PROPOSAL);
    assert.deepEqual(readReviewedText(review, PROPOSAL), { states: ['kept', 'kept'], editedByUser: false });
    assert.deepEqual(readReviewedText(review, ORIGINAL), { states: ['rejected', 'rejected'], editedByUser: false });
  });

  it('reads the proposal as it stands (an Accept without changes) without diffing the original again', () => {
    const review = hunkReview(ORIGINAL, PROPOSAL);
    const untouchable = new Proxy([...review.original], { get: (target, key) => (key === 'length' || typeof key === 'symbol' ? Reflect.get(target, key) : assert.fail(`the original was read (${String(key)})`)) });
    assert.deepEqual(readReviewedText({ ...review, original: untouchable }, PROPOSAL), { states: ['kept', 'kept'], editedByUser: false });
  });

  it('takes one hunk back and puts it back again, leaving the other as it was', () => {
    const review = hunkReview(ORIGINAL, PROPOSAL);
    const secondRejected = withHunk(review, PROPOSAL, 1, false);
    assert.equal(secondRejected, 'one\nTWO\nthree\nfour\nfive\nsix\nseven\n');
    assert.deepEqual(readReviewedText(review, secondRejected!), { states: ['kept', 'rejected'], editedByUser: false });
    const firstRejectedToo = withHunk(review, secondRejected!, 0, false);
    assert.equal(firstRejectedToo, ORIGINAL);
    assert.equal(withHunk(review, firstRejectedToo!, 1, true), 'one\ntwo\nthree\nfour\nfive\nsix\nsix and a half\nseven\n');
  });

  it('keeps the user\'s own typing elsewhere when a hunk is taken back, and reports it as their edit', () => {
    const review = hunkReview(ORIGINAL, PROPOSAL);
    const typed = PROPOSAL.replace('four\n', 'four (mine)\n');
    const next = withHunk(review, typed, 0, false);
    assert.equal(next, 'one\ntwo\nthree\nfour (mine)\nfive\nsix\nsix and a half\nseven\n');
    const read = readReviewedText(review, next!);
    assert.deepEqual(read, { states: ['rejected', 'kept'], editedByUser: true });
    assert.equal(userEditsOf(review, next!, read.states, 10_000), '@@ -4 +4 @@\n two\n three\n-four\n+four (mine)\n five\n six');
  });

  it('calls a hunk the user typed into "edited" and will not overwrite it', () => {
    const review = hunkReview(ORIGINAL, PROPOSAL);
    const typed = PROPOSAL.replace('TWO\n', 'Two, said the user\n');
    assert.deepEqual(readReviewedText(review, typed).states, ['edited', 'kept']);
    assert.equal(withHunk(review, typed, 0, false), undefined);
  });

  it('treats CRLF and LF alike and a missing final newline as a line', () => {
    assert.deepEqual(splitLines('a\r\nb'), ['a\n', 'b']);
    assert.deepEqual(diffLines(splitLines('a\r\nb\r\n'), splitLines('a\nb\n')), []);
  });

  it('aligns a middle too large for one table by its lines that occur once on each side, one hunk per change', () => {
    const side = Math.ceil(Math.sqrt(MAX_TABLE_CELLS)) + 1;
    const a = Array.from({ length: side }, (_, i) => `a${i}\n`);
    const b = Array.from({ length: side }, (_, i) => (i % 2 ? `a${i}\n` : `b${i}\n`));
    assert.equal(diffLines(a, b).length, Math.ceil(side / 2));
    assert.equal(diffLines(a.slice(0, 100), b.slice(0, 100)).length, 50);
  });

  it('works a review out in slices of the event loop, splitting the texts and comparing their common head as well, with the review worked out at once', async () => {
    // 60,000 equal lines and one added: splitting and the common head are all the work there is.
    const original = Array.from({ length: 60_000 }, (_, i) => `export const value${i} = compute(${i % 97}); // line ${i}\n`).join('');
    const proposal = `${original}export const added = 1;\n`;
    const turns = otherTurns();
    const sliced = await hunkReviewSliced(original, proposal, 0);
    const seen = turns.stop();
    assert.deepEqual(sliced, hunkReview(original, proposal));
    // One slice per 4,096 lines split (both texts) or compared: other work ran between them.
    assert.ok(seen >= 3 * Math.floor(60_000 / 4096), `other work ran ${seen} times`);
  });

  it('searches a large middle for its anchors in slices too, with the same hunks', async () => {
    // 140,000 lines changed every 50th: the middle is too large for a table, so it is cut at its unique lines.
    const lines = 140_000;
    const original = Array.from({ length: lines }, (_, i) => `l${i}\n`).join('');
    const proposal = Array.from({ length: lines }, (_, i) => (i % 50 === 7 ? `changed ${i}\n` : `l${i}\n`)).join('');
    const turns = otherTurns();
    const sliced = await hunkReviewSliced(original, proposal, 0);
    const seen = turns.stop();
    assert.deepEqual(sliced, hunkReview(original, proposal));
    assert.equal(sliced.hunks.length, lines / 50);
    // A slice per 4,096 lines split and numbered on each side, and per 4,096 anchors put in order.
    const anchors = lines - lines / 50;
    assert.ok(seen >= 4 * Math.floor(lines / 4096) + Math.floor(anchors / 4096), `other work ran ${seen} times`);
  });

  it('reads what the user left in slices of the event loop too, with the account read at once', async () => {
    const lines = Array.from({ length: 60_000 }, (_, i) => `export const value${i} = compute(${i % 97}); // line ${i}\n`);
    const original = lines.join('');
    const proposal = lines.map((line, i) => (i % 500 === 7 ? `export const value${i} = computeFast(); // changed ${i}\n` : line)).join('');
    const review = hunkReview(original, proposal);
    const proposed = splitLines(proposal);
    // As proposed; the first hunk taken back; the second typed over; the last line of the file changed too.
    const left = [
      proposal,
      [...lines.slice(0, 8), ...proposed.slice(8)].join(''),
      [...proposed.slice(0, 507), 'the user typed this\n', ...proposed.slice(508)].join(''),
      `${proposal}one more line\n`,
    ];
    for (const text of left) {
      const turns = otherTurns();
      const sliced = await readReviewedTextSliced(review, text, 0);
      const seen = turns.stop();
      assert.deepEqual(sliced, readReviewedText(review, text));
      assert.ok(seen >= 2 * Math.floor(60_000 / 4096), `other work ran ${seen} times`);
    }
    assert.deepEqual((await readReviewedTextSliced(review, left[1])).states.slice(0, 2), ['rejected', 'kept']);
    assert.deepEqual((await readReviewedTextSliced(review, left[2])).states.slice(0, 2), ['kept', 'edited']);
  });

  it('locateHunk: a hunk counted across the files of a multi-file review is found in its file', () => {
    assert.deepEqual(locateHunk([1, 3], 0), { file: 0, hunk: 0 });
    assert.deepEqual(locateHunk([1, 3], 1), { file: 1, hunk: 0 });
    assert.deepEqual(locateHunk([1, 3], 3), { file: 1, hunk: 2 });
    assert.deepEqual(locateHunk([0, 2], 1), { file: 1, hunk: 1 });
    assert.equal(locateHunk([1, 3], 4), undefined);
  });

  it('lists the hunks for the chat\'s card: named by the caller, in the state the text holds, each side clipped', () => {
    const review = hunkReview(ORIGINAL, PROPOSAL);
    const secondRejected = withHunk(review, PROPOSAL, 1, false)!;
    assert.deepEqual(cardHunks(review, secondRejected, (i) => `a.txt, hunk ${i + 1}`), [
      { header: 'a.txt, hunk 1', removed: 'two\n', added: 'TWO\n', state: 'kept' },
      { header: 'a.txt, hunk 2', removed: '', added: 'six and a half\n', state: 'rejected' },
    ]);
    const long = hunkReview('a\n', `${'x'.repeat(MAX_HUNK_PREVIEW + 10)}\n`);
    assert.equal(cardHunks(long, `${'x'.repeat(MAX_HUNK_PREVIEW + 10)}\n`, () => 'h')[0].added, `${'x'.repeat(MAX_HUNK_PREVIEW - 60)}\n… [showing the first 3,940 of 4,011 characters; the original is 4,011 bytes, 1 line]`);
    const tall = hunkReview('a\n', Array.from({ length: 300 }, (_, i) => `${i}\n`).join(''));
    assert.equal(cardHunks(tall, '', () => 'h')[0].added.split('\n').length - 1, 200, 'a side shows its first 200 lines');
  });
});

/** Counts the turns of the event loop other work gets (a setImmediate that queues itself again) until stopped. */
function otherTurns(): { stop(): number } {
  let count = 0;
  let counting = true;
  const tick = () => {
    if (!counting) return;
    count++;
    setImmediate(tick);
  };
  setImmediate(tick);
  return {
    stop() {
      counting = false;
      return count;
    },
  };
}
