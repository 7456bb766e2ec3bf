/**
 * Line diffs for OpenDiff's per-hunk review: the hunks between two texts, and a unified diff to show
 * the model what the user changed. Line endings are compared as `\n` (the editor may normalise them).
 *
 * The middle that differs, after the common head and tail are cut off, is aligned by a longest common
 * subsequence table when it is small enough (MAX_TABLE_CELLS); a larger middle is one hunk. Its lines
 * are numbered first (equal lines, equal numbers), so a cell compares two numbers, not two lines that
 * may share a long prefix. That keeps time and memory bounded on any input a backend can send.
 */
import { cutWithNote } from '../protocol/textCut';

/** One changed region: lines [aStart, aEnd) of the old text became lines [bStart, bEnd) of the new one (0-based). */
export interface Hunk {
  aStart: number;
  aEnd: number;
  bStart: number;
  bEnd: number;
}

/** Cells of the alignment table (16-bit each) before the middle is treated as one hunk. */
export const MAX_TABLE_CELLS = 4_000_000;

/**
 * The text with CRLF and CR as `\n`. A text without CR is returned as it is: the scan for one is
 * far quicker than a regular expression's pass over megabytes (OpenDiff takes 5 MB), and this runs
 * in the extension host, which every extension shares.
 */
export function toLf(text: string): string {
  return text.includes('\r') ? text.replace(/\r\n?/g, '\n') : text;
}

/** The text's lines, each with its `\n` (the last may have none); CRLF and CR read as `\n`. */
export function splitLines(text: string): string[] {
  const normalised = toLf(text);
  if (normalised === '') return [];
  const lines = normalised.split('\n').map((l) => `${l}\n`);
  if (normalised.endsWith('\n')) lines.pop();
  else lines[lines.length - 1] = lines[lines.length - 1].slice(0, -1);
  return lines;
}

/** The hunks that turn `a` into `b`, in order; changes with no unchanged line between them are one hunk. */
export function diffLines(a: readonly string[], b: readonly string[]): Hunk[] {
  let head = 0;
  while (head < a.length && head < b.length && a[head] === b[head]) head++;
  let tail = 0;
  while (tail < a.length - head && tail < b.length - head && a[a.length - 1 - tail] === b[b.length - 1 - tail]) tail++;
  const n = a.length - head - tail;
  const m = b.length - head - tail;
  if (n === 0 && m === 0) return [];
  if (n === 0 || m === 0 || (n + 1) * (m + 1) > MAX_TABLE_CELLS) {
    return [{ aStart: head, aEnd: head + n, bStart: head, bEnd: head + m }];
  }
  const numbers = new Map<string, number>();
  const number = (line: string) => {
    let k = numbers.get(line);
    if (k === undefined) numbers.set(line, (k = numbers.size));
    return k;
  };
  const na = Int32Array.from({ length: n }, (_, i) => number(a[head + i]));
  const nb = Int32Array.from({ length: m }, (_, j) => number(b[head + j]));
  // lcs[i][j]: length of the longest common subsequence of a[head+i..] and b[head+j..].
  const width = m + 1;
  const lcs = new Uint16Array((n + 1) * width);
  for (let i = n - 1; i >= 0; i--) {
    for (let j = m - 1; j >= 0; j--) {
      lcs[i * width + j] = na[i] === nb[j]
        ? lcs[(i + 1) * width + j + 1] + 1
        : Math.max(lcs[(i + 1) * width + j], lcs[i * width + j + 1]);
    }
  }
  const hunks: Hunk[] = [];
  let open: Hunk | undefined;
  let i = 0;
  let j = 0;
  const closeOpen = () => {
    if (open) hunks.push(open);
    open = undefined;
  };
  while (i < n || j < m) {
    if (i < n && j < m && na[i] === nb[j]) {
      closeOpen();
      i++;
      j++;
      continue;
    }
    open ??= { aStart: head + i, aEnd: head + i, bStart: head + j, bEnd: head + j };
    if (j < m && (i === n || lcs[i * width + j + 1] >= lcs[(i + 1) * width + j])) {
      j++;
      open.bEnd = head + j;
    } else {
      i++;
      open.aEnd = head + i;
    }
  }
  closeOpen();
  return hunks;
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
