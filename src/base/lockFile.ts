/**
 * A small JSON file that tells local programs where one of our servers listens and which token to
 * send (the backend's discovery file, the extension's MCP lock file). It is created exclusively,
 * without following a link (`O_EXCL | O_NOFOLLOW`), with mode 0600, in a folder created 0700; a
 * folder that another user owns or that group or others may write is refused, since whoever can
 * write there can plant or swap the file. A file left by a process that no longer runs is replaced;
 * anything else already at the path is an error that says what it is. Nothing here ever opens a
 * path in a way that can block (a FIFO at the path would hang `open()`). A folder of
 * such files (one per window) is swept of the files whose writer no longer runs, so discovery never
 * offers a dead window.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';

/** What every such file holds at least: the writer's pid and port. */
export interface LockInfo {
  pid: number;
  port: number;
}

/** How errors name the file and its writer ("discovery file", "backend"). */
export interface LockWording {
  file: string;
  writer: string;
}

/** Larger than any such file; a bigger one is not ours. */
const MAX_LOCK_BYTES = 64 * 1024;
const CREATE_FLAGS = fs.constants.O_WRONLY | fs.constants.O_CREAT | fs.constants.O_EXCL | (fs.constants.O_NOFOLLOW ?? 0);
const READ_FLAGS = fs.constants.O_RDONLY | (fs.constants.O_NOFOLLOW ?? 0) | (fs.constants.O_NONBLOCK ?? 0);

/** Writes `info` as JSON; returns a function that removes the file (safe to call more than once). */
export function writeLockFile(file: string, info: LockInfo, wording: LockWording): () => void {
  const dir = path.dirname(file);
  fs.mkdirSync(dir, { recursive: true, mode: 0o700 });
  checkFolder(dir, wording);
  const data = `${JSON.stringify(info)}\n`;
  try {
    create(file, data);
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code !== 'EEXIST') throw e;
    const found = inspect(file, wording);
    if (found.kind !== 'stale') throw new Error(`The ${wording.file} ${file} already exists: ${found.problem}`);
    fs.unlinkSync(file);
    create(file, data);
  }
  let removed = false;
  return () => {
    if (removed) return;
    removed = true;
    // Only remove our own file: another process may have replaced it after we went stale.
    const current = readLockFile(file);
    if (current?.pid !== process.pid || current.port !== info.port) return;
    try {
      fs.unlinkSync(file);
    } catch {
      // Already gone: nothing of ours to remove.
    }
  };
}

/** A lock file found in a folder, with the JSON it holds. */
export interface FoundLock {
  file: string;
  info: Record<string, unknown> & { pid: number };
}

/**
 * The lock files in `dir` whose name ends in `suffix` and whose writer still runs; those whose writer
 * is gone (a crash left them) are removed on the way. Only regular files of ours are read or removed:
 * a link, a folder, another user's file or one that is not a lock file is left alone and not listed.
 * A folder that is not ours or that others may write is not read at all (nothing in it can be trusted).
 */
export function liveLockFiles(dir: string, suffix: string, wording: LockWording): FoundLock[] {
  let names: string[];
  try {
    checkFolder(dir, wording);
    names = fs.readdirSync(dir);
  } catch {
    return [];
  }
  const live: FoundLock[] = [];
  for (const name of names.filter((n) => n.endsWith(suffix)).sort()) {
    const file = path.join(dir, name);
    const before = ownRegularFile(file);
    if (!before) continue;
    const info = readLockFile(file);
    if (!info) continue;
    if (isRunning(info.pid)) {
      live.push({ file, info });
      continue;
    }
    // Remove it only if it is still the file that was read: a window may have replaced it meanwhile.
    const now = ownRegularFile(file);
    if (now?.ino !== before.ino || now.dev !== before.dev) continue;
    try {
      fs.unlinkSync(file);
    } catch {
      // Gone already.
    }
  }
  return live;
}

function ownRegularFile(file: string): fs.Stats | undefined {
  try {
    const st = fs.lstatSync(file);
    const uid = process.getuid?.();
    return st.isFile() && (uid === undefined || st.uid === uid) ? st : undefined;
  } catch {
    return undefined;
  }
}

