/**
 * Which inline code spans of an answer name a file: `src/a.ts`, `notes.md`, `src/a.ts:12`. Only a
 * guess from the text (the view cannot see the workspace); the host decides whether the path is a
 * workspace file when it is clicked. Patterns are linear (no nested quantifiers) since the text is
 * a model's.
 */

/** Longest span looked at; a longer one is not a path anyone clicks. */
const MAX_PATH_CHARS = 300;
/** Characters a path in an answer does not contain (spaces, quotes, brackets, calls, globs). */
const NOT_IN_PATH = /[\s"'`<>|*?()[\]{},;=!$&^%]/;
const LINE_SUFFIX = /:(\d{1,7})$/;
const SCHEME = /^[A-Za-z][A-Za-z0-9+.-]+:/;
/** A bare name counts as a file only with an extension files commonly have (not `console.log`-like member access). */
const FILE_EXTENSION = /\.(?:[cm]?[jt]sx?|json|jsonc|md|markdown|txt|py|rs|go|java|kt|c|h|cc|cpp|hpp|cs|rb|php|swift|html?|css|scss|less|vue|svelte|ya?ml|toml|xml|ini|cfg|conf|sh|bash|ps1|sql|csv|lock|png|jpe?g|gif|svg|webp|pdf)$/i;

export interface FilePath {
  path: string;
  /** 1-based line from a `:12` suffix. */
  line?: number;
}

export function filePathIn(code: string): FilePath | undefined {
  const text = code.trim();
  if (text.length === 0 || text.length > MAX_PATH_CHARS || NOT_IN_PATH.test(text)) return undefined;
  const lineMatch = LINE_SUFFIX.exec(text);
  const path = lineMatch ? text.slice(0, lineMatch.index) : text;
  if (path.length === 0 || SCHEME.test(path) || path.includes(':') || path.includes('\\\\')) return undefined;
  const name = path.slice(path.lastIndexOf('/') + 1);
  if (name === '' || name === '.' || name === '..') return undefined;
  if (!path.includes('/') && !FILE_EXTENSION.test(name)) return undefined;
  if (path.includes('/') && !/[A-Za-z0-9_]/.test(name)) return undefined;
  const line = lineMatch ? Number(lineMatch[1]) : undefined;
  return line !== undefined && line > 0 ? { path, line } : { path };
}
