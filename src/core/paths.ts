/**
 * Path containment for every tool that takes a path.
 *
 * A path from a request is hostile until proven otherwise. `resolveWorkspacePath` refuses, with a
 * `CodedError` and before any I/O on the target: empty paths, NUL bytes, URIs with a scheme other
 * than `file:`, UNC paths (which make Windows send NTLM hashes to the named server), and anything
 * that lands outside every workspace folder once normalised (`..`, absolute paths, the
 * `/ws-evil` vs `/ws` prefix trick). It then resolves symlinks (the target itself, or its nearest
 * existing ancestor when it does not exist yet, following dangling links) and checks containment
 * again against the folders' own real paths, comparing with a trailing separator.
 *
 * Tools act on `ResolvedPath.absolute`, the real path that was checked. A prompt can stay open for
 * minutes, so the tools also bind the approval to the object on disk and re-check it at the moment
 * of I/O (src/core/fileIdentity.ts).
 */
import { lstat, readlink, realpath } from 'node:fs/promises';
import * as path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { CodedError, ErrorCode } from '../protocol';
import { globToRegExp } from './globs';
import type { WorkspaceFolder } from './host';

export interface ResolvedPath {
  /** What the request said. */
  input: string;
  /** The real absolute path (symlinks resolved) that passed the containment check. Act on this. */
  absolute: string;
  /**
   * Workspace-relative path with `/` separators, for messages and results: `src/a.ts`, `.` for the
   * folder itself. In a multi-root workspace it starts with the folder's name: `api/src/a.ts`.
   */
  relative: string;
  folder: WorkspaceFolder;
  /** Whether the target exists (as anything) right now. */
  exists: boolean;
  /** The target is a workspace folder itself. */
  isFolderRoot: boolean;
  /** The target, or the path as written, holds secrets or code-running configuration (see isProtectedPath). */
  protected: boolean;
}

export interface ResolveOptions {
  /** For tests: the platform whose path rules apply. Defaults to the running one. */
  platform?: NodeJS.Platform;
  /** The user's own protected globs (`clientTools.permissions.protectedPatterns`), added to the built-in list. */
  protectedPatterns?: readonly string[];
}

const MAX_PATH_LENGTH = 4096;
const MAX_SYMLINK_HOPS = 40;
/** A URI scheme has at least two characters, so a Windows drive letter (`C:`) is not one. */
const SCHEME = /^([A-Za-z][A-Za-z0-9+.-]+):/;

/**
 * Lexical checks only: no I/O. Returns the path as a file-system path (a `file:` URI converted).
 * Throws PATH_INVALID.
 */
export function checkPathSyntax(input: unknown, options: ResolveOptions = {}): string {
  if (typeof input !== 'string') throw invalid('the path must be a string');
  if (input.trim() === '') throw invalid('the path is empty');
  if (input.length > MAX_PATH_LENGTH) throw invalid(`the path is longer than ${MAX_PATH_LENGTH} characters`);
  if (input.includes('\0')) throw invalid('the path contains a NUL byte');
  if (isUncLike(input)) throw invalid(`UNC and network paths are not allowed: ${printablePath(input)}`);

  let fsPath = input;
  const scheme = SCHEME.exec(input)?.[1]?.toLowerCase();
  if (scheme !== undefined) {
    if (scheme !== 'file') throw invalid(`only files on this machine are allowed, not "${scheme}:" URIs`);
    let url: URL;
    try {
      url = new URL(input);
    } catch {
      throw invalid(`not a valid file URI: ${printablePath(input)}`);
    }
    if (url.hostname !== '' && url.hostname !== 'localhost') throw invalid(`file URIs naming another host are not allowed: ${printablePath(input)}`);
    try {
      fsPath = fileURLToPath(url);
    } catch (e) {
      throw invalid(`not a usable file URI: ${(e as Error).message}`);
    }
    if (fsPath.includes('\0')) throw invalid('the path contains a NUL byte');
    if (isUncLike(fsPath)) throw invalid(`UNC and network paths are not allowed: ${printablePath(input)}`);
  }
  if ((options.platform ?? process.platform) === 'win32' && /^[\\/]{2}|^[A-Za-z]:[^\\/]/.test(fsPath)) {
    throw invalid(`drive-relative and device paths are not allowed: ${printablePath(input)}`);
  }
  return fsPath;
}

