import * as assert from 'node:assert/strict';
import { cutWithNote } from '../../../src/protocol/textCut';
import { alignLines, alignLinesSliced, diffLines, holdsLines, hunkHeader, LineNumbers, MAX_TABLE_CELLS, runAll, splitLines, toLf, unifiedDiff, type Hunk } from '../../../src/core/lineDiff';

describe('line endings as LF', () => {
  it('turns CRLF and a lone CR into LF, and leaves a text without CR as it is', () => {
    assert.equal(toLf('a\r\nb\rc\nd'), 'a\nb\nc\nd');
    assert.equal(toLf('\r\r\n\n'), '\n\n\n');
    assert.equal(toLf('plain\ntext\n'), 'plain\ntext\n');
    assert.equal(toLf(''), '');
  });

  it('keeps every other code unit as it was: Latin-1, wider characters, lone surrogates, a CR at the end', () => {
    assert.equal(toLf('caf\u00e9\r\u00ff\r\n'), 'caf\u00e9\n\u00ff\n');
    assert.equal(toLf('\u20ac\r\n\u{1F600}\r'), '\u20ac\n\u{1F600}\n');
    assert.equal(toLf('a\ud800\r\udc00b\r'), 'a\ud800\n\udc00b\n');
    assert.equal(toLf('\n\r\r\n\r'), '\n\n\n\n');
    const mixed = Array.from({ length: 3000 }, (_, i) => `line ${i}\u00e9${i % 7 ? '' : '\u4e00'}${['\r\n', '\r', '\n'][i % 3]}`).join('');
    assert.equal(toLf(mixed), mixed.replace(/\r\n?/g, '\n'));
  });

  it('tells whether a text is given lines joined, its line endings read as LF, without splitting it', () => {
    const lines = splitLines('a\nb\r\nc');
    assert.equal(runAll(holdsLines('a\nb\nc', lines)), true);
    assert.equal(runAll(holdsLines('a\rb\rc', lines)), true);
    assert.equal(runAll(holdsLines('a\nb\nc\n', lines)), false, 'longer');
    assert.equal(runAll(holdsLines('a\nb\n', lines)), false, 'shorter');
    assert.equal(runAll(holdsLines('a\nB\nc', lines)), false, 'a line differs');
    assert.equal(runAll(holdsLines('', [])), true);
    assert.equal(runAll(holdsLines('x', [])), false);
    const many = 'z\n'.repeat(10_000);
    assert.equal(runAll(holdsLines(many, splitLines(many))), true);
    assert.equal(runAll(holdsLines(`${many}z`, splitLines(many))), false);
  });

  it('splits lines of every ending alike', () => {
    assert.deepEqual(splitLines('a\r\nb\rc\nd'), ['a\n', 'b\n', 'c\n', 'd']);
    assert.deepEqual(splitLines('a\nb\n'), ['a\n', 'b\n']);
  });
});

/** The alignment as it was before lines were numbered by LineNumbers and large middles cut at unique lines: a Map of whole lines and one table. */
function tableDiff(a: readonly string[], b: readonly string[]): Hunk[] {
  let head = 0;
  while (head < a.length && head < b.length && a[head] === b[head]) head++;
  let tail = 0;
  while (tail < a.length - head && tail < b.length - head && a[a.length - 1 - tail] === b[b.length - 1 - tail]) tail++;
  const n = a.length - head - tail;
  const m = b.length - head - tail;
  if (n === 0 && m === 0) return [];
  if (n === 0 || m === 0) return [{ aStart: head, aEnd: head + n, bStart: head, bEnd: head + m }];
  const numbers = new Map<string, number>();
  const number = (line: string) => numbers.get(line) ?? (numbers.set(line, numbers.size), numbers.size - 1);
  const na = a.slice(head, head + n).map(number);
  const nb = b.slice(head, head + m).map(number);
  const lcs = Array.from({ length: n + 1 }, () => new Array<number>(m + 1).fill(0));
  for (let i = n - 1; i >= 0; i--) for (let j = m - 1; j >= 0; j--) lcs[i][j] = na[i] === nb[j] ? lcs[i + 1][j + 1] + 1 : Math.max(lcs[i + 1][j], lcs[i][j + 1]);
  const hunks: Hunk[] = [];
  let open: Hunk | undefined;
  let i = 0;
  let j = 0;
  while (i < n || j < m) {
    if (i < n && j < m && na[i] === nb[j]) {
      if (open) hunks.push(open);
      open = undefined;
      i++;
      j++;
      continue;
    }
    open ??= { aStart: head + i, aEnd: head + i, bStart: head + j, bEnd: head + j };
    if (j < m && (i === n || lcs[i][j + 1] >= lcs[i + 1][j])) open.bEnd = head + ++j;
    else open.aEnd = head + ++i;
  }
  if (open) hunks.push(open);
  return hunks;
}

