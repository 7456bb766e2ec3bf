/** The MCP lock file of this window (the extension host's process), where the editor's MCP server writes its port and token. */
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import type { McpLockInfo } from '../../../src/vscode/mcpServer/mcpLockFile';

export const LOCK_FOLDER = path.join(os.homedir(), '.client-tools', 'mcp');

/** This window's lock file, if there is one. */
export function ownLock(): McpLockInfo | undefined {
  if (!fs.existsSync(LOCK_FOLDER)) return undefined;
  for (const name of fs.readdirSync(LOCK_FOLDER).filter((n) => n.endsWith('.lock'))) {
    const info = JSON.parse(fs.readFileSync(path.join(LOCK_FOLDER, name), 'utf8')) as McpLockInfo;
    if (info.pid === process.pid) return info;
  }
  return undefined;
}
