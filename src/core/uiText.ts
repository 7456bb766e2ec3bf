/**
 * The door for peer text into VS Code's UI, plain-Node half (the VS Code half is src/vscode/ui.ts).
 *
 * VS Code renders `[label](command:…)` in notifications, progress titles and markdown as a link that
 * runs the command when clicked; quick picks and the status bar render `$(icon)`; and bidi overrides,
 * zero-width and control characters let a file name show as something else. Every string a backend,
 * a file name or another extension can influence therefore becomes `SafeText` here before it reaches
 * the UI, and src/vscode/ui.ts (the only place allowed to call `window.show*Message`, `withProgress`,
 * `showQuickPick`, `showInputBox`, `createTerminal`, status bar items and tree items; a lint rule and
 * test/unit/core/uiCallSites.test.ts hold that) accepts nothing else.
 *
 *   uiText(peer)                     one line: newline → ⏎, other invisibles → <U+XXXX>, links broken
 *   uiText(peer, { multiline: true }) the same but newlines kept (a modal's detail)
 *   safe`Deleted ${uiText(path)}.`    literal text of our own, with SafeText (or numbers) inside
 *
 * Nothing is removed: an invisible character is shown by its code point, link syntax is broken by a
 * thin space (`] (`, `command :`, `$ (`), so the user sees what the peer sent. The result is
 * idempotent: sanitising SafeText again gives the same text.
 */

declare const safeTextBrand: unique symbol;
/** Text that passed `uiText` (or is our own literal text, through `safe`): fit for any VS Code UI. */
export type SafeText = string & { readonly [safeTextBrand]: true };

export interface UiTextOptions {
  /** Keep `\n` (and `\t`) as they are, for a modal's detail; everything else is treated the same. Default false. */
  multiline?: boolean;
  /** Longer results end in `…`. Default 2,000 characters. */
  maxLength?: number;
  /**
   * For surfaces VS Code renders as plain text, the modal dialog's message and detail: invisible
   * characters are still shown by code point, but link and icon syntax are left exactly as sent, so
   * a command or an edit the user approves reads exactly as it will run (`$((6*7))`, `a[i](x)`).
   * test/e2e/ui-text.e2e.test.ts checks, in each VS Code the matrix runs, that the dialog renders
   * such text with no link. Default false.
   */
  verbatim?: boolean;
}

export const DEFAULT_UI_TEXT_CHARS = 2000;

// Controls, format characters (bidi overrides and isolates, zero-width, soft hyphen, tags), line and
// paragraph separators, lone surrogates and other default-ignorable code points: each can hide or
// reorder what the user reads.
const INVISIBLE = /[\p{Cc}\p{Cf}\p{Zl}\p{Zp}\p{Cs}\p{Default_Ignorable_Code_Point}]/gu;
// URI schemes VS Code opens from a link: `command:` runs a command; `vscode:`/`vscode-insiders:`
// hand a URI to an extension; `file:` opens a local file. A scheme is only one when its target
// follows the colon directly, so our own labels ("Command: npm test") stay as they are.
const LINK_SCHEME = /(?<![\p{L}\p{N}+.-])(command|vscode(?:-[a-z]+)?|file):(?=\S)/giu;
const THIN_SPACE = '\u2009';

