/**
 * One MCP server's tools as a collapsed client tool group `MCP: <server>`. Every tool asks before it
 * runs (the Tool Groups view's Allow policy can answer instead). Each tool's identity is (server,
 * tool), which policies and grants key on; its model-facing name follows from that identity alone
 * (`mcpToolName`), so it is the same after a restart and differs from every other server's tools.
 * Schemas go through the same conversion and strict compile as other extensions' tools;
 * descriptions are the server's untrusted words, clipped, and reach VS Code's UI only through the
 * sanitiser.
 */
import { digestedFunctionName, isPlainFunctionName, type ContentItem } from '../../protocol';
import { consent, consentLines } from '../../core/consent/consentText';
import { ToolRegistry, type ToolGroupSpec } from '../../core/registry';
import { defineTool, describeEffects, type ClientTool, type JsonSchema, type ToolEffects } from '../../core/tool';
import type { ToolSource } from '../../core/consent/toolIdentity';
import { MAX_BRIDGED_TOOLS, strictSchema } from '../vscodeTools/lmBridge';
import { MAX_OUTPUT_SCHEMA_BYTES } from './outputValidator';

/** What `tools/list` says about one tool (the fields this file reads). */
export interface McpToolInfo {
  name: string;
  title?: string;
  description?: string;
  inputSchema?: unknown;
  outputSchema?: unknown;
  annotations?: { readOnlyHint?: boolean; destructiveHint?: boolean; idempotentHint?: boolean; openWorldHint?: boolean };
}

/** Calls the server's tool by its own name, resolving with the mapped content (results.ts). */
export type McpToolCaller = (toolName: string, args: Record<string, unknown>, signal: AbortSignal, structured?: boolean) => Promise<ContentItem[]>;

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

/** The identity source of a server's tools. */
export function mcpSource(serverName: string): ToolSource {
  return { kind: 'mcp', server: serverName };
}

/**
 * The model-facing name of a server's tool. `mcp_<server>_<tool>` as it is when the server's name
 * has no `_` (so the first `_` after `mcp_` ends it: the name says which server and tool it is) and
 * the whole is a function name that does not end like a digest; otherwise the same text made a
 * function name, cut, and a digest of (server, tool) (src/protocol/functionNames.ts). Server
 * `github_create` with tool `issue` and server `github` with tool `create_issue` thus get different
 * names, and a name never depends on which server started first.
 */
export function mcpToolName(serverName: string, toolName: string): string {
  const plain = `mcp_${serverName}_${toolName}`;
  if (/^[A-Za-z0-9-]+$/.test(serverName) && isPlainFunctionName(plain)) return plain;
  return digestedFunctionName(plain, ['mcp', serverName, toolName]);
}

export function buildMcpGroup(serverName: string, infos: readonly McpToolInfo[], call: McpToolCaller, isTaken: (name: string) => boolean): McpGroup {
  const groupName = mcpGroupName(serverName);
  const tools: ClientTool[] = [];
  const skipped: string[] = [];
  const chosen = new Set<string>();
  const listed = new Set<string>();
  const probe = new ToolRegistry();
  try {
    for (const info of infos) {
      if (tools.length >= MAX_BRIDGED_TOOLS) {
        skipped.push(`${info.name}: more than ${MAX_BRIDGED_TOOLS} tools`);
        continue;
      }
      if (listed.has(info.name)) {
        skipped.push(`${info.name}: listed twice by the server; the first is kept`);
        continue;
      }
      listed.add(info.name);
      const name = mcpToolName(serverName, info.name);
      // Refused, never renamed: a renamed tool would take another's place after the next restart.
      if (chosen.has(name) || isTaken(name)) {
        skipped.push(`${info.name}: NAME_TAKEN: the function name ${name} is held by another tool`);
        continue;
      }
      chosen.add(name);
      const description = describe(info);
      const effects = effectsOf(info);
      const output = outputSchemaOf(probe, info.outputSchema);
      let tool = makeTool(name, groupName, serverName, info.name, description, strictSchema(info.inputSchema), effects, output, call);
      if (!compiles(probe, tool)) tool = makeTool(name, groupName, serverName, info.name, description, { type: 'object' }, effects, output, call);
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

function makeTool(name: string, group: string, serverName: string, original: string, description: string, parameters: JsonSchema, effects: ToolEffects | undefined, outputSchema: JsonSchema | undefined, call: McpToolCaller): ClientTool {
  const claimed = describeEffects(effects);
  // The server's hints are its own words about its tool: shown as such, never a reason not to ask.
  const claim = claimed.length ? consent`The server describes this tool as: ${claimed.join(', ')} (its claim, not checked; you are asked all the same).` : undefined;
  return defineTool<Record<string, unknown>>({
    name,
    sourceName: original,
    group,
    description,
    parameters,
    requiresPermission: true,
    declineStrategy: 'reject',
    ...(effects ? { effects } : {}),
    ...(outputSchema ? { outputSchema } : {}),
    prepare(args) {
      return Promise.resolve({
        prompt: `Run ${original} on the MCP server "${serverName}"?`,
        // Whole, on one line, or the gate refuses the call (PROMPT_TOO_LARGE): never clipped.
        detail: consentLines([consent`Arguments: ${JSON.stringify(args)}`, claim]),
      });
    },
    async run(args, ctx) {
      return { content: await call(original, args, ctx.signal, outputSchema !== undefined) };
    },
  });
}

/**
 * The server's output schema as the tool's, when it is an object schema of at most 64 KiB that
 * compiles as strictly as parameters do (RE2 patterns); otherwise the tool declares none and its
 * results are passed on as content.
 */
function outputSchemaOf(probe: ToolRegistry, schema: unknown): JsonSchema | undefined {
  if (typeof schema !== 'object' || schema === null || Array.isArray(schema)) return undefined;
  if (JSON.stringify(schema).length > MAX_OUTPUT_SCHEMA_BYTES) return undefined;
  const converted = strictSchema(schema);
  if (converted.type !== 'object') return undefined;
  const check = defineTool({ name: 'output', group: 'probe', description: 'output schema probe', parameters: converted, requiresPermission: false, declineStrategy: 'reject', run: async () => ({ content: [] }) });
  return compiles(probe, check) ? converted : undefined;
}

/** The server's hints as the tool's classification (only what it says: MCP's defaults are not assumed). */
function effectsOf(info: McpToolInfo): ToolEffects | undefined {
  const a = info.annotations;
  if (!a) return undefined;
  const effects: ToolEffects = {};
  if (typeof a.readOnlyHint === 'boolean') effects.readOnly = a.readOnlyHint;
  if (typeof a.destructiveHint === 'boolean') effects.destructive = a.destructiveHint;
  if (typeof a.idempotentHint === 'boolean') effects.idempotent = a.idempotentHint;
  if (typeof a.openWorldHint === 'boolean') effects.openWorld = a.openWorldHint;
  return Object.keys(effects).length ? effects : undefined;
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
