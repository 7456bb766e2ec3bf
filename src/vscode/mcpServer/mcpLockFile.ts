/**
 * The MCP server's lock (discovery) file, so an agent CLI started in a terminal finds the window
 * whose workspace it works in: `<folder>/<port>.lock`, JSON, written 0600 exclusively in a private
 * folder and removed when the server stops (src/base/lockFile.ts). Whoever can read it can call
 * the tools through the permission gate, exactly as whoever can read the backend's discovery file.
 * A window that crashed leaves its file: each start and each discovery removes the files whose
 * process is gone, so discovery lists running windows only.
 */
import * as os from 'node:os';
import * as path from 'node:path';
import { liveLockFiles, writeLockFile } from '../../base/lockFile';

const WORDING = { file: 'MCP lock file', writer: 'editor window' };
const SUFFIX = '.lock';

export interface McpLockInfo {
  port: number;
  pid: number;
  /** The Streamable HTTP endpoint. */
  url: string;
  transport: 'streamable-http';
  /** Send as `Authorization: Bearer <token>`. */
  token: string;
  /** Absolute paths of the window's workspace folders. */
  workspaceFolders: string[];
  /** e.g. "Visual Studio Code 1.100.3". */
  ideName: string;
}

/** `~/.client-tools/mcp`: one folder per user, 0700. */
export function defaultMcpLockFolder(): string {
  return path.join(os.homedir(), '.client-tools', 'mcp');
}

/** Removes the stale lock files in `folder`, then writes `<folder>/<port>.lock`; returns the function that removes it. */
export function writeMcpLockFile(folder: string, info: McpLockInfo): { file: string; remove: () => void } {
  const file = path.join(folder, `${info.port}${SUFFIX}`);
  const remove = writeLockFile(file, info, WORDING);
  liveLockFiles(folder, SUFFIX, WORDING);
  return { file, remove };
}

/**
 * The running windows' MCP servers, from their lock files (stale ones removed on the way); with
 * `cwd`, only the windows one of whose workspace folders contains it, the deepest folder first.
 */
export function discoverMcpServers(folder: string = defaultMcpLockFolder(), cwd?: string): McpLockInfo[] {
  const found = liveLockFiles(folder, SUFFIX, WORDING).map((l) => l.info).filter(isMcpLockInfo);
  if (cwd === undefined) return found;
  const depth = (info: McpLockInfo) => Math.max(-1, ...info.workspaceFolders.filter((f) => contains(f, cwd)).map((f) => f.length));
  return found.filter((info) => depth(info) >= 0).sort((a, b) => depth(b) - depth(a));
}

function isMcpLockInfo(v: Record<string, unknown>): v is Record<string, unknown> & McpLockInfo {
  return typeof v.port === 'number' && typeof v.url === 'string' && v.transport === 'streamable-http' && typeof v.token === 'string'
    && Array.isArray(v.workspaceFolders) && v.workspaceFolders.every((f) => typeof f === 'string') && typeof v.ideName === 'string';
}

function contains(folder: string, target: string): boolean {
  const rel = path.relative(folder, target);
  return rel === '' || (!rel.startsWith('..') && !path.isAbsolute(rel));
}
