/**
 * Range edits as the model writes them (1-based lines and columns, end column exclusive), checked
 * against a document's text and turned into the host's zero-based ranges.
 */
import { CodedError, ErrorCode } from '../../protocol';
import type { TextEditSpec } from '../../core/host';

export interface RangeEdit {
  startLine: number;
  startColumn: number;
  endLine: number;
  endColumn: number;
  newText: string;
}

/** Lengths of the document's lines, in UTF-16 code units, whatever the line endings. */
export function lineLengths(text: string): number[] {
  return text.split(/\r\n|\r|\n/).map((line) => line.length);
}

/**
 * Validates every edit against the document and returns them zero-based, in document order.
 * Refuses (INVALID_ARGUMENTS, naming the edit) positions past the end of a line or the document,
 * ranges that end before they start, and edits that overlap.
 */
export function toTextEdits(edits: readonly RangeEdit[], text: string): TextEditSpec[] {
  const lengths = lineLengths(text);
  const checked = edits.map((e, i) => {
    const field = `edits[${i}]`;
    checkPosition(field, 'start', e.startLine, e.startColumn, lengths);
    checkPosition(field, 'end', e.endLine, e.endColumn, lengths);
    if (e.endLine < e.startLine || (e.endLine === e.startLine && e.endColumn < e.startColumn)) {
      throw bad(`${field}: the range ends (line ${e.endLine}, column ${e.endColumn}) before it starts (line ${e.startLine}, column ${e.startColumn})`);
    }
    return { index: i, spec: { range: { startLine: e.startLine - 1, startCharacter: e.startColumn - 1, endLine: e.endLine - 1, endCharacter: e.endColumn - 1 }, newText: e.newText } };
  });
  checked.sort((a, b) => compare(a.spec.range.startLine, a.spec.range.startCharacter, b.spec.range.startLine, b.spec.range.startCharacter));
  for (let k = 1; k < checked.length; k++) {
    const prev = checked[k - 1].spec.range;
    const next = checked[k].spec.range;
    const overlaps = compare(next.startLine, next.startCharacter, prev.endLine, prev.endCharacter) < 0;
    // Two insertions at the same point would apply in an order the model did not choose.
    const sameInsertionPoint = compare(next.startLine, next.startCharacter, prev.startLine, prev.startCharacter) === 0;
    if (overlaps || sameInsertionPoint) throw bad(`edits[${checked[k].index}]: overlaps edits[${checked[k - 1].index}]; edits must not overlap`);
  }
  return checked.map((c) => c.spec);
}

function checkPosition(field: string, which: 'start' | 'end', line: number, column: number, lengths: readonly number[]): void {
  if (line > lengths.length) throw bad(`${field}: ${which}Line ${line} is past the end of the document, which has ${lengths.length} line${lengths.length === 1 ? '' : 's'}`);
  const max = lengths[line - 1] + 1;
  if (column > max) throw bad(`${field}: ${which}Column ${column} is past the end of line ${line}, which has ${max - 1} characters (the last column is ${max})`);
}

function compare(l1: number, c1: number, l2: number, c2: number): number {
  return l1 - l2 || c1 - c2;
}

function bad(message: string): CodedError {
  return new CodedError(ErrorCode.InvalidArguments, message);
}
