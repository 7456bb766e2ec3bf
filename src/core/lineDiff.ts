/**
 * Line diffs for OpenDiff's per-hunk review: the hunks between two texts, and a unified diff to show
 * the model what the user changed. Line endings are compared as `\n` (the editor may normalise them).
 *
 * The middle that differs, after the common head and tail are cut off, is aligned by a longest common
 * subsequence table when it is small enough (MAX_TABLE_CELLS); a larger middle is first cut at lines
 * that occur once on each side (alignLines). Its lines are numbered first (equal lines, equal numbers:
 * LineNumbers), so a cell compares two numbers, not two lines that may share a long prefix. The work
 * of one diff is bounded (MAX_TABLE_CELLS in all) on any input a backend can send; what the bound
 * leaves unaligned is one coarse hunk.
 */
import { nextTurn } from '../base/nextTurn';
import { cutWithNote } from '../protocol/textCut';

/** One changed region: lines [aStart, aEnd) of the old text became lines [bStart, bEnd) of the new one (0-based). */
export interface Hunk {
  aStart: number;
  aEnd: number;
  bStart: number;
  bEnd: number;
}

/** Cells of an alignment table (16-bit each), and the work of one diff in all (cells and lines scanned). */
export const MAX_TABLE_CELLS = 4_000_000;

/**
 * The text with CRLF and CR as `\n`. A text without CR is returned as it is: the scan for one is
 * far quicker than a regular expression's pass over megabytes (OpenDiff takes 5 MB), and this runs
 * in the extension host, which every extension shares.
 */
export function toLf(text: string): string {
  return text.includes('\r') ? text.replace(/\r\n?/g, '\n') : text;
}

/**
 * The text's lines, each with its `\n` (the last may have none); CRLF and CR read as `\n`. Each line
 * is a slice of the text, not a line joined to its `\n`: a joined string is copied again when it is
 * first compared or numbered, which for megabytes of lines is most of a diff's time.
 */
export function splitLines(text: string): string[] {
  return runAll(splitLineSteps(text));
}

/** splitLines as steps: it yields after every LINES_PER_STEP lines. */
export function* splitLineSteps(text: string): Generator<void, string[]> {
  const normalised = toLf(text);
  const lines: string[] = [];
  for (let start = 0; start < normalised.length; ) {
    const newline = normalised.indexOf('\n', start);
    const end = newline < 0 ? normalised.length : newline + 1;
    lines.push(normalised.slice(start, end));
    start = end;
    if (lines.length % LINES_PER_STEP === 0) yield;
  }
  return lines;
}

/** The hunks that turn `a` into `b`, in order; changes with no unchanged line between them are one hunk. */
export function diffLines(a: readonly string[], b: readonly string[]): Hunk[] {
  return alignLines(a, b).hunks;
}

export interface LineAlignment {
  hunks: Hunk[];
  /** Part of the change was too large to align within the bound on work: it is one hunk, larger than the change. */
  coarse: boolean;
}

/**
 * diffLines, and whether the bound on work made part of it one coarse hunk. A middle of at most
 * MAX_TABLE_CELLS is aligned exactly (a longest common subsequence); a larger one is cut at its
 * lines that occur once on each side, in the same order on both (as patience diff does), and each
 * piece aligned again, all within MAX_TABLE_CELLS of work in total: a piece left when that is spent,
 * or one without such a line, is one hunk.
 */
export function alignLines(a: readonly string[], b: readonly string[]): LineAlignment {
  return runAll(alignSteps(a, b));
}

/**
 * alignLines in slices of at most about MAX_SLICE_MS, the event loop's other work running in between
 * (OpenDiff runs in the extension host, which every extension shares; a 5 MB proposal is tens of
 * thousands of lines to number and align).
 */
export function alignLinesSliced(a: readonly string[], b: readonly string[]): Promise<LineAlignment> {
  return runInSlices(alignSteps(a, b));
}

/** Runs `steps` to its end at once. */
export function runAll<T>(steps: Generator<void, T>): T {
  for (;;) {
    const step = steps.next();
    if (step.done) return step.value;
  }
}

/**
 * Runs `steps` to its end in slices of the event loop of about `sliceMs` each: after a step, when the
 * slice has run that long, the rest waits for the next turn (nextTurn: after the I/O and timers
 * that are due). The first slice starts in a turn of its own too: the caller's has done work of its
 * own (OpenDiff's reading and hashing of the file), which the slice's budget would not count.
 */
