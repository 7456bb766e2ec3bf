/**
 * Consent bound to the object the user saw, checked again at the moment of I/O. A path proven inside
 * the workspace before the prompt can lead elsewhere by the time the approved action runs (a file or
 * folder on it swapped for a link). `bindTarget` records what the user approved: the real path, the
 * device and inode of every folder from the workspace folder's real root down, the file's identity
 * (device, inode, size, mtime) and, for edits and diffs, a SHA-256 of the text reviewed.
 * `verifyTarget`, right before the I/O, walks the components again with `lstat` and refuses with
 * TARGET_CHANGED when any is now a link, missing or another object. The residual race (the host
 * opens the path by name, Node has no `openat`) is in docs/SECURITY.md: reads are checked
 * again afterwards, writes and deletes run straight after the check.
 */
import { createHash } from 'node:crypto';
import { lstat, realpath } from 'node:fs/promises';
import type { BigIntStats } from 'node:fs';
import * as path from 'node:path';
import { CodedError, ErrorCode } from '../protocol';
import { toLf } from './lineDiff';
import type { ResolvedPath } from './paths';

/** Who an object on disk is, as `lstat` sees it (bigint, so 64-bit inodes compare exactly). */
export interface ObjectIdentity {
  dev: bigint;
  ino: bigint;
  kind: 'file' | 'directory' | 'other';
}

export interface FileIdentity extends ObjectIdentity {
  size: bigint;
  mtimeNs: bigint;
}

/** What the user approved, for `verifyTarget` to compare with right before acting. */
export interface BoundTarget {
  /** The real path the user approved (ResolvedPath.absolute). */
  real: string;
  /** Workspace-relative, for messages. */
  relative: string;
  /** The workspace folder's real path: the walk starts here. */
  root: string;
  /**
   * Every folder from `root` (included) down to the target's parent; undefined for a folder that
   * did not exist (a file to be created in a new folder), which must then still not exist.
   */
  folders: (ObjectIdentity | undefined)[];
  /** The target itself, or undefined when it did not exist (a file to be created). */
  target?: FileIdentity;
}

/**
 * Records the identity of `resolved` and of every folder on its path. Call it in `prepare`, before
 * the prompt. Throws TARGET_CHANGED when the path is already not what was resolved (a race with
 * the resolution itself).
 */
export async function bindTarget(resolved: ResolvedPath): Promise<BoundTarget> {
  const root = await realpath(resolved.folder.path);
  const components = componentsBelow(root, resolved.absolute, resolved.relative);
  const stats = await Promise.all([root, ...components.slice(0, -1)].map(lstatOrUndefined));
  const folders: (ObjectIdentity | undefined)[] = [];
  for (const s of stats) {
    // Below a folder that does not exist nothing exists either (whatever a racing lstat saw).
    const present = folders.includes(undefined) ? undefined : s;
    if (present && !present.isDirectory()) throw changed(resolved.relative);
    folders.push(present ? objectIdentity(present) : undefined);
  }
  const last = components.length === 0 ? undefined : components[components.length - 1];
  const s = last === undefined ? await lstat(root, { bigint: true }) : await lstatOrUndefined(last);
  if (s?.isSymbolicLink()) throw changed(resolved.relative);
  return { real: resolved.absolute, relative: resolved.relative, root, folders, target: s ? fileIdentity(s) : undefined };
}

export interface VerifyOptions {
  /**
   * Also require a file's size and mtime to be unchanged (default true). Off where only the
   * object matters and the file may legitimately be growing (a log read without any prompt).
   */
  sameContent?: boolean;
}

/**
 * Checks, without following any link, that the target and every folder on its path are the same
 * objects as when the user approved; for a file, also the same size and mtime. Throws
 * TARGET_CHANGED otherwise. Call it right before the I/O, and again after a read.
 */
export async function verifyTarget(bound: BoundTarget, options: VerifyOptions = {}): Promise<void> {
  const components = componentsBelow(bound.root, bound.real, bound.relative);
  const dirs = [bound.root, ...components.slice(0, -1)];
  // All at once: the check is then as short as one lstat, which narrows the window a swap could use.
  const [targetStat, ...dirStats] = await Promise.all([components.length === 0 ? bound.root : bound.real, ...dirs].map(lstatOrUndefined));
  for (let i = 0; i < dirs.length; i++) {
    const s = dirStats[i];
    const expected = bound.folders[i];
    if (expected === undefined) {
      // It did not exist: nothing may have appeared in its place (a link above all).
      if (s) throw changed(bound.relative);
      break;
    }
    if (!s || !s.isDirectory() || !sameObject(objectIdentity(s), expected)) throw changed(bound.relative);
  }
  const s = targetStat;
  if (!bound.target) {
    if (s) throw changed(bound.relative);
    return;
  }
  if (!s || s.isSymbolicLink()) throw changed(bound.relative);
  const now = fileIdentity(s);
  if (!sameObject(now, bound.target)) throw changed(bound.relative);
  // A folder's size and mtime change with its entries; only a file's content is pinned by them.
  if (options.sameContent !== false && now.kind === 'file' && (now.size !== bound.target.size || now.mtimeNs !== bound.target.mtimeNs)) throw changed(bound.relative);
}

/** SHA-256 of a text with its line endings as `\n` (the editor may normalise them; that is not a change), hex; binds an edit or a diff to the text the user reviewed. */
export function textHash(text: string): string {
  return createHash('sha256').update(toLf(text)).digest('hex');
}

/** Throws TARGET_CHANGED when `text` is not the text whose hash is `expected`. */
export function verifyTextHash(bound: BoundTarget, expected: string, text: string): void {
  if (textHash(text) !== expected) throw changed(bound.relative, 'its content changed since you reviewed it');
}

export function changed(relative: string, why = 'it, or a folder on its path, was replaced, linked or changed since you approved'): CodedError {
  return new CodedError(ErrorCode.TargetChanged, `${relative}: ${why}; nothing was done`);
}

/** The absolute paths from `root` (excluded) down to `real`; empty when `real` is `root`. */
function componentsBelow(root: string, real: string, relative: string): string[] {
  const rel = path.relative(root, real);
  if (rel === '') return [];
  if (rel.startsWith('..') || path.isAbsolute(rel)) throw changed(relative);
  const out: string[] = [];
  let at = root;
  for (const segment of rel.split(path.sep)) {
    at = path.join(at, segment);
    out.push(at);
  }
  return out;
}

async function lstatOrUndefined(p: string): Promise<BigIntStats | undefined> {
  try {
    return await lstat(p, { bigint: true });
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    if (code === 'ENOENT' || code === 'ENOTDIR') return undefined;
    throw e;
  }
}

function objectIdentity(s: BigIntStats): ObjectIdentity {
  return { dev: s.dev, ino: s.ino, kind: s.isFile() ? 'file' : s.isDirectory() ? 'directory' : 'other' };
}

function fileIdentity(s: BigIntStats): FileIdentity {
  return { ...objectIdentity(s), size: s.size, mtimeNs: s.mtimeNs };
}

function sameObject(a: ObjectIdentity, b: ObjectIdentity | undefined): boolean {
  return b !== undefined && a.dev === b.dev && a.ino === b.ino && a.kind === b.kind;
}
