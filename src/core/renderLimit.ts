/**
 * Changed lines longer than the editor draws. VS Code stops rendering a line after
 * `editor.stopRenderingLineAfter` characters (10,000 by default; -1 draws every line whole), so text
 * past that on a line of a proposed change is not on screen in the diff the user reviews (with word
 * wrap on, the diff draws it, after as many rows as it takes, which a reviewer rarely scrolls). OpenDiff
 * names such lines in its permission prompt, on the review's notification and on its chat card, and
 * asks once more before an Accept from the editor's title bar or the palette: such a proposal may be
 * accepted, never without the user having been told which lines they could not see.
 */
import type { HunkReview } from './hunkReview';

/** VS Code's default for `editor.stopRenderingLineAfter`. */
export const DEFAULT_RENDER_LIMIT = 10_000;
/** Line ranges a warning names one by one; past this it counts the rest. */
const MAX_NAMED_RANGES = 12;

/** A line of the proposal (added) or of the file (removed) longer than the editor draws; `line` from 1. */
export interface UnrenderedLine {
  side: 'proposal' | 'file';
  line: number;
  length: number;
}

/** The changed lines of `review` (the proposal's and the file's, hunk by hunk) longer than `limit`. */
export function unrenderedLines(review: HunkReview, limit: number | undefined): UnrenderedLine[] {
  if (limit === undefined) return [];
  const out: UnrenderedLine[] = [];
  for (const h of review.hunks) {
    for (let i = h.aStart; i < h.aEnd; i++) push(out, 'file', i, review.original[i], limit);
    for (let i = h.bStart; i < h.bEnd; i++) push(out, 'proposal', i, review.proposal[i], limit);
  }
  return out.sort((a, b) => (a.side === b.side ? a.line - b.line : a.side === 'proposal' ? -1 : 1));
}

/** Every line of `text` longer than `limit` (a proposal reviewed before the file is read). */
export function longLinesOf(text: string, limit: number | undefined): UnrenderedLine[] {
  if (limit === undefined) return [];
  const out: UnrenderedLine[] = [];
  let start = 0;
  let line = 0;
  while (start <= text.length) {
    let end = text.indexOf('\n', start);
    if (end < 0) end = text.length;
    const length = end - start - (end > start && text[end - 1] === '\r' ? 1 : 0);
    if (length > limit) out.push({ side: 'proposal', line: line + 1, length });
    line++;
    start = end + 1;
  }
  return out;
}

/**
 * The warning naming `lines`, or undefined when there are none: which lines, the longest, what the
 * editor draws of a line, and that Accept writes (or removes) them whole all the same.
 */
export function unrenderedWarning(lines: readonly UnrenderedLine[], limit: number): string | undefined {
  if (lines.length === 0) return undefined;
  const proposal = lines.filter((l) => l.side === 'proposal').map((l) => l.line);
  const file = lines.filter((l) => l.side === 'file').map((l) => l.line);
  const parts = [
    ...(proposal.length > 0 ? [`${name(proposal)} of the proposal`] : []),
    ...(file.length > 0 ? [`${name(file)} of the file`] : []),
  ];
  const longest = Math.max(...lines.map((l) => l.length));
  const what = parts.join(' and ').replace(/ and Line/, ' and line');
  const one = lines.length === 1;
  const effect = file.length === 0 ? 'Accept writes it all the same' : proposal.length === 0 ? 'Accept removes it all the same' : 'Accept writes or removes it all the same';
  return `${what} ${one ? 'is' : 'are'} longer than the editor draws of a line (its first ${group(limit)} characters, editor.stopRenderingLineAfter, unless it wraps lines; ` +
    `${one ? 'it has' : 'the longest has'} ${group(longest)}): the rest of ${one ? 'it' : 'them'} may not be shown in the diff, and ${effect}.`;
}

function push(out: UnrenderedLine[], side: UnrenderedLine['side'], index: number, text: string | undefined, limit: number): void {
  if (text === undefined) return;
  const length = text.endsWith('\n') ? text.length - 1 : text.length;
  if (length > limit) out.push({ side, line: index + 1, length });
}

/** "Line 3", "Lines 3, 7–9", or the first ranges and a count of the rest. */
function name(numbers: readonly number[]): string {
  const ranges: string[] = [];
  for (let i = 0; i < numbers.length; i++) {
    let j = i;
    while (j + 1 < numbers.length && numbers[j + 1] === numbers[j] + 1) j++;
    ranges.push(j === i ? String(numbers[i]) : `${numbers[i]}–${numbers[j]}`);
    i = j;
  }
  if (numbers.length === 1) return `Line ${numbers[0]}`;
  const shown = ranges.slice(0, MAX_NAMED_RANGES);
  const rest = ranges.length > MAX_NAMED_RANGES ? `, and more up to line ${numbers[numbers.length - 1]}` : '';
  return `Lines ${shown.join(', ')}${rest}`;
}

function group(n: number): string {
  return n.toLocaleString('en-US');
}
