/**
 * The discovery file tells a local client where the backend listens and which token to send:
 * `{ "port", "token", "pid", "protocol" }`. It is created exclusively (flag `wx`) with mode 0600 in a
 * folder created 0700, so no other user can read the token or plant a file first. A file left by a
 * process that no longer runs is replaced; one owned by a live process is an error.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import { PROTOCOL } from '../protocol';

export interface DiscoveryInfo {
  port: number;
  token: string;
  pid: number;
  protocol: string;
}

/** Writes the file; returns a function that removes it (safe to call more than once). */
export function writeDiscoveryFile(file: string, port: number, token: string): () => void {
  const info: DiscoveryInfo = { port, token, pid: process.pid, protocol: PROTOCOL };
  fs.mkdirSync(path.dirname(file), { recursive: true, mode: 0o700 });
  const data = `${JSON.stringify(info)}\n`;
  try {
    fs.writeFileSync(file, data, { mode: 0o600, flag: 'wx' });
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code !== 'EEXIST' || !isStale(file)) throw describe(e, file);
    fs.unlinkSync(file);
    fs.writeFileSync(file, data, { mode: 0o600, flag: 'wx' });
  }
  let removed = false;
  return () => {
    if (removed) return;
    removed = true;
    try {
      // Only remove our own file: another backend may have replaced it after we went stale.
      const current = JSON.parse(fs.readFileSync(file, 'utf8')) as Partial<DiscoveryInfo>;
      if (current.pid === process.pid && current.port === port) fs.unlinkSync(file);
    } catch {
      // Already gone or unreadable: nothing of ours to remove.
    }
  };
}

/** A discovery file is stale when the process it names is gone. */
function isStale(file: string): boolean {
  let pid: unknown;
  try {
    pid = (JSON.parse(fs.readFileSync(file, 'utf8')) as Partial<DiscoveryInfo>).pid;
  } catch {
    return false;
  }
  if (typeof pid !== 'number' || !Number.isInteger(pid) || pid <= 0) return false;
  if (pid === process.pid) return false;
  try {
    process.kill(pid, 0);
    return false;
  } catch (e) {
    return (e as NodeJS.ErrnoException).code === 'ESRCH';
  }
}

function describe(e: unknown, file: string): Error {
  if ((e as NodeJS.ErrnoException).code === 'EEXIST') {
    return new Error(`The discovery file ${file} already exists and belongs to a running backend; choose another path or stop that backend.`);
  }
  return e instanceof Error ? e : new Error(String(e));
}