export async function runInSlices<T>(steps: Generator<void, T>, sliceMs = MAX_SLICE_MS): Promise<T> {
  await nextTurn();
  let sliceStart = performance.now();
  for (;;) {
    const step = steps.next();
    if (step.done) return step.value;
    if (performance.now() - sliceStart < sliceMs) continue;
    await nextTurn();
    sliceStart = performance.now();
  }
}

/** How long alignLinesSliced works before it lets other work run. */
export const MAX_SLICE_MS = 8;
/** Lines split, compared or numbered, or units of alignment work done, between two checks of the time. */
const LINES_PER_STEP = 4096;
const WORK_PER_STEP = 65_536;

/**
 * The alignment as steps: it yields after every LINES_PER_STEP lines compared or numbered and every
 * WORK_PER_STEP units of alignment (cells of a table, lines counted in a search for anchors).
 */
export function* alignSteps(a: readonly string[], b: readonly string[]): Generator<void, LineAlignment> {
  let head = 0;
  while (head < a.length && head < b.length && a[head] === b[head]) if (++head % LINES_PER_STEP === 0) yield;
  let tail = 0;
  while (tail < a.length - head && tail < b.length - head && a[a.length - 1 - tail] === b[b.length - 1 - tail]) if (++tail % LINES_PER_STEP === 0) yield;
  const n = a.length - head - tail;
  const m = b.length - head - tail;
  if (n === 0 && m === 0) return { hunks: [], coarse: false };
  if (n === 0 || m === 0) return { hunks: [{ aStart: head, aEnd: head + n, bStart: head, bEnd: head + m }], coarse: false };
  const numbers = new LineNumbers();
  const na = new Int32Array(n);
  for (let i = 0; i < n; i += LINES_PER_STEP) {
    numbers.fill(na, a, head, i, Math.min(n, i + LINES_PER_STEP));
    yield;
  }
  const nb = new Int32Array(m);
  for (let j = 0; j < m; j += LINES_PER_STEP) {
    numbers.fill(nb, b, head, j, Math.min(m, j + LINES_PER_STEP));
    yield;
  }
  const alignment = new Alignment(na, nb, numbers.size, head);
  yield* alignment.run();
  return { hunks: alignment.hunks, coarse: alignment.coarse };
}

/** The alignment of two numbered middles, piece by piece, within one budget of work. */
class Alignment {
  readonly hunks: Hunk[] = [];
  coarse = false;
  private work = MAX_TABLE_CELLS;
  private counts?: { a: Int32Array; b: Int32Array; bAt: Int32Array };

  constructor(
    private readonly na: Int32Array,
    private readonly nb: Int32Array,
    private readonly distinct: number,
    private readonly offset: number,
  ) {}

  *run(): Generator<void> {
    // Pieces still to align, the next on top (a stack, not recursion: pieces may nest deeply).
    const pieces: [number, number, number, number][] = [[0, this.na.length, 0, this.nb.length]];
    let workAtStep = this.work;
    for (let piece = pieces.pop(); piece; piece = pieces.pop()) {
      if (workAtStep - this.work >= WORK_PER_STEP) {
        yield;
        workAtStep = this.work;
      }
      let [i0, i1, j0, j1] = piece;
      for (; i0 < i1 && j0 < j1 && this.na[i0] === this.nb[j0]; i0++) j0++;
      for (; i1 > i0 && j1 > j0 && this.na[i1 - 1] === this.nb[j1 - 1]; i1--) j1--;
      const cells = (i1 - i0 + 1) * (j1 - j0 + 1);
      if (i0 === i1 && j0 === j1) continue;
      if (i0 === i1 || j0 === j1) {
        this.push(i0, i1, j0, j1);
      } else if (cells <= this.work) {
        this.work -= cells;
        this.table(i0, i1, j0, j1);
      } else {
        const anchors = yield* this.anchors(i0, i1, j0, j1);
        if (anchors.length === 0) {
          this.coarse = true;
          this.push(i0, i1, j0, j1);
          continue;
        }
        // The pieces between anchors; none between two anchors that follow each other on both sides.
        const between: [number, number, number, number][] = [];
        let [i, j] = [i0, j0];
        for (let k = 0; k < anchors.length; k++) {
          const ai = anchors.a[k];
          const bj = anchors.b[k];
          if (ai > i || bj > j) between.push([i, ai, j, bj]);
          i = ai + 1;
          j = bj + 1;
          if (k % LINES_PER_STEP === LINES_PER_STEP - 1) yield;
        }
        if (i1 > i || j1 > j) between.push([i, i1, j, j1]);
        for (let k = between.length - 1; k >= 0; k--) pieces.push(between[k]);
      }
    }
  }

