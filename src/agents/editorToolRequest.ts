/**
 * Whether an agent's permission request is for a tool of the editor's own MCP server, the one
 * passed in `session/new` for this session under its random name (agentMcp.ts). Such a call comes
 * back to the editor over MCP with its arguments, and the permission gate decides it there as any
 * call (it asks where its rules ask, and a denial's reason reaches the model in the tool's result),
 * so the agent's request is answered allow-once without a prompt of its own: one decision per
 * action, bound to the arguments the call really has. Recognised only in the shapes the agents
 * send, from fields the agent sets and the model cannot write (a shell command or a description is
 * never taken for a tool of the server), and always of kind `other`:
 * - Claude Code (claude-code-acp, claude-agent-acp): title exactly `mcp__<server>__<tool>`.
 * - Gemini CLI: title exactly `<tool> (<server> MCP Server)`, and a tool call id that
 *   starts with `mcp_<server>_<tool>__` (Gemini builds it from the tool's registered name).
 * - Codex: `rawInput.server_name` is the server and `rawInput.request._meta.codex_approval_kind` is
 *   `mcp_tool_call`.
 */
import type { AgentToolCall } from './agentCallbacks';

/** A tool name as the editor's MCP server lists them: no spaces, no brackets. */
const TOOL_NAME = /^[A-Za-z0-9_.-]{1,128}$/;

export interface EditorToolRequest {
  /** The tool, where the request names it (Codex says it only in a sentence). */
  tool?: string;
}

/** What a permission request says of the editor's MCP server named `server`: undefined when it is not for that server. */
export function editorToolRequestOf(call: AgentToolCall, server: string): EditorToolRequest | undefined {
  if (call.kind !== 'other') return undefined;
  const codex = codexServerOf(call.rawInput);
  if (codex !== undefined) {
    const tool = codexToolOf(call.rawInput);
    return codex === server ? (tool !== undefined ? { tool } : {}) : undefined;
  }
  const claudePrefix = `mcp__${server}__`;
  if (call.title.startsWith(claudePrefix)) {
    const tool = call.title.slice(claudePrefix.length);
    return TOOL_NAME.test(tool) ? { tool } : undefined;
  }
  const geminiSuffix = ` (${server} MCP Server)`;
  if (call.title.endsWith(geminiSuffix)) {
    const tool = call.title.slice(0, -geminiSuffix.length);
    return TOOL_NAME.test(tool) && call.toolCallId.startsWith(`mcp_${server}_${tool}__`) ? { tool } : undefined;
  }
  return undefined;
}

function record(value: unknown): Record<string, unknown> | undefined {
  return typeof value === 'object' && value !== null && !Array.isArray(value) ? value as Record<string, unknown> : undefined;
}

/** Codex's MCP approval: `{server_name, request: {_meta: {codex_approval_kind: 'mcp_tool_call'}, message}}`. */
function codexServerOf(raw: unknown): string | undefined {
  const input = record(raw);
  const meta = record(record(input?.request)?._meta);
  return meta?.codex_approval_kind === 'mcp_tool_call' && typeof input?.server_name === 'string' ? input.server_name : undefined;
}

function codexToolOf(raw: unknown): string | undefined {
  const message = record(record(raw)?.request)?.message;
  const named = typeof message === 'string' ? /run tool "([^"]{1,128})"/.exec(message)?.[1] : undefined;
  return named !== undefined && TOOL_NAME.test(named) ? named : undefined;
}
