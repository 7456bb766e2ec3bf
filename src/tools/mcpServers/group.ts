/**
 * One MCP server's tools as a collapsed client tool group `MCP: <server>`. Every tool asks before it
 * runs (the Tool Groups view's Allow policy can answer instead); names are `mcp_<server>_<tool>`,
 * stable across restarts, so a policy set on one server's tool never lands on another's. Schemas go
 * through the same conversion and strict compile as other extensions' tools; descriptions are the
 * server's untrusted words, clipped, and reach VS Code's UI only through the sanitiser.
 */
import { createHash } from 'node:crypto';
import type { ContentItem } from '../../protocol';
import { consent } from '../../core/consentText';
import { ToolRegistry, type ToolGroupSpec } from '../../core/registry';
import { defineTool, type ClientTool, type JsonSchema } from '../../core/tool';
import { MAX_BRIDGED_TOOLS, sanitizeToolName, strictSchema } from '../vscodeTools/lmBridge';

/** What `tools/list` says about one tool (the fields this file reads). */
export interface McpToolInfo {
  name: string;
  title?: string;
  description?: string;
  inputSchema?: unknown;
  annotations?: { readOnlyHint?: boolean; destructiveHint?: boolean };
}

/** Calls the server's tool by its own name, resolving with the mapped content (results.ts). */
export type McpToolCaller = (toolName: string, args: Record<string, unknown>, signal: AbortSignal) => Promise<ContentItem[]>;

export interface McpGroup {
  group: ToolGroupSpec;
  tools: ClientTool[];
  /** Tools left out, each with why (a name taken, too many). */
  skipped: string[];
}

const MAX_DESCRIPTION_CHARS = 2000;

export function mcpGroupName(serverName: string): string {
  return `MCP: ${serverName}`;
}

/** `mcp_<server>_<tool>`, sanitised; a name over 64 characters keeps a digest of the whole so it stays unique. */
export function mcpToolName(serverName: string, toolName: string): string {
  const full = `mcp_${serverName}_${toolName}`;
  const clean = sanitizeToolName(full);
  if (full.length <= 64 && clean === full) return clean;
  const digest = createHash('sha256').update(full).digest('hex').slice(0, 8);
  return `${clean.slice(0, 55)}_${digest}`;
}

export function buildMcpGroup(serverName: string, infos: readonly McpToolInfo[], call: McpToolCaller, isTaken: (name: string) => boolean): McpGroup {
  const groupName = mcpGroupName(serverName);
  const tools: ClientTool[] = [];
  const skipped: string[] = [];
  const chosen = new Set<string>();
  const probe = new ToolRegistry();
  try {
    for (const info of infos) {
      if (tools.length >= MAX_BRIDGED_TOOLS) {
        skipped.push(`${info.name}: more than ${MAX_BRIDGED_TOOLS} tools`);
        continue;
      }
      const name = mcpToolName(serverName, info.name);
      if (chosen.has(name) || isTaken(name)) {
        skipped.push(`${info.name}: the name ${name} is taken`);
        continue;
      }
      chosen.add(name);
      const description = describe(info);
      let tool = makeTool(name, groupName, serverName, info.name, description, strictSchema(info.inputSchema), call);
      if (!compiles(probe, tool)) tool = makeTool(name, groupName, serverName, info.name, description, { type: 'object' }, call);
      tools.push(tool);
    }
  } finally {
    probe.dispose();
  }
  const group: ToolGroupSpec = {
    name: groupName,
    description: clip(`Tools of the MCP server "${serverName}" the user configured (${tools.length} tools).`, 500),
    functionResult: `These tools run on the user's MCP server "${serverName}"; the user is asked before each call unless they allowed the tool.`,
    startCollapsed: true,
  };
  return { group, tools, skipped };
}

function makeTool(name: string, group: string, serverName: string, original: string, description: string, parameters: JsonSchema, call: McpToolCaller): ClientTool {
  return defineTool<Record<string, unknown>>({
    name,
    group,
    description,
    parameters,
    requiresPermission: true,
    declineStrategy: 'reject',
    prepare(args) {
      return Promise.resolve({
        prompt: `Run ${original} on the MCP server "${serverName}"?`,
        // Whole, on one line, or the gate refuses the call (PROMPT_TOO_LARGE): never clipped.
        detail: consent`Arguments: ${JSON.stringify(args)}`,
      });
    },
    async run(args, ctx) {
      return { content: await call(original, args, ctx.signal) };
    },
  });
}

function describe(info: McpToolInfo): string {
  const base = info.description || info.title || `Tool ${info.name} of an MCP server.`;
  const hints = [info.annotations?.readOnlyHint === true ? 'read-only' : '', info.annotations?.destructiveHint === true ? 'may change or delete data' : ''].filter(Boolean);
  return clip(hints.length ? `${base} (${hints.join(', ')})` : base, MAX_DESCRIPTION_CHARS);
}

function compiles(probe: ToolRegistry, tool: ClientTool): boolean {
  try {
    probe.register({ name: 'probe', description: 'schema probe' }, [{ ...tool, group: 'probe' }]).dispose();
    return true;
  } catch {
    return false;
  }
}

function clip(s: string, max: number): string {
  return s.length > max ? `${s.slice(0, max - 1)}…` : s;
}