/** A seeded generator, so that a failure names a corpus that can be run again. */
function random(seed: number): () => number {
  let s = seed >>> 0;
  return () => ((s = (Math.imul(s, 1664525) + 1013904223) >>> 0) / 2 ** 32);
}

describe('line diffs (core/lineDiff)', () => {
  it('numbers equal lines alike and different lines apart, also 4 KB lines that differ only where the key does not look', () => {
    const numbers = new LineNumbers();
    const long = (k: number) => `${'x'.repeat(2000)}${k}${'y'.repeat(2000)}\n`;
    // Twenty different lines with one key (length, ends, middle character), each seen twice, and short ones.
    const lines = [...Array.from({ length: 20 }, (_, k) => long(k + 10)), 'a\n', 'b\n', ...Array.from({ length: 20 }, (_, k) => long(k + 10)), 'a\n'];
    const got = lines.map((l) => numbers.of(JSON.parse(JSON.stringify(l)) as string));
    for (let x = 0; x < lines.length; x++) for (let y = 0; y < lines.length; y++) assert.equal(got[x] === got[y], lines[x] === lines[y], `lines ${x} and ${y}`);
    assert.equal(numbers.size, 22);
  });

  it('gives the same hunks as one table over whole lines on a corpus of texts whose middle fits the table', () => {
    const next = random(33);
    const prefix = 'p'.repeat(4096);
    const alphabets = [['a\n', 'b\n', 'c\n'], ['one\n', 'two\n', 'three\n', 'four\n', 'five\n', 'six\n'], [`${prefix}0\n`, `${prefix}1\n`, `${prefix}2\n`, '\n'], ['x', 'x\n', 'y\n']];
    for (let round = 0; round < 300; round++) {
      const alphabet = alphabets[round % alphabets.length];
      const pick = () => alphabet[Math.floor(next() * alphabet.length)];
      const a = Array.from({ length: Math.floor(next() * 60) }, pick);
      const b = a.flatMap((line) => (next() < 0.2 ? [] : next() < 0.2 ? [pick(), line] : next() < 0.1 ? [pick()] : [line]));
      assert.deepEqual(diffLines(a, b), tableDiff(a, b), `round ${round}`);
    }
    const prefixA = Array.from({ length: 1000 }, (_, i) => `${prefix}${i % 2}\n`);
    const prefixB = Array.from({ length: 1000 }, (_, i) => `${prefix}${(i + 1) % 3}\n`);
    assert.deepEqual(diffLines(prefixA, prefixB), tableDiff(prefixA, prefixB));
  });

  it('cuts a middle too large for one table at lines that occur once on each side: a 5 MB file changed every 50th line is one hunk per change', () => {
    const before = Array.from({ length: 60_000 }, (_, i) => `export const value${i} = compute(${i % 97}); // line ${i}\n`);
    const after = before.map((line, i) => (i % 50 === 7 ? `export const value${i} = computeFast(); // changed ${i}\n` : line));
    const { hunks, coarse } = alignLines(before, after);
    assert.equal(coarse, false);
    assert.equal(hunks.length, 1200);
    assert.ok(hunks.every((h, k) => h.aStart === 50 * k + 7 && h.aEnd === h.aStart + 1 && h.bStart === h.aStart && h.bEnd === h.aEnd));
  });

  it('aligns in slices when asked: the same hunks, and other work runs before the alignment of a 5 MB file is done', async () => {
    const before = Array.from({ length: 60_000 }, (_, i) => `export const value${i} = compute(${i % 97}); // line ${i}\n`);
    const after = before.map((line, i) => (i % 50 === 7 ? `export const value${i} = computeFast(); // changed ${i}\n` : line));
    let ranBetween = 0;
    const other = setInterval(() => ranBetween++, 0);
    const sliced = await alignLinesSliced(before, after);
    clearInterval(other);
    assert.deepEqual(sliced, alignLines(before, after));
    assert.ok(ranBetween > 0, 'a timer ran while the alignment was under way');
  });

  it('makes a large middle with no line that occurs once on each side one coarse hunk, so a diff\'s work stays bounded', () => {
    const side = Math.ceil(Math.sqrt(MAX_TABLE_CELLS)) + 1;
    const a = Array.from({ length: side }, (_, i) => `${i % 3}\n`);
    const b = Array.from({ length: side }, (_, i) => `${(i + 1) % 4}\n`);
    assert.deepEqual(alignLines(a, b), { hunks: [{ aStart: 0, aEnd: side, bStart: 0, bEnd: side }], coarse: true });
  });
});

