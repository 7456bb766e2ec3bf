/**
 * The whole of an ApplyEdit change, as its permission prompt shows it. The user consents to what
 * they read, so the prompt lists every edit with its exact range and its complete new text; a change
 * that does not fit in a modal dialog is refused with CHANGE_TOO_LARGE, never summarised (OpenDiff
 * shows a large change whole, in the diff editor). Built from the request alone, so nothing of the
 * file is read before the user agrees.
 */
import { CodedError, ErrorCode } from '../../protocol';
import { uiText } from '../../core/uiText';
import type { RangeEdit } from './textEdits';

/**
 * What a modal dialog shows without scrolling (it has no scroll bar, and a taller one runs off the
 * window, title and buttons included): its text column wraps at about 55 characters, in rows of 22 px.
 * 16 rows of 50 characters, with the dialog's own title, detail and buttons, measured 522 px tall in
 * code-server (test/e2e/ui-text.e2e.test.ts checks a change at this limit fits, unclipped). Measured on the text
 * as the dialog shows it (after the UI door makes invisible characters visible).
 */
export const MAX_PREVIEW_ROWS = 16;
export const PREVIEW_ROW_CHARS = 50;

/** One line per edit, in the order given, with the complete new text as a JSON string (newlines and controls escaped). */
export function describeWholeChange(edits: readonly RangeEdit[]): string {
  const lines = edits.map(describeEdit);
  const shown = uiText(lines.join('\n'), { multiline: true, maxLength: Number.MAX_SAFE_INTEGER });
  const rows = previewRows(shown);
  if (rows > MAX_PREVIEW_ROWS) {
    throw new CodedError(
      ErrorCode.ChangeTooLarge,
      `the change is too large to show in full in the permission prompt (${edits.length} edits, ${shown.length} characters, about ${rows} rows of ` +
        `${PREVIEW_ROW_CHARS} characters; at most ${MAX_PREVIEW_ROWS} rows fit). Use OpenDiff for a large change, which the user reviews in the diff editor, or split it`,
    );
  }
  return lines.join('\n');
}

/** Rows the text takes in the dialog: each line at least one, a long line one per 50 characters. */
export function previewRows(shown: string): number {
  return shown.split('\n').reduce((sum, line) => sum + Math.max(1, Math.ceil(line.length / PREVIEW_ROW_CHARS)), 0);
}

function describeEdit(e: RangeEdit): string {
  const start = `line ${e.startLine}, col ${e.startColumn}`;
  if (e.startLine === e.endLine && e.startColumn === e.endColumn) return `• ${start}: insert ${JSON.stringify(e.newText)}`;
  const range = `${start} – line ${e.endLine}, col ${e.endColumn}`;
  if (e.newText === '') return `• ${range}: delete`;
  return `• ${range}: replace with ${JSON.stringify(e.newText)}`;
}
