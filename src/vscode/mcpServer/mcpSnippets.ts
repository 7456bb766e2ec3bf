/**
 * Ready configuration for common MCP clients, for the "Copy MCP Configuration" command. Each holds
 * the token (the clients have no other way to send it), so they go to the clipboard only, never to
 * a log. They are good while this window's server runs: the port and token are new at each start.
 */
export type McpSnippetKind = 'claudeCode' | 'mcpJson' | 'geminiCli';

export const MCP_SNIPPET_KINDS: readonly { kind: McpSnippetKind; label: string; detail: string }[] = [
  { kind: 'claudeCode', label: 'Claude Code', detail: 'a `claude mcp add --transport http …` command' },
  { kind: 'mcpJson', label: 'mcp.json (generic)', detail: '`mcpServers` entry with type http, url and headers (Cursor, Copilot CLI, …)' },
  { kind: 'geminiCli', label: 'Gemini CLI', detail: '`mcpServers` entry for ~/.gemini/settings.json (httpUrl and headers)' },
];

const NAME = 'client-tools';

export function mcpSnippet(kind: McpSnippetKind, url: string, token: string): string {
  const headers = { Authorization: `Bearer ${token}` };
  switch (kind) {
    case 'claudeCode':
      return `claude mcp add --transport http ${NAME} ${url} --header "Authorization: Bearer ${token}"`;
    case 'mcpJson':
      return JSON.stringify({ mcpServers: { [NAME]: { type: 'http', url, headers } } }, null, 2);
    case 'geminiCli':
      return JSON.stringify({ mcpServers: { [NAME]: { httpUrl: url, headers } } }, null, 2);
  }
}