/**
 * Resolves a path from a request against the workspace folders and proves it stays inside one.
 *
 * Relative paths: in a single-folder workspace they are relative to that folder. In a multi-root
 * workspace a first segment naming a folder selects it (`api/src/a.ts`); otherwise the first folder
 * holding the path wins, and the first folder when none does.
 *
 * Throws CodedError: PATH_INVALID, NO_WORKSPACE, PATH_OUTSIDE_WORKSPACE.
 */
export async function resolveWorkspacePath(input: unknown, folders: readonly WorkspaceFolder[], options: ResolveOptions = {}): Promise<ResolvedPath> {
  const fsPath = checkPathSyntax(input, options);
  const raw = input as string;
  if (folders.length === 0) throw new CodedError(ErrorCode.NoWorkspace, 'no workspace folder is open, so no path can be used');

  const roots = folders.map((folder) => ({ folder, lexical: path.resolve(folder.path) }));
  // The folders' own real paths (I/O on the folders, not on the target), so an absolute path
  // written through the folder's real location is recognised too.
  const realRoots = await Promise.all(roots.map(async (r) => ({ folder: r.folder, lexical: await realpathLoose(r.lexical) })));
  const candidate = await pickCandidate(fsPath, roots);
  const lexicalRoot = containing(candidate, roots) ?? containing(candidate, realRoots);
  if (!lexicalRoot) throw outside(raw);
  const lexicalRelative = path.relative(lexicalRoot.lexical, candidate);

  // Only now, with a path lexically inside a folder, touch the target.
  const real = await realpathLoose(candidate);
  const realRoot = containing(real, realRoots);
  if (!realRoot) throw new CodedError(ErrorCode.PathOutsideWorkspace, `${printablePath(raw)} leads outside the workspace through a symbolic link`);

  const rel = path.relative(realRoot.lexical, real);
  const relative = displayRelative(rel, realRoot.folder, folders.length > 1);
  const stat = await lstat(real).catch(() => undefined);
  const extra = options.protectedPatterns ?? [];
  return {
    input: raw,
    absolute: real,
    relative,
    folder: realRoot.folder,
    exists: stat !== undefined,
    isFolderRoot: rel === '',
    // A file with another hard link may be a secret's other name, one that no pattern can recognise.
    protected: isProtectedPath(rel, extra) || isProtectedPath(lexicalRelative, extra) || (stat?.isFile() === true && stat.nlink > 1),
  };
}

interface Root {
  folder: WorkspaceFolder;
  lexical: string;
}

async function pickCandidate(fsPath: string, roots: readonly Root[]): Promise<string> {
  if (path.isAbsolute(fsPath)) return path.resolve(fsPath);
  if (roots.length === 1) return path.resolve(roots[0].lexical, fsPath);
  const [first, ...rest] = fsPath.split(/[\\/]+/);
  const named = roots.find((r) => r.folder.name === first);
  if (named) return path.resolve(named.lexical, ...rest);
  for (const r of roots) {
    const candidate = path.resolve(r.lexical, fsPath);
    if (containing(candidate, [r]) && (await existsNoFollow(candidate))) return candidate;
  }
  return path.resolve(roots[0].lexical, fsPath);
}

/** The innermost root that contains `p` (or is `p`), comparing with a trailing separator. */
function containing(p: string, roots: readonly Root[]): Root | undefined {
  let best: Root | undefined;
  for (const r of roots) {
    if (isInside(p, r.lexical) && (!best || r.lexical.length > best.lexical.length)) best = r;
  }
  return best;
}

/** True when `p` is `root` or below it. `/ws-evil` is not below `/ws`. */
export function isInside(p: string, root: string): boolean {
  const a = comparable(p);
  const b = comparable(root);
  if (a === b) return true;
  const withSep = b.endsWith(path.sep) ? b : b + path.sep;
  return a.startsWith(withSep);
}

function comparable(p: string): string {
  // Default file systems on Windows and macOS ignore case; a different case is the same file there.
  return process.platform === 'win32' || process.platform === 'darwin' ? p.toLowerCase() : p;
}

/**
 * `realpath` that also works for paths that do not exist yet: resolves the nearest existing
 * ancestor and appends the rest. A dangling symlink is followed to where it points, because
 * creating or writing through it would land there. The ancestor is found by bisection over the
 * path's components (a prefix that resolves has parents that resolve), so a path of 2,000 missing
 * directories costs a dozen `realpath` calls, not 2,000 calls and their errors.
 */
