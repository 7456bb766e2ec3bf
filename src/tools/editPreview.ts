/**
 * The whole of an ApplyEdit change, as its permission prompt shows it. The user consents to what
 * they read, so the prompt lists every edit with its exact range and its complete new text; a change
 * that does not fit in a modal dialog is refused with CHANGE_TOO_LARGE, never summarised (OpenDiff
 * shows a large change whole, in the diff editor). Built from the request alone, so nothing of the
 * file is read before the user agrees.
 */
import { CodedError, ErrorCode } from '../protocol';
import { uiText } from '../core/uiText';
import type { RangeEdit } from './textEdits';

/**
 * What a modal dialog shows without scrolling (it has no scroll bar): about 20 lines of 22 px on a
 * laptop screen, and characters enough for those lines to wrap a little. Measured on the text as the
 * dialog shows it (after the UI door makes invisible characters visible).
 */
export const MAX_PREVIEW_LINES = 20;
export const MAX_PREVIEW_CHARS = 1500;

/** One line per edit, in the order given, with the complete new text as a JSON string (newlines and controls escaped). */
export function describeWholeChange(edits: readonly RangeEdit[]): string {
  const lines = edits.map(describeEdit);
  const shown = uiText(lines.join('\n'), { multiline: true, maxLength: Number.MAX_SAFE_INTEGER });
  const lineCount = shown.split('\n').length;
  if (lineCount > MAX_PREVIEW_LINES || shown.length > MAX_PREVIEW_CHARS) {
    throw new CodedError(
      ErrorCode.ChangeTooLarge,
      `the change is too large to show in full in the permission prompt (${edits.length} edits, ${shown.length} characters shown; ` +
        `at most ${MAX_PREVIEW_LINES} edits and ${MAX_PREVIEW_CHARS} characters). Use OpenDiff for a large change, which the user reviews in the diff editor, or split it`,
    );
  }
  return lines.join('\n');
}

function describeEdit(e: RangeEdit): string {
  const start = `line ${e.startLine}, column ${e.startColumn}`;
  const insert = e.startLine === e.endLine && e.startColumn === e.endColumn;
  const where = insert ? `at ${start}` : `${start} up to line ${e.endLine}, column ${e.endColumn}`;
  if (insert) return `• Insert ${JSON.stringify(e.newText)} ${where}`;
  if (e.newText === '') return `• Delete from ${where}`;
  return `• Replace from ${where} with ${JSON.stringify(e.newText)}`;
}