/** unifiedDiff as it was before it counted, instead of building, the lines past its limit: every line built, joined, then cut. */
function unifiedDiffWhole(a: readonly string[], b: readonly string[], maxChars: number, context = 2): string {
  const strip = (line: string) => (line.endsWith('\n') ? line.slice(0, -1) : line);
  const out: string[] = [];
  for (const h of diffLines(a, b)) {
    out.push(hunkHeader(h));
    for (let i = Math.max(0, h.aStart - context); i < h.aStart; i++) out.push(` ${strip(a[i])}`);
    for (let i = h.aStart; i < h.aEnd; i++) out.push(`-${strip(a[i])}`);
    for (let i = h.bStart; i < h.bEnd; i++) out.push(`+${strip(b[i])}`);
    for (let i = h.aEnd; i < Math.min(a.length, h.aEnd + context); i++) out.push(` ${strip(a[i])}`);
  }
  return cutWithNote(out.join('\n'), maxChars);
}

describe('unified diff', () => {
  it('is the whole diff cut with a note naming its size, though it builds only what it shows', () => {
    const pairs: [string, string][] = [
      ['', ''],
      ['a\n', 'a\n'],
      ['', 'new\n'],
      ['one\ntwo\nthree\nfour\nfive\n', 'one\nTWO\nthree\nfour\nFIVE'],
      ['x\r'.repeat(5_000), 'y\r'.repeat(5_000)],
      [Array.from({ length: 3_000 }, (_, i) => `l\u00e9ne ${i} \u20ac \u{1F600}\n`).join(''), Array.from({ length: 3_000 }, (_, i) => (i % 5 ? `l\u00e9ne ${i} \u20ac \u{1F600}\n` : `chang\u00e9 ${i} \ud800\n`)).join('')],
      ['a\n'.repeat(100), `${'a\n'.repeat(50)}\u{1F600}`.repeat(3)],
    ];
    for (const [before, after] of pairs) {
      const [a, b] = [splitLines(before), splitLines(after)];
      for (const max of [...Array.from({ length: 120 }, (_, k) => k), 1_000, 20_000, 1_000_000]) assert.equal(unifiedDiff(a, b, max), unifiedDiffWhole(a, b, max), `${before.slice(0, 20)} → ${after.slice(0, 20)}, ${max}`);
    }
  });
});
