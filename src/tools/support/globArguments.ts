/**
 * Globs from a model's arguments (FindFiles' pattern, SearchText's and ListDirectory's include and
 * exclude lists): relative to a workspace folder, so anything that can only be a mistake or an
 * attempt to leave the workspace is refused before any search runs.
 */
import { CodedError, ErrorCode } from '../../protocol';

/** Longest glob accepted, and most globs in one list. */
export const MAX_GLOB_CHARS = 1000;
export const MAX_GLOBS = 32;

/** The glob with `\` as `/` and a leading `./` dropped; refuses NUL, empty, absolute, `..` segments and a leading `!` (which would flip an include into an exclude). */
export function checkRelativeGlob(glob: string, argument: string): string {
  const bad = (why: string) => new CodedError(ErrorCode.InvalidArguments, `${argument}: ${why}`);
  if (glob.includes('\0')) throw bad('contains a NUL byte');
  const p = glob.trim().replace(/\\/g, '/');
  if (p === '') throw bad('is empty');
  if (p.length > MAX_GLOB_CHARS) throw bad(`is longer than ${MAX_GLOB_CHARS} characters`);
  if (p.startsWith('/') || /^[A-Za-z]:/.test(p)) throw bad('must be relative to the workspace, not absolute');
  if (p.split('/').includes('..')) throw bad('must not contain ".." segments');
  if (p.startsWith('!')) throw bad('must not start with "!"; list what to leave out under exclude');
  return p.replace(/^\.\//, '');
}

/** Every glob of an optional list checked (`include[2]: …` names the bad one). */
export function checkGlobList(globs: readonly string[] | undefined, argument: string): string[] {
  return (globs ?? []).map((g, i) => checkRelativeGlob(g, `${argument}[${i}]`));
}
