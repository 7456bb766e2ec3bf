/**
 * Inline code in a sentence the extension wrote around text from elsewhere (a prompt's title:
 * "Run `ls -la` in the app folder?"): a span between backtick runs of the same length (CommonMark's
 * code span, so "`` echo `date` ``" holds a backtick) becomes a <code> element. A run counts only
 * at a word's edge (a space, a bracket or the sentence's end beside it), so a file name such as
 * a`b`c.txt stays as written. No DOM, so it is tested in Node; approvalCard.ts draws the pieces as
 * text nodes and <code> elements (never HTML) and reads the exact text back for the prompt's digest.
 */

const OPENS_AFTER = /[\s([{"'“‘]/;
const CLOSES_BEFORE = /[\s)\]}"'”’.,:;!?]/;

export interface Piece {
  text: string;
  /** The span as written, backticks included; absent for plain text. */
  source?: string;
}

function runLength(text: string, at: number): number {
  let end = at;
  while (text[end] === '`') end++;
  return end - at;
}

/** Splits `text` into plain text and code spans. */
export function inlineCodePieces(text: string): Piece[] {
  const pieces: Piece[] = [];
  let plain = '';
  let i = 0;
  while (i < text.length) {
    const n = text[i] === '`' ? runLength(text, i) : 0;
    if (n === 0) {
      plain += text[i++];
      continue;
    }
    const opens = i === 0 || OPENS_AFTER.test(text[i - 1]);
    const close = opens ? closingRun(text, i + n, n) : -1;
    if (close < 0) {
      plain += text.slice(i, i + n);
      i += n;
      continue;
    }
    let code = text.slice(i + n, close);
    if (code.startsWith(' ') && code.endsWith(' ') && code.trim() !== '') code = code.slice(1, -1);
    if (plain) pieces.push({ text: plain });
    plain = '';
    pieces.push({ text: code, source: text.slice(i, close + n) });
    i = close + n;
  }
  if (plain) pieces.push({ text: plain });
  return pieces;
}

/** Where the run of exactly `n` backticks closing a span that starts at `from` begins, or -1. */
function closingRun(text: string, from: number, n: number): number {
  for (let j = from; j < text.length; ) {
    const m = text[j] === '`' ? runLength(text, j) : 0;
    if (m === 0) {
      j++;
      continue;
    }
    const end = j + m;
    if (m === n && j > from && (end === text.length || CLOSES_BEFORE.test(text[end]))) return j;
    j = end;
  }
  return -1;
}