export async function realpathLoose(p: string, hops = 0): Promise<string> {
  if (hops > MAX_SYMLINK_HOPS) throw new CodedError(ErrorCode.PathInvalid, 'too many levels of symbolic links');
  const whole = await realpathOrMissing(p);
  if (whole !== undefined) return whole;
  const root = path.parse(p).root;
  const parts = p.slice(root.length).split(path.sep).filter((part) => part !== '');
  // The first `resolved` components resolve to `real`; the first `missing` do not.
  let resolved = 0;
  let real = (await realpathOrMissing(root)) ?? root;
  let missing = parts.length;
  while (missing - resolved > 1) {
    const mid = (resolved + missing) >>> 1;
    const r = await realpathOrMissing(path.join(root, ...parts.slice(0, mid)));
    if (r === undefined) missing = mid;
    else [resolved, real] = [mid, r];
  }
  if (resolved === parts.length) return real;
  const first = path.join(real, parts[resolved]);
  const stat = await lstat(first).catch(() => undefined);
  if (stat?.isSymbolicLink()) {
    const target = await readlink(first);
    return realpathLoose(path.join(path.resolve(real, target), ...parts.slice(resolved + 1)), hops + 1);
  }
  return path.join(real, ...parts.slice(resolved));
}

/** `realpath(p)`, or undefined when `p` (or a directory on its way) does not exist; a symlink loop is PATH_INVALID. */
async function realpathOrMissing(p: string): Promise<string | undefined> {
  try {
    return await realpath(p);
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    if (code === 'ELOOP') throw new CodedError(ErrorCode.PathInvalid, 'too many levels of symbolic links');
    if (code === 'ENOENT' || code === 'ENOTDIR') return undefined;
    throw e;
  }
}

async function existsNoFollow(p: string): Promise<boolean> {
  return lstat(p).then(
    () => true,
    () => false,
  );
}

function displayRelative(rel: string, folder: WorkspaceFolder, multiRoot: boolean): string {
  const posix = rel.split(path.sep).join('/');
  if (!multiRoot) return posix === '' ? '.' : posix;
  return posix === '' ? folder.name : `${folder.name}/${posix}`;
}

/** `\\server\share`, `//server/share`, `\\?\…`, `\\.\…` in any mix of slashes. */
function isUncLike(p: string): boolean {
  return /^[\\/]{2}/.test(p);
}

// ── protected paths ───────────────────────────────────────────────────

/** Folders whose contents hold credentials or configuration that runs code. */
const PROTECTED_DIRS = new Set(['.git', '.vscode', '.ssh', '.gnupg', '.aws', '.azure', '.kube', '.docker', '.idea', '.cursor', '.devcontainer', '.husky']);
/** Exact file names (compared case-insensitively). */
const PROTECTED_FILES = new Set([
  '.npmrc', '.yarnrc', '.yarnrc.yml', '.pypirc', '.netrc', '.pgpass', '.git-credentials', '.gitconfig',
  '.envrc', '.mcp.json', 'mcp.json', 'mcp_config.json', 'claude_desktop_config.json',
  'id_rsa', 'id_dsa', 'id_ecdsa', 'id_ed25519', 'credentials', 'secrets.json',
  'credentials.json', 'kubeconfig', '.htpasswd', '_netrc',
  // Shell and REPL histories: commands typed with passwords and tokens in them.
  '.bash_history', '.zsh_history', '.sh_history', '.history', '.python_history', '.node_repl_history', '.psql_history', '.mysql_history',
]);
const PROTECTED_PATTERNS: readonly RegExp[] = [
  /^\.env(\..*)?$/, // .env, .env.local, .env.production
  /\.code-workspace$/,
  /\.(pem|key|p12|pfx|jks|keystore|ppk|asc|gpg)$/,
  /^id_[a-z0-9]+(\.pub)?$/,
  /\.(tfstate|tfvars)(\.[a-z0-9]+)?$/, // Terraform state and variables (.tfstate.backup, .tfvars.json)
  /^service-account.*\.json$/,
  /^kubeconfig(\..*)?$/,
];