/** Makes `text` fit for VS Code's UI; see the top of this file. */
export function uiText(text: string, options: UiTextOptions = {}): SafeText {
  const maxLength = options.maxLength ?? DEFAULT_UI_TEXT_CHARS;
  // Only what can show is read. Every character shows as one at least (a CR LF as one), so the
  // first 2 × maxLength + 2 decide the result; a text cut there is cut in the result too.
  const readable = 2 * maxLength + 2;
  const cut = text.length > readable;
  let s = cut ? text.slice(0, readable) : text;
  s = options.multiline ? s.replace(/\r\n/g, '\n') : s;
  s = showInvisibles(s, options.multiline === true);
  // Trailing white space is dropped only where the text ends (trimEnd: the same characters as \s, in linear time).
  if (options.verbatim) return truncate(cut ? s : s.trimEnd(), maxLength) as SafeText;
  // `[label](target)` and `[label]: target` are links only when "](" or "]:" touch: separate them.
  s = s.replace(/\]\s*([(:])/g, `]${THIN_SPACE}$1`);
  s = s.replace(LINK_SCHEME, (_m, scheme: string) => `${scheme}${THIN_SPACE}:`);
  // `<command:x>` is an autolink in markdown; broken by the scheme rule above, and `<` `>` stay visible.
  s = s.replace(/\$\s*\(/g, `$${THIN_SPACE}(`);
  return truncate(cut ? s : s.trimEnd(), maxLength) as SafeText;
}

/**
 * Invisible characters by code point (`<U+202E>`), a newline as `⏎`; with `multiline`, newlines and
 * tabs stay as they are. Removes nothing, adds no link breaking: the half of the door that
 * src/core/consent/consentText.ts shares.
 */
export function showInvisibles(text: string, multiline = false): string {
  return text.replace(INVISIBLE, (ch) => {
    if (multiline && (ch === '\n' || ch === '\t')) return ch;
    if (ch === '\n') return '⏎';
    return `<U+${ch.codePointAt(0)!.toString(16).toUpperCase().padStart(4, '0')}>`;
  });
}

/**
 * Our own literal text with safe parts inside: `safe\`Saved ${uiText(path)}.\``. The literal parts
 * are source code, so they pass as they are; anything interpolated must already be SafeText or a
 * number, which the type system checks.
 */
export function safe(literals: TemplateStringsArray, ...values: readonly (SafeText | number)[]): SafeText {
  let s = literals[0];
  values.forEach((v, i) => {
    s += String(v) + literals[i + 1];
  });
  return s as SafeText;
}

/** Joins safe parts (e.g. the lines of a modal's detail) with a literal separator. */
export function joinSafe(parts: readonly SafeText[], separator: '\n' | '\n\n' | ' · ' | ', ' | ' '): SafeText {
  return parts.join(separator) as SafeText;
}

/**
 * What ShowMessage shows: the backend wrote a message, so a markdown link becomes its label (a web
 * link keeps its address in brackets) before the door makes the rest safe.
 */
export function sanitizeForNotification(text: string, maxLength = DEFAULT_UI_TEXT_CHARS): SafeText {
  // A link shows as its label, which can be far shorter; beyond 8 × maxLength nothing is read.
  let s = text.length > 8 * maxLength ? text.slice(0, 8 * maxLength) : text;
  // Repeated because turning an inner link into its label can complete an outer one: [[a](x)](command:y).
  // Each run of white space is taken whole (`(?=(\s*))\2`, \4 and \5 are an atomic `\s*`): a run may be
  // followed only by what white space is not, and retrying shorter runs was quadratic.
  for (let pass = 0; pass < 5; pass++) {
    const before = s;
    s = s.replace(/\[([^[\]]*)\]\((?=(\s*))\2<?([^)>\s]*)>?(?:(?=(\s+))\4(?:"[^"]*"|'[^']*'))?(?=(\s*))\5\)/g, (_m, label: string, _lead: string, target: string) => {
      const shown = label.trim() || target;
      return /^https?:\/\//i.test(target) && shown !== target ? `${shown} (${target})` : shown;
    });
    if (s === before) break;
  }
  return uiText(s, { maxLength });
}

/** The end of a text that must fit in `max` characters, `…` in front (a path's end names the file). */
export function clipStart(text: string, max: number): string {
  return text.length <= max ? text : `…${text.slice(text.length - max + 1)}`;
}

function truncate(s: string, maxLength: number): string {
  if (s.length <= maxLength) return s;
  let cut = s.slice(0, Math.max(0, maxLength - 1));
  // Never leave half a surrogate pair (it would show as a replacement character).
  if (/[\uD800-\uDBFF]$/.test(cut)) cut = cut.slice(0, -1);
  return `${cut}…`;
}
