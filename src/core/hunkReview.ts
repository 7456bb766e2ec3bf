/**
 * OpenDiff's per-hunk review, worked out from text alone: the proposal's hunks against the file, which
 * of them the reviewed text now holds (kept, rejected, or edited by the user), and the text with one
 * hunk taken back or put back. The reviewed text is the only state: whether the user rejected a hunk
 * in the chat, with the diff editor's own "revert block" arrow or by typing, the answer is read from
 * the text, so every way of deciding gives the model the same account.
 */
import { cutWithNote } from '../protocol/textCut';
import { MAX_HUNK_PREVIEW, type ChatReview } from '../protocol/webview';
import { alignLines, alignSteps, diffLines, hunkHeader, runAll, runInSlices, splitLines, splitLineSteps, unifiedDiff, type Hunk } from './lineDiff';

export type HunkState = 'kept' | 'rejected' | 'edited';

export interface HunkReview {
  readonly original: readonly string[];
  readonly proposal: readonly string[];
  /** The proposal's hunks against the original, numbered from 1 in what the model and the user see. */
  readonly hunks: readonly Hunk[];
  /** Part of the change was too large to compare line by line within the bound on work: a hunk covers more than what changed. */
  readonly coarse: boolean;
}

/** What OpenDiff's review and result say when the review is coarse. */
export const COARSE_REVIEW_NOTE = 'Part of this change is too large to compare line by line: it is shown as larger hunks, to keep, reject or edit whole.';

export interface ReviewedText {
  /** One per hunk, in order. */
  states: HunkState[];
  /** The text is not just the original with some of the proposal's hunks: the user typed something. */
  editedByUser: boolean;
}

export function hunkReview(original: string, proposal: string): HunkReview {
  const o = splitLines(original);
  const p = splitLines(proposal);
  const { hunks, coarse } = alignLines(o, p);
  return { original: o, proposal: p, hunks, coarse };
}

/**
 * hunkReview in slices of the event loop of about `sliceMs` (runInSlices): splitting the texts into
 * lines as well as aligning them, for the tools that run in the shared extension host.
 */
export function hunkReviewSliced(original: string, proposal: string, sliceMs?: number): Promise<HunkReview> {
  return runInSlices(hunkReviewSteps(original, proposal), sliceMs);
}

function* hunkReviewSteps(original: string, proposal: string): Generator<void, HunkReview> {
  const o = yield* splitLineSteps(original);
  const p = yield* splitLineSteps(proposal);
  const { hunks, coarse } = yield* alignSteps(o, p);
  return { original: o, proposal: p, hunks, coarse };
}

export function headerOf(review: HunkReview, index: number): string {
  return hunkHeader(review.hunks[index]);
}

/** Which hunks `text` holds as proposed, holds as the original had it, or holds changed. */
export function readReviewedText(review: HunkReview, text: string): ReviewedText {
  return runAll(readReviewedSteps(review, text));
}

/** readReviewedText in slices of the event loop of about `sliceMs` (runInSlices), as hunkReviewSliced. */
export function readReviewedTextSliced(review: HunkReview, text: string, sliceMs?: number): Promise<ReviewedText> {
  return runInSlices(readReviewedSteps(review, text), sliceMs);
}

function* readReviewedSteps(review: HunkReview, text: string): Generator<void, ReviewedText> {
  const lines = yield* splitLineSteps(text);
  const fromProposal = (yield* alignSteps(review.proposal, lines)).hunks;
  // The proposal as it stands (an Accept without changes) needs no diff against the original.
  if (fromProposal.length === 0) return { states: review.hunks.map(() => 'kept'), editedByUser: false };
  let fromOriginal: Hunk[] | undefined;
  const states: HunkState[] = [];
  for (const h of review.hunks) {
    if (!fromProposal.some((c) => touches(c, h.bStart, h.bEnd))) {
      states.push('kept');
      continue;
    }
    fromOriginal ??= (yield* alignSteps(review.original, lines)).hunks;
    states.push(fromOriginal.some((c) => touches(c, h.aStart, h.aEnd)) ? 'edited' : 'rejected');
  }
  const editedByUser = states.includes('edited') || compose(review, states).join('') !== lines.join('');
  return { states, editedByUser };
}

