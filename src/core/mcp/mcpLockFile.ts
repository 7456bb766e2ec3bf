/**
 * The MCP server's lock (discovery) file, so an agent CLI started in a terminal finds the window
 * whose workspace it works in: `<folder>/<port>.lock`, JSON, written 0600 exclusively in a private
 * folder and removed when the server stops (src/base/lockFile.ts). Whoever can read it can call
 * the tools through the permission gate, exactly as whoever can read the backend's discovery file.
 */
import * as os from 'node:os';
import * as path from 'node:path';
import { writeLockFile } from '../../base/lockFile';

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

/** Writes `<folder>/<port>.lock`; returns the function that removes it. */
export function writeMcpLockFile(folder: string, info: McpLockInfo): { file: string; remove: () => void } {
  const file = path.join(folder, `${info.port}.lock`);
  return { file, remove: writeLockFile(file, info, { file: 'MCP lock file', writer: 'editor window' }) };
}
