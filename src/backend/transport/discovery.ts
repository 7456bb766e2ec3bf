/**
 * The discovery file tells a local client where the backend listens and which token to send:
 * `{ "port", "token", "pid", "protocol" }`. How it is written safely (exclusive, no link followed,
 * 0600 in a private folder, stale files replaced, never blocking) is `src/base/lockFile.ts`, shared
 * with the extension's MCP lock file.
 */
import { writeLockFile } from '../../base/lockFile';
import { PROTOCOL } from '../../protocol';

export interface DiscoveryInfo {
  port: number;
  token: string;
  pid: number;
  protocol: string;
}

/** Writes the file; returns a function that removes it (safe to call more than once). */
export function writeDiscoveryFile(file: string, port: number, token: string): () => void {
  const info: DiscoveryInfo = { port, token, pid: process.pid, protocol: PROTOCOL };
  return writeLockFile(file, info, { file: 'discovery file', writer: 'backend' });
}