/** PROTECTED_PATTERNS as name globs, for searches that filter by glob before reading (ripgrep). */
const PROTECTED_NAME_GLOBS = [
  '.env', '.env.*', '*.code-workspace', '*.{pem,key,p12,pfx,jks,keystore,ppk,asc,gpg}', 'id_*',
  '*.tfstate', '*.tfstate.*', '*.tfvars', '*.tfvars.*', 'service-account*.json', 'kubeconfig', 'kubeconfig.*',
];

/**
 * The protected list as gitignore-style globs (each matched case-insensitively, at any depth, a
 * folder's with everything in it), plus the user's own patterns: what a text search leaves out
 * before reading anything. `isProtectedPath` stays the authority and is applied to every result too
 * (it also catches hard links and names that only Windows equates).
 */
export function protectedGlobs(userPatterns: readonly string[] = []): string[] {
  const own = userPatterns.map((g) => g.trim()).filter((g) => g !== '' && !g.startsWith('!'));
  return [...PROTECTED_DIRS, ...PROTECTED_FILES, ...PROTECTED_NAME_GLOBS, ...own];
}

/**
 * True for a path (relative or absolute, any separators) that holds secrets or configuration that
 * can make the editor or a tool run code: `.env*`, anything in `.git/`, `.vscode/`, `.ssh/`,
 * `*.code-workspace`, keys and certificates, package-manager credentials, MCP server configs,
 * cloud and cluster credentials (Terraform state, service-account keys, kubeconfig), shell
 * histories, and whatever the user's own `userPatterns` name. Tools force a permission prompt for these even when the tool itself needs none.
 *
 * Each segment is compared case-insensitively with trailing dots and spaces removed, because
 * Windows opens `.ENV. ` as `.env`.
 */
export function isProtectedPath(p: string, userPatterns: readonly string[] = []): boolean {
  const segments = p.split(/[\\/]+/).map(normaliseSegment).filter((s) => s !== '' && s !== '.');
  if (segments.length === 0) return false;
  const name = segments[segments.length - 1];
  if (segments.slice(0, -1).some((s) => PROTECTED_DIRS.has(s))) return true;
  if (PROTECTED_DIRS.has(name)) return true;
  if (PROTECTED_FILES.has(name)) return true;
  if (PROTECTED_PATTERNS.some((re) => re.test(name))) return true;
  return userPatterns.some((glob) => matchesUserPattern(glob, segments));
}

/**
 * A user's glob, gitignore-like: without a `/` it matches a file or folder name at any depth
 * (`*.secret`, `vault`); with one, the path from the workspace folder (`config/prod/**`), or from
 * any depth when it starts with `**` + `/`. Case-insensitive, like the built-in list. A match on a
 * folder covers everything below it.
 */
function matchesUserPattern(glob: string, segments: readonly string[]): boolean {
  const g = glob.trim().replace(/^\/+|\/+$/g, '').toLowerCase();
  if (g === '') return false;
  if (!g.includes('/')) {
    const re = globToRegExp(g);
    return segments.some((s) => re.test(s));
  }
  const re = globToRegExp(g);
  // Any leading part of the path: a pattern naming a folder protects what is in it.
  for (let end = 1; end <= segments.length; end++) if (re.test(segments.slice(0, end).join('/'))) return true;
  return false;
}

function normaliseSegment(segment: string): string {
  // Drop an NTFS alternate data stream suffix (".env::$DATA") and Windows-ignored trailing dots/spaces.
  const withoutStream = segment.includes(':') && !/^[A-Za-z]:$/.test(segment) ? segment.slice(0, segment.indexOf(':')) : segment;
  return withoutStream.replace(/[. ]+$/, (m) => (withoutStream === m ? m : '')).toLowerCase();
}

/** The `file:` URI string of a folder, for `hello`. */
export function folderUri(folder: WorkspaceFolder): string {
  return folder.uri ?? pathToFileURL(folder.path).href;
}

function invalid(message: string): CodedError {
  return new CodedError(ErrorCode.PathInvalid, message);
}

function outside(input: string): CodedError {
  return new CodedError(ErrorCode.PathOutsideWorkspace, `${printablePath(input)} is outside the workspace folders`);
}

/** A path (or URI) from a peer as an error message names it: control characters as `?`, at most 200 characters. */
export function printablePath(s: string): string {
  const printable = s.replace(/[\u0000-\u001f\u007f]/g, '?');
  return printable.length > 200 ? `${printable.slice(0, 200)}…` : printable;
}