  private push(i0: number, i1: number, j0: number, j1: number): void {
    this.hunks.push({ aStart: this.offset + i0, aEnd: this.offset + i1, bStart: this.offset + j0, bEnd: this.offset + j1 });
  }

  /** Exact alignment by a longest common subsequence table. */
  private table(i0: number, i1: number, j0: number, j1: number): void {
    const { na, nb } = this;
    const n = i1 - i0;
    const m = j1 - j0;
    // lcs[i][j]: length of the longest common subsequence of na[i0+i..i1) and nb[j0+j..j1).
    const width = m + 1;
    const lcs = new Uint16Array((n + 1) * width);
    for (let i = n - 1; i >= 0; i--) {
      for (let j = m - 1; j >= 0; j--) {
        lcs[i * width + j] = na[i0 + i] === nb[j0 + j]
          ? lcs[(i + 1) * width + j + 1] + 1
          : Math.max(lcs[(i + 1) * width + j], lcs[i * width + j + 1]);
      }
    }
    let open: [number, number, number, number] | undefined;
    let i = 0;
    let j = 0;
    const closeOpen = () => {
      if (open) this.push(...open);
      open = undefined;
    };
    while (i < n || j < m) {
      if (i < n && j < m && na[i0 + i] === nb[j0 + j]) {
        closeOpen();
        i++;
        j++;
        continue;
      }
      open ??= [i0 + i, i0 + i, j0 + j, j0 + j];
      if (j < m && (i === n || lcs[i * width + j + 1] >= lcs[(i + 1) * width + j])) {
        j++;
        open[3] = j0 + j;
      } else {
        i++;
        open[1] = i0 + i;
      }
    }
    closeOpen();
  }

  /**
   * The lines that occur once in na[i0, i1) and once in nb[j0, j1), as [i, j] pairs: the longest run
   * of them in the same order on both sides. Empty when the budget cannot pay for the search.
   */
  private *anchors(i0: number, i1: number, j0: number, j1: number): Generator<void, Anchors> {
    const cost = 2 * (i1 - i0 + j1 - j0);
    if (cost > this.work) return NO_ANCHORS;
    this.work -= cost;
    const counts = (this.counts ??= { a: new Int32Array(this.distinct), b: new Int32Array(this.distinct), bAt: new Int32Array(this.distinct) });
    const { na, nb } = this;
    yield* inSteps(i0, i1, (from, to) => {
      for (let i = from; i < to; i++) counts.a[na[i]]++;
    });
    yield* inSteps(j0, j1, (from, to) => {
      for (let j = from; j < to; j++) {
        counts.b[nb[j]]++;
        counts.bAt[nb[j]] = j;
      }
    });
    const unique: Anchors = { a: new Int32Array(i1 - i0), b: new Int32Array(i1 - i0), length: 0 };
    yield* inSteps(i0, i1, (from, to) => {
      for (let i = from; i < to; i++) {
        if (counts.a[na[i]] !== 1 || counts.b[na[i]] !== 1) continue;
        unique.a[unique.length] = i;
        unique.b[unique.length++] = counts.bAt[na[i]];
      }
    });
    yield* inSteps(i0, i1, (from, to) => {
      for (let i = from; i < to; i++) counts.a[na[i]] = 0;
    });
    yield* inSteps(j0, j1, (from, to) => {
      for (let j = from; j < to; j++) counts.b[nb[j]] = 0;
    });
    return yield* increasingByB(unique);
  }
}

/** Matched lines, in order: a[k] of the one side with b[k] of the other, for k below length. */
interface Anchors {
  a: Int32Array;
  b: Int32Array;
  length: number;
}

const NO_ANCHORS: Anchors = { a: new Int32Array(0), b: new Int32Array(0), length: 0 };

/** `body(from, to)` over [start, end) in pieces of WORK_PER_STEP, a step each. */
function* inSteps(start: number, end: number, body: (from: number, to: number) => void): Generator<void> {
  for (let from = start; from < end; from += WORK_PER_STEP) {
    body(from, Math.min(end, from + WORK_PER_STEP));
    yield;
  }
}

