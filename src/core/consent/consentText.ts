/**
 * Consent text: what a user reads before allowing something (a permission prompt in a modal dialog
 * or on the chat's card, a workspace MCP server's launch approval). It is built here and nowhere
 * else, so that for every such text:
 *
 *  - our own literal text keeps its lines, and a value (a path, a command, an argument, the
 *    backend's words) stays on one line: invisible characters are shown by code point and a line
 *    break as ⏎ (src/core/uiText.ts `showInvisibles`), so one value can never look like two lines
 *    (a fake `In folder: …` or `Environment: NONE`);
 *  - the text is measured as it will be displayed, after that expansion, in rows of the surface it
 *    goes to;
 *  - what does not fit that surface in full is refused with PROMPT_TOO_LARGE, never cut.
 *
 *   consent`Delete ${path} (${size})?`              our text, values inside
 *   consentLines([a, b], '\n\n')                     lines or paragraphs of consent text
 *   fitConsent({ message, detail }, 'modal')         measured; a `FittedConsent` or PROMPT_TOO_LARGE
 *
 * Only a `FittedConsent` reaches a modal (src/vscode/ui.ts) or the chat's approval card.
 */
import { CodedError, ErrorCode } from '../../protocol';
import { showInvisibles } from '../uiText';

declare const consentBrand: unique symbol;
/** Text built by `consent` or `consentLines`: values on one line each, invisible characters shown. */
export type ConsentText = string & { readonly [consentBrand]: true };

declare const fittedBrand: unique symbol;
/** Where a consent text is shown: VS Code's modal dialog, or the chat's approval card. */
export type ConsentSurface = 'modal' | 'chat';

/** A consent text measured for its surface and found to fit in full: the only thing a prompt shows. */
export interface FittedConsent {
  /** The one line naming what will happen (the dialog's title, the card's bold line). */
  readonly message: ConsentText;
  /** Everything else the user consents to (the change, the command, the arguments). */
  readonly detail: ConsentText;
  readonly surface: ConsentSurface;
  readonly [fittedBrand]: true;
}

interface SurfaceRows {
  /** Columns in a row of the title and of the detail (a wide character takes two). */
  titleColumns: number;
  detailColumns: number;
  /** Rows the title takes however short it is. */
  minTitleRows: number;
  maxTitleRows: number;
  /** Rows of title and detail together. */
  maxRows: number;
}

/**
 * The modal has no scroll bar, and a taller one runs off the window, buttons included. Its title is
 * 18 px type (about 36 columns a row, at least 48 px high), its detail 13 px type in rows of about
 * 50 columns, 22 px each; at 24 rows the dialog with its buttons fits a 900 px window
 * (test/e2e/consent-text.e2e.test.ts measures it). The chat card's detail scrolls (media/chat.css),
 * so there the bound is a size, not a screen, except for its first line, which does not scroll.
 */
export const CONSENT_SURFACES: Readonly<Record<ConsentSurface, SurfaceRows>> = {
  modal: { titleColumns: 36, detailColumns: 50, minTitleRows: 2, maxTitleRows: 24, maxRows: 24 },
  chat: { titleColumns: 50, detailColumns: 50, minTitleRows: 1, maxTitleRows: 10, maxRows: 400 },
};

const SURFACE_NAMES: Readonly<Record<ConsentSurface, string>> = { modal: 'permission dialog', chat: "chat's permission prompt" };

/**
 * A value longer than this fits no surface (the largest shows 400 rows of 50 columns), so only this
 * much of it is spelled out: the text it goes into is certain to be refused by `fitConsent` and is
 * never shown, and a megabyte argument costs no more than this to build.
 */
export const MAX_SHOWN_VALUE_CHARS = Math.max(...Object.values(CONSENT_SURFACES).map((s) => s.maxRows * s.detailColumns)) + 1;

/** Our literal text with values inside: each value on one line, invisible characters shown. */
export function consent(literals: TemplateStringsArray, ...values: readonly (string | number)[]): ConsentText {
  let s = literals[0];
  values.forEach((v, i) => {
    s += consentValue(String(v)) + literals[i + 1];
  });
  return s as ConsentText;
}

/** One value as consent text: one line (a line break shows as ⏎), invisible characters by code point. */
export function consentValue(value: string): ConsentText {
  const bounded = value.length > MAX_SHOWN_VALUE_CHARS ? value.slice(0, MAX_SHOWN_VALUE_CHARS) : value;
  return showInvisibles(bounded.replace(/\r\n/g, '\n')) as ConsentText;
}

/** A JSON value (a tool's arguments) as one line of consent text. */
export function consentJson(value: unknown): ConsentText {
  return consentValue(JSON.stringify(value) ?? 'null');
}

/** Lines (`\n`), paragraphs (`\n\n`) or sentences (` `) of consent text; absent parts are left out. */
export function consentLines(parts: readonly (ConsentText | undefined)[], separator: '\n' | '\n\n' | ' ' = '\n'): ConsentText {
  return parts.filter((p): p is ConsentText => p !== undefined && p !== '').join(separator) as ConsentText;
}

/** Rows `text` takes in rows of `columns`: each line at least one, a long line one per `columns`. */
export function consentRows(text: string, columns: number): number {
  let rows = 0;
  for (const line of text.split('\n')) rows += Math.max(1, Math.ceil(displayColumns(line) / columns));
  return rows;
}

/** The rows a consent text takes on `surface`, title and detail. */
export function measureConsent(text: { message: string; detail: string }, surface: ConsentSurface): { titleRows: number; rows: number } {
  const s = CONSENT_SURFACES[surface];
  const titleRows = Math.max(s.minTitleRows, consentRows(text.message, s.titleColumns));
  const detailRows = text.detail === '' ? 0 : consentRows(text.detail, s.detailColumns);
  return { titleRows, rows: titleRows + detailRows };
}

/**
 * The text, measured for `surface`, when it fits in full; otherwise PROMPT_TOO_LARGE saying how
 * large it is as shown, so the caller refuses whatever it was about to ask.
 */
export function fitConsent(text: { message: ConsentText; detail: ConsentText }, surface: ConsentSurface): FittedConsent {
  const s = CONSENT_SURFACES[surface];
  const { titleRows, rows } = measureConsent(text, surface);
  if (titleRows > s.maxTitleRows || rows > s.maxRows) {
    const what = titleRows > s.maxTitleRows ? `its first line takes ${titleRows} rows (at most ${s.maxTitleRows})` : `it takes ${rows} rows (at most ${s.maxRows})`;
    throw new CodedError(
      ErrorCode.PromptTooLarge,
      `the text to consent to does not fit the ${SURFACE_NAMES[surface]} in full as shown (invisible characters spelled out, rows of ${s.detailColumns} columns): ` +
        `${what}; it was refused, not cut, and nothing was shown or run`,
    );
  }
  return { message: text.message, detail: text.detail, surface } as FittedConsent;
}

// East Asian wide and fullwidth characters of the BMP take two columns (an emoji or another
// character beyond the BMP counts two already, as two UTF-16 code units).
const WIDE = /[\u1100-\u115F\u2E80-\u303E\u3041-\u33FF\u3400-\u4DBF\u4E00-\u9FFF\uA000-\uA4CF\uAC00-\uD7A3\uF900-\uFAFF\uFE30-\uFE4F\uFF00-\uFF60\uFFE0-\uFFE6]/g;

/** Never fewer than the line's UTF-16 code units, so a text that fits is also within the chat's message size. */
function displayColumns(line: string): number {
  return line.length + (line.match(WIDE)?.length ?? 0);
}