/** `text` with hunk `index` as proposed (`keep`) or as the original had it; undefined when the user edited that hunk. */
export function withHunk(review: HunkReview, text: string, index: number, keep: boolean): string | undefined {
  const h = review.hunks[index];
  if (!h) return undefined;
  const state = readReviewedText(review, text).states[index];
  if (state === (keep ? 'kept' : 'rejected')) return text;
  if (state === 'edited') return undefined;
  const lines = splitLines(text);
  // Where the hunk sits in `text`: its place in the side it now matches, moved by the changes before it.
  const [base, start, end] = state === 'kept' ? [review.proposal, h.bStart, h.bEnd] : [review.original, h.aStart, h.aEnd];
  let shift = 0;
  for (const c of diffLines(base, lines)) if (c.aEnd <= start) shift += (c.bEnd - c.bStart) - (c.aEnd - c.aStart);
  const replacement = keep ? review.proposal.slice(h.bStart, h.bEnd) : review.original.slice(h.aStart, h.aEnd);
  lines.splice(start + shift, end - start, ...replacement);
  return lines.join('');
}

/**
 * Which file's hunk a review of several files means by `index`, counted across the files in order
 * (the chat's card lists them so); undefined past the last.
 */
export function locateHunk(hunksPerFile: readonly number[], index: number): { file: number; hunk: number } | undefined {
  let rest = index;
  for (let file = 0; file < hunksPerFile.length; file++) {
    if (rest < hunksPerFile[file]) return { file, hunk: rest };
    rest -= hunksPerFile[file];
  }
  return undefined;
}

/** Lines of each side of a hunk the chat's card shows, at most. */
const MAX_PREVIEW_LINES = 200;

/**
 * The hunks of `review` as the chat's card lists them (OpenDiff's and a multi-file change's): each
 * named by `header`, in the state `text` now holds it, each side's first lines clipped to
 * MAX_HUNK_PREVIEW characters; the first `limit` hunks (a card lists MAX_REVIEW_HUNKS), so that no
 * preview is cut for a hunk the card does not show.
 */
export function cardHunks(review: HunkReview, text: string, header: (index: number) => string, limit = Infinity): ChatReview['hunks'] {
  const { states } = readReviewedText(review, text);
  const side = (lines: readonly string[], start: number, end: number) => clipPreview(lines.slice(start, Math.min(end, start + MAX_PREVIEW_LINES)).join(''));
  return review.hunks.slice(0, limit).map((h, i) => ({ header: header(i), removed: side(review.original, h.aStart, h.aEnd), added: side(review.proposal, h.bStart, h.bEnd), state: states[i] }));
}

function clipPreview(text: string): string {
  // The note names the original's size and fits in the schema's 100 characters over the preview.
  return cutWithNote(text, MAX_HUNK_PREVIEW - 60);
}

/** The user's own edits: what they typed on top of their hunk choices, as a unified diff. */
export function userEditsOf(review: HunkReview, text: string, states: readonly HunkState[], maxChars: number): string {
  return unifiedDiff(compose(review, states), splitLines(text), maxChars);
}

/** The original with the hunks that are not rejected taken from the proposal. */
function compose(review: HunkReview, states: readonly HunkState[]): string[] {
  const out: string[] = [];
  let at = 0;
  review.hunks.forEach((h, i) => {
    out.push(...review.original.slice(at, h.aStart));
    out.push(...(states[i] === 'rejected' ? review.original.slice(h.aStart, h.aEnd) : review.proposal.slice(h.bStart, h.bEnd)));
    at = h.aEnd;
  });
  out.push(...review.original.slice(at));
  return out;
}

/** Whether change `c` (on the base side) reaches into lines [start, end) or, for an empty range, lands on its spot. */
function touches(c: Hunk, start: number, end: number): boolean {
  if (start < end) return c.aStart < end && c.aEnd > start;
  return (c.aStart === c.aEnd && c.aStart === start) || (c.aStart < start && c.aEnd > start);
}