/** The longest subsequence of `pairs` (in increasing a) whose b increase too (patience sorting), as steps. */
function* increasingByB(pairs: Anchors): Generator<void, Anchors> {
  const tails = new Int32Array(pairs.length);
  let longest = 0;
  const before = new Int32Array(pairs.length);
  for (let k = 0; k < pairs.length; k++) {
    if (k % LINES_PER_STEP === LINES_PER_STEP - 1) yield;
    let lo = 0;
    let hi = longest;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (pairs.b[tails[mid]] < pairs.b[k]) lo = mid + 1;
      else hi = mid;
    }
    before[k] = lo > 0 ? tails[lo - 1] : -1;
    tails[lo] = k;
    if (lo === longest) longest++;
  }
  const out: Anchors = { a: new Int32Array(longest), b: new Int32Array(longest), length: longest };
  for (let k = longest > 0 ? tails[longest - 1] : -1, at = longest - 1; k >= 0; k = before[k], at--) {
    out.a[at] = pairs.a[k];
    out.b[at] = pairs.b[k];
  }
  return out;
}

/** Lines of a bucket compared whole before the bucket numbers its lines by their full hash. */
const MAX_BUCKET_LINES = 8;
/** Lines shorter than this are numbered by their own hash (cheap at that length). */
const SHORT_LINE = 256;

/**
 * Equal numbers for equal lines, reading few characters of most: a long line's key is its length,
 * its ends and its middle character, and lines with one key are told apart by comparing them whole
 * (a comparison stops at the first difference; hashing a line reads all of it, which for 4 KB lines
 * was most of a diff's time). A key shared by more than MAX_BUCKET_LINES different lines, as a file
 * made to defeat the key would do, numbers the rest of its lines by their full hash: a line costs at
 * most that many comparisons and one hash.
 */
export class LineNumbers {
  private readonly short = new Map<string, number>();
  private readonly buckets = new Map<string, { lines: string[]; numbers: number[]; hashed?: Map<string, number> }>();
  private count = 0;

  /** How many different lines were numbered: the numbers are 0 to size - 1. */
  get size(): number {
    return this.count;
  }

  /** Numbers lines[offset + from, offset + to) into into[from, to). */
  fill(into: Int32Array, lines: readonly string[], offset: number, from: number, to: number): void {
    for (let k = from; k < to; k++) into[k] = this.of(lines[offset + k]);
  }

  of(line: string): number {
    if (line.length < SHORT_LINE) {
      let n = this.short.get(line);
      if (n === undefined) this.short.set(line, (n = this.count++));
      return n;
    }
    const key = `${line.length}:${line.slice(0, 24)}${line.charAt(line.length >> 1)}${line.slice(-24)}`;
    const bucket = this.buckets.get(key);
    if (!bucket) {
      this.buckets.set(key, { lines: [line], numbers: [this.count] });
      return this.count++;
    }
    const at = bucket.lines.indexOf(line);
    if (at >= 0) return bucket.numbers[at];
    if (bucket.lines.length < MAX_BUCKET_LINES) {
      bucket.lines.push(line);
      bucket.numbers.push(this.count);
      return this.count++;
    }
    bucket.hashed ??= new Map();
    let n = bucket.hashed.get(line);
    if (n === undefined) bucket.hashed.set(line, (n = this.count++));
    return n;
  }
}

/** `@@ -3,2 +3,4 @@`, as in a unified diff (1-based starts; an empty side names the line before it). */
export function hunkHeader(h: Hunk): string {
  const side = (start: number, end: number) => {
    const count = end - start;
    return count === 0 ? `${start},0` : count === 1 ? `${start + 1}` : `${start + 1},${count}`;
  };
  return `@@ -${side(h.aStart, h.aEnd)} +${side(h.bStart, h.bEnd)} @@`;
}

/** A unified diff of `a` → `b` with `context` unchanged lines around each hunk, at most `maxChars` long. */
export function unifiedDiff(a: readonly string[], b: readonly string[], maxChars: number, context = 2): string {
  const out: string[] = [];
  for (const h of diffLines(a, b)) {
    out.push(hunkHeader(h));
    for (let i = Math.max(0, h.aStart - context); i < h.aStart; i++) out.push(` ${strip(a[i])}`);
    for (let i = h.aStart; i < h.aEnd; i++) out.push(`-${strip(a[i])}`);
    for (let i = h.bStart; i < h.bEnd; i++) out.push(`+${strip(b[i])}`);
    for (let i = h.aEnd; i < Math.min(a.length, h.aEnd + context); i++) out.push(` ${strip(a[i])}`);
  }
  const text = out.join('\n');
  return cutWithNote(text, maxChars);
}

function strip(line: string): string {
  return line.endsWith('\n') ? line.slice(0, -1) : line;
}
