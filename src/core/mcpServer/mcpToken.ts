/** The MCP server's bearer token: 256 random bits, hex, new for every start of the server. */
import { randomBytes } from 'node:crypto';

export function newMcpToken(): string {
  return randomBytes(32).toString('hex');
}
