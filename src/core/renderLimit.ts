/**
 * Changed lines longer than the editor draws. VS Code stops rendering a line after
 * `editor.stopRenderingLineAfter` characters (10,000 by default; -1 draws every line whole), so text
 * past that on a line of a proposed change is not on screen in the diff the user reviews (with word
 * wrap on, the diff draws it, after as many rows as it takes, which a reviewer rarely scrolls). OpenDiff
 * names such lines in its permission prompt, on the review's notification and on its chat card, and
 * asks once more before an Accept from the editor's title bar or the palette; the multi-file review
 * of RenameSymbol and ApplyCodeAction names them by file and line the same way. Such a proposal may
 * be accepted, never without the user having been told which lines they could not see.
 */
import type { HunkReview } from './hunkReview';
import { clipStart } from './uiText';

/** VS Code's default for `editor.stopRenderingLineAfter`. */
export const DEFAULT_RENDER_LIMIT = 10_000;
/** Line ranges a warning names one by one; past this it counts the rest. */
const MAX_NAMED_RANGES = 12;
/** A multi-file warning names this many files, each with fewer ranges, so that it stays short. */
const MAX_NAMED_FILES = 3;
const MAX_RANGES_PER_FILE = 3;
/** Characters of a path a multi-file warning shows (its end, which names the file). */
const MAX_PATH_CHARS = 60;

/** What the editor draws of a line for a file: the host's answer, or VS Code's default when the host does not say. */
export function renderLimitOf(host: { renderedLineLimit?(absPath: string): number | undefined }, absPath: string): number | undefined {
  return host.renderedLineLimit ? host.renderedLineLimit(absPath) : DEFAULT_RENDER_LIMIT;
}

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
  const one = lines.length === 1;
  return `${which(lines, MAX_NAMED_RANGES)} ${one ? 'is' : 'are'} longer than the editor draws of a line (its first ${group(limit)} characters, ${consequence(lines)}`;
}

/** One file of a multi-file change: its workspace-relative path, its long changed lines, and what the editor draws of a line there. */
export interface UnrenderedFile {
  relative: string;
  lines: readonly UnrenderedLine[];
  limit: number;
}

/**
 * The warning for a change to several files (RenameSymbol, ApplyCodeAction), naming each file with
 * long changed lines and the lines, or undefined when no file has any. At most MAX_NAMED_FILES files
 * are named (the rest counted), so the warning fits a notification and the chat's card.
 */
export function unrenderedChangeWarning(files: readonly UnrenderedFile[]): string | undefined {
  const named = files.filter((f) => f.lines.length > 0);
  if (named.length === 0) return undefined;
  const lines = named.flatMap((f) => f.lines);
  const each = named.slice(0, MAX_NAMED_FILES).map((f) => `in ${clipStart(f.relative, MAX_PATH_CHARS)}, ${lowerFirst(which(f.lines, MAX_RANGES_PER_FILE))}`);
  const more = named.length - each.length;
  const where = `${each.join('; ')}${more > 0 ? `; and in ${more} more file${more === 1 ? '' : 's'}` : ''}`;
  const one = lines.length === 1;
  const limits = named.map((f) => f.limit);
  const [low, high] = [Math.min(...limits), Math.max(...limits)];
  const drawn = low === high ? `its first ${group(low)} characters` : `its first ${group(low)} to ${group(high)} characters, by file`;
  return `${upperFirst(where)}: ${one ? 'this line is' : 'these lines are'} longer than the editor draws of a line (${drawn}, ${consequence(lines)}`;
}

/** "Line 3 of the proposal", "Lines 3–5, 9 of the proposal and line 2 of the file". */
function which(lines: readonly UnrenderedLine[], maxRanges: number): string {
  const proposal = lines.filter((l) => l.side === 'proposal').map((l) => l.line);
  const file = lines.filter((l) => l.side === 'file').map((l) => l.line);
  const parts = [
    ...(proposal.length > 0 ? [`${name(proposal, maxRanges)} of the proposal`] : []),
    ...(file.length > 0 ? [`${name(file, maxRanges)} of the file`] : []),
  ];
  return parts.join(' and ').replace(/ and Line/, ' and line');
}

/** The end of a warning, after what the editor draws: the setting, the longest line, and what Accept does. */
function consequence(lines: readonly UnrenderedLine[]): string {
  // A loop, not Math.max(...): spreading a few hundred thousand lines overflows the stack.
  const longest = lines.reduce((most, l) => Math.max(most, l.length), 0);
  const one = lines.length === 1;
  const writes = lines.some((l) => l.side === 'proposal');
  const removes = lines.some((l) => l.side === 'file');
  const effect = !removes ? 'Accept writes it all the same' : !writes ? 'Accept removes it all the same' : 'Accept writes or removes it all the same';
  return `editor.stopRenderingLineAfter, unless it wraps lines; ${one ? 'it has' : 'the longest has'} ${group(longest)}): ` +
    `the rest of ${one ? 'it' : 'them'} may not be shown in the diff, and ${effect}.`;
}

function push(out: UnrenderedLine[], side: UnrenderedLine['side'], index: number, text: string | undefined, limit: number): void {
  if (text === undefined) return;
  const length = text.endsWith('\n') ? text.length - 1 : text.length;
  if (length > limit) out.push({ side, line: index + 1, length });
}

/** "Line 3", "Lines 3, 7–9", or the first ranges and a count of the rest. */
function name(numbers: readonly number[], maxRanges: number): string {
  const ranges: string[] = [];
  for (let i = 0; i < numbers.length; i++) {
    let j = i;
    while (j + 1 < numbers.length && numbers[j + 1] === numbers[j] + 1) j++;
    ranges.push(j === i ? String(numbers[i]) : `${numbers[i]}–${numbers[j]}`);
    i = j;
  }
  if (numbers.length === 1) return `Line ${numbers[0]}`;
  const shown = ranges.slice(0, maxRanges);
  const rest = ranges.length > maxRanges ? `, and more up to line ${numbers[numbers.length - 1]}` : '';
  return `Lines ${shown.join(', ')}${rest}`;
}

function group(n: number): string {
  return n.toLocaleString('en-US');
}

function lowerFirst(text: string): string {
  return text.charAt(0).toLowerCase() + text.slice(1);
}

function upperFirst(text: string): string {
  return text.charAt(0).toUpperCase() + text.slice(1);
}
