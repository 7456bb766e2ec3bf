/**
 * A tool's identity: where it comes from and its name there. Policies, remembered grants, prompts,
 * call records and the Tool Groups view key on it, never on the model-facing name alone, so a tool
 * of one MCP server can never answer for another's, whatever names the two are given.
 *
 * The key of a built-in tool is its name (built-in names are fixed, and what policies and grants
 * were stored under before identities); every other key starts with its source's kind and a colon,
 * which no function name contains, so the kinds cannot meet.
 */

export type ToolSource =
  /** The extension's own groups (src/tools/). */
  | { kind: 'builtin' }
  /** A group another extension registered through the API; the group's name is its source. */
  | { kind: 'extension'; group: string }
  /** A language-model tool of VS Code (`vscode.lm.tools`), by VS Code's name for it. */
  | { kind: 'vscode' }
  /** A tool of one of the user's MCP servers, by the server's name in the configuration. */
  | { kind: 'mcp'; server: string }
  /** An ACP agent's own tool (its permission requests), by the agent's name and the call's kind. */
  | { kind: 'agent'; agent: string };

export interface ToolIdentity {
  source: ToolSource;
  /** The tool's name where it comes from (an MCP server's own tool name), not the model-facing one. */
  tool: string;
}

/** The string policies and grants are stored under. */
export function toolKey(id: ToolIdentity): string {
  switch (id.source.kind) {
    case 'builtin':
      return id.tool;
    case 'extension':
      return `extension:${JSON.stringify([id.source.group, id.tool])}`;
    case 'vscode':
      return `vscode:${JSON.stringify([id.tool])}`;
    case 'mcp':
      return `mcp:${JSON.stringify([id.source.server, id.tool])}`;
    case 'agent':
      return `agent:${JSON.stringify([id.source.agent, id.tool])}`;
  }
}

/** Whether a stored key is a bare name: a built-in tool's key, or what versions before identities stored for any tool. */
export function isBareKey(key: string): boolean {
  return !key.includes(':');
}

/** How prompts and the Tool Groups view name where a tool comes from (peer text: pass it through the sanitiser). */
export function describeSource(source: ToolSource): string {
  switch (source.kind) {
    case 'builtin':
      return 'built into Client Tools';
    case 'extension':
      return `the extension group "${source.group}"`;
    case 'vscode':
      return 'a VS Code language-model tool';
    case 'mcp':
      return `the MCP server "${source.server}"`;
    case 'agent':
      return `the agent "${source.agent}"`;
  }
}
