/**
 * The registry's callable tools as MCP tools: every tool a backend could call right now (not
 * hidden, not switched off, not off in an untrusted workspace), flat, with its JSON Schema and the
 * hints its definition gives, and the output schema of a tool whose results are a JSON object.
 * Flat for any client; collapsed groups for agents that re-list on `list_changed` are
 * mcpGroups.ts (docs/MCP.md and docs/AGENTS.md measure both).
 */
import type { Tool } from '@modelcontextprotocol/sdk/types.js';
import type { GroupSnapshot, ToolRegistry } from '../registry';
import type { ClientTool } from '../tool';

export function listMcpTools(registry: ToolRegistry): Tool[] {
  return registry.snapshot().flatMap((group) => groupMcpTools(registry, group));
}

/** One group's callable tools as MCP tools. */
export function groupMcpTools(registry: ToolRegistry, group: GroupSnapshot): Tool[] {
  const tools: Tool[] = [];
  for (const { name } of group.tools) {
    const found = registry.lookup(name);
    if (!found.ok) continue;
    const tool = found.entry.tool;
    // MCP requires an object schema; every tool here has one (tools take named arguments).
    if (tool.parameters.type !== 'object') continue;
    tools.push({
      name: tool.name,
      description: tool.description,
      inputSchema: tool.parameters as Tool['inputSchema'],
      ...(tool.outputSchema ? { outputSchema: tool.outputSchema as Tool['outputSchema'] } : {}),
      annotations: annotationsOf(tool, group.name),
    });
  }
  return tools;
}

/**
 * MCP's hints from the definition (for a bridged MCP tool, its own server's hints, passed on as
 * they were given); a tool that says nothing gets MCP's own cautious defaults (may write, may destroy).
 */
function annotationsOf(tool: ClientTool, group: string): NonNullable<Tool['annotations']> {
  const readOnly = tool.effects?.readOnly === true;
  return {
    title: `${tool.name} (${group})`,
    readOnlyHint: readOnly,
    ...(readOnly ? {} : { destructiveHint: tool.effects?.destructive ?? true }),
    ...(tool.effects?.idempotent !== undefined ? { idempotentHint: tool.effects.idempotent } : {}),
    // Everything built in acts on this editor and its workspace, except a command (a terminal's or a task's).
    openWorldHint: tool.effects?.openWorld ?? (group === 'Terminal' || group === 'Tasks'),
  };
}
