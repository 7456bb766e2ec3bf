/**
 * The whole of an ApplyEdit change, as its permission prompt shows it. The user consents to what
 * they read, so the prompt lists every edit with its exact range and its complete new text; a change
 * that does not fit in a modal dialog is refused with CHANGE_TOO_LARGE, never summarised (OpenDiff
 * shows a large change whole, in the diff editor). Built from the request alone, so nothing of the
 * file is read before the user agrees. The prompt as a whole is measured again by the permission
 * gate (src/core/consent/consentText.ts), which refuses it with PROMPT_TOO_LARGE if the rest pushes it over.
 */
import { CodedError, ErrorCode } from '../../protocol';
import { CONSENT_SURFACES, consent, consentLines, consentRows, type ConsentText } from '../../core/consent/consentText';
import type { RangeEdit } from './textEdits';

/**
 * What the change may take of a modal dialog (it has no scroll bar, and a taller one runs off the
 * window, title and buttons included): 16 of its rows of 50 columns, measured on the text as the
 * dialog shows it (invisible characters spelled out). test/e2e/ui-text.e2e.test.ts checks a change
 * at this limit fits, unclipped.
 */
export const MAX_PREVIEW_ROWS = 16;
/** The modal's detail rows, as the gate measures them: one measure for the change and the prompt around it. */
export const PREVIEW_ROW_CHARS = CONSENT_SURFACES.modal.detailColumns;

/** One line per edit, in the order given, with the complete new text as a JSON string (newlines and controls escaped). */
export function describeWholeChange(edits: readonly RangeEdit[]): ConsentText {
  const shown = consentLines(edits.map(describeEdit));
  const rows = previewRows(shown);
  if (rows > MAX_PREVIEW_ROWS) {
    throw new CodedError(
      ErrorCode.ChangeTooLarge,
      `the change is too large to show in full in the permission prompt (${edits.length} edits, ${shown.length} characters, about ${rows} rows of ` +
        `${PREVIEW_ROW_CHARS} characters; at most ${MAX_PREVIEW_ROWS} rows fit). Use OpenDiff for a large change, which the user reviews in the diff editor, or split it`,
    );
  }
  return shown;
}

/** Rows the text takes in the dialog: each line at least one, a long line one per 50 columns. */
export function previewRows(shown: string): number {
  return consentRows(shown, PREVIEW_ROW_CHARS);
}

function describeEdit(e: RangeEdit): ConsentText {
  const start = `line ${e.startLine}, col ${e.startColumn}`;
  if (e.startLine === e.endLine && e.startColumn === e.endColumn) return consent`• ${start}: insert ${JSON.stringify(e.newText)}`;
  const range = `${start} – line ${e.endLine}, col ${e.endColumn}`;
  if (e.newText === '') return consent`• ${range}: delete`;
  return consent`• ${range}: replace with ${JSON.stringify(e.newText)}`;
}