/** The folder must be ours and writable by nobody else (POSIX; Windows has neither bit). */
function checkFolder(dir: string, wording: LockWording): void {
  const st = fs.statSync(dir);
  if (!st.isDirectory()) throw new Error(`The ${wording.file} folder ${dir} is not a folder.`);
  if (process.platform === 'win32') return;
  const uid = process.getuid?.();
  if (uid !== undefined && st.uid !== uid) {
    throw new Error(`The ${wording.file} folder ${dir} belongs to another user (uid ${st.uid}, not ${uid}); whoever owns it can swap the file. Use a folder of your own.`);
  }
  if ((st.mode & 0o022) !== 0) {
    throw new Error(`The ${wording.file} folder ${dir} may be written by ${st.mode & 0o002 ? 'every user' : 'its group'} (mode ${(st.mode & 0o777).toString(8).padStart(4, '0')}); anyone who can write there can plant or swap the file. Run chmod 700 on it or use another folder.`);
  }
}

function create(file: string, data: string): void {
  const fd = fs.openSync(file, CREATE_FLAGS, 0o600);
  try {
    fs.writeFileSync(fd, data);
  } finally {
    fs.closeSync(fd);
  }
}

type Found = { kind: 'stale' } | { kind: 'refused'; problem: string };

/** What is at the path already, looked at without following a link or blocking. */
function inspect(file: string, wording: LockWording): Found {
  let st: fs.Stats;
  try {
    st = fs.lstatSync(file);
  } catch {
    return { kind: 'refused', problem: 'something was there a moment ago and is gone now; try again.' };
  }
  if (st.isSymbolicLink()) return { kind: 'refused', problem: 'it is a symbolic link, which is never followed; remove it or choose another path.' };
  if (!st.isFile()) return { kind: 'refused', problem: `it is ${describeType(st)}, not a ${wording.file}; remove it or choose another path.` };
  const uid = process.getuid?.();
  if (uid !== undefined && st.uid !== uid) return { kind: 'refused', problem: `the file there belongs to another user (uid ${st.uid}); choose another path.` };
  const info = readLockFile(file);
  if (!info) return { kind: 'refused', problem: `the file there is not a ${wording.file} (no JSON with a pid); remove it or choose another path.` };
  if (info.pid === process.pid) return { kind: 'refused', problem: `this process already wrote it (a second ${wording.writer} in the same process needs its own path).` };
  if (isRunning(info.pid)) return { kind: 'refused', problem: `it belongs to a running ${wording.writer} (pid ${info.pid}); choose another path or stop that ${wording.writer}.` };
  return { kind: 'stale' };
}

/** The JSON in `file`, if it is a regular file holding an object with a pid; never blocks, never follows a link. */
export function readLockFile(file: string): Record<string, unknown> & { pid: number } | undefined {
  let fd: number;
  try {
    fd = fs.openSync(file, READ_FLAGS);
  } catch {
    return undefined;
  }
  try {
    const st = fs.fstatSync(fd);
    if (!st.isFile() || st.size > MAX_LOCK_BYTES) return undefined;
    const buffer = Buffer.alloc(st.size);
    const n = fs.readSync(fd, buffer, 0, st.size, 0);
    const parsed = JSON.parse(buffer.subarray(0, n).toString('utf8')) as Record<string, unknown>;
    const pid = parsed.pid;
    if (typeof pid !== 'number' || !Number.isInteger(pid) || pid <= 0) return undefined;
    return { ...parsed, pid };
  } catch {
    return undefined;
  } finally {
    fs.closeSync(fd);
  }
}

function isRunning(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (e) {
    // EPERM: it runs, as another user.
    return (e as NodeJS.ErrnoException).code !== 'ESRCH';
  }
}

function describeType(st: fs.Stats): string {
  if (st.isDirectory()) return 'a folder';
  if (st.isFIFO()) return 'a FIFO (named pipe)';
  if (st.isSocket()) return 'a socket';
  if (st.isCharacterDevice() || st.isBlockDevice()) return 'a device';
  return 'not a regular file';
}
