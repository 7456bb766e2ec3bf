/**
 * The `VSCodeTools` group: language-model tools other VS Code extensions register (`vscode.lm.tools`),
 * offered to the agent as client tools. This file holds the VS Code-free part: which tools are
 * enabled, their names made valid for the protocol, their schemas made acceptable to the registry,
 * and the client tools that call them through an injected invoker (src/vscode/toolGroups/lmToolsBridge.ts).
 */
import type { ContentItem } from '../../protocol';
import { toFunctionName } from '../../protocol';
import { consent } from '../../core/consent/consentText';
import { ToolRegistry, type ToolGroupSpec } from '../../core/registry';
import { defineTool, type ClientTool, type JsonSchema } from '../../core/tool';

export const VSCODE_TOOLS_GROUP = 'VSCodeTools';
/** The protocol allows 512 tools per group. */
export const MAX_BRIDGED_TOOLS = 512;
const MAX_DESCRIPTION_CHARS = 10_000;

/** What `vscode.lm.tools` says about a tool. */
export interface LmToolInfo {
  name: string;
  description: string;
  inputSchema: object | undefined;
}

/** Calls the VS Code tool by its own name; resolves with the mapped result. */
export type LmToolInvoker = (name: string, input: Record<string, unknown>, signal: AbortSignal) => Promise<ContentItem[]>;

export interface BridgeOptions {
  /** Function names other registrations hold; a bridged tool that would get one is left out (never renamed). */
  isTaken: (name: string) => boolean;
  /** Ask through the permission gate before each call (off by default: the tools confirm on their own). */
  requirePermission: boolean;
}

export interface BridgedGroup {
  group: ToolGroupSpec;
  tools: ClientTool[];
  /** Client tool name → VS Code tool name. */
  names: Map<string, string>;
  /** Tools left out, each with why (`NAME_TAKEN: …`). */
  skipped: string[];
}

/**
 * Whether the setting enables a tool: listed by its exact name, or `"*"` for all. `"*"` leaves out
 * VS Code's own `*_internal` tools, which only make sense inside its chat; naming one still works.
 */
export function isEnabled(name: string, enabled: readonly string[]): boolean {
  if (enabled.includes(name)) return true;
  return enabled.includes('*') && !name.endsWith('_internal');
}


/** JSON Schema keywords the registry's strict compiler knows; anything else (editor hints, vendor keys) is dropped. */
const KEYWORDS = new Set([
  'type', 'enum', 'const', 'title', 'description', 'default', 'examples', 'deprecated', 'readOnly', 'writeOnly',
  'properties', 'patternProperties', 'additionalProperties', 'required', 'propertyNames', 'minProperties', 'maxProperties',
  'dependentRequired', 'dependentSchemas',
  'items', 'prefixItems', 'contains', 'minContains', 'maxContains', 'minItems', 'maxItems', 'uniqueItems',
  'minLength', 'maxLength', 'pattern', 'format',
  'minimum', 'maximum', 'exclusiveMinimum', 'exclusiveMaximum', 'multipleOf',
  'allOf', 'anyOf', 'oneOf', 'not', 'if', 'then', 'else',
  '$ref', '$defs', '$id', '$anchor', '$comment',
]);
const SCHEMA_MAPS = new Set(['properties', 'patternProperties', '$defs', 'dependentSchemas']);
const SCHEMA_LISTS = new Set(['allOf', 'anyOf', 'oneOf', 'prefixItems']);
const SCHEMA_VALUES = new Set(['additionalProperties', 'items', 'contains', 'not', 'if', 'then', 'else', 'propertyNames']);

/**
 * An extension's input schema in the dialect the registry compiles (JSON Schema 2020-12, strict):
 * unknown keywords dropped, draft-07 `definitions` moved to `$defs` (and `$ref`s with them),
 * draft-04 boolean `exclusiveMinimum`/`exclusiveMaximum` and tuple `items` arrays converted, `$schema`
 * removed. A missing or non-object schema becomes `{ "type": "object" }`.
 */
export function strictSchema(schema: unknown): JsonSchema {
  if (!isRecord(schema)) return { type: 'object', properties: {} };
  const out = convert(schema) as JsonSchema;
  if (out.type === undefined) out.type = 'object';
  return out;
}

function convert(node: unknown): unknown {
  if (typeof node === 'boolean') return node;
  if (!isRecord(node)) return {};
  const out: Record<string, unknown> = {};
  for (const [key0, value] of Object.entries(node)) {
    const key = key0 === 'definitions' ? '$defs' : key0;
    if (!KEYWORDS.has(key)) continue;
    if (SCHEMA_MAPS.has(key)) {
      if (!isRecord(value)) continue;
      out[key] = Object.fromEntries(Object.entries(value).map(([k, v]) => [k, convert(v)]));
    } else if (SCHEMA_LISTS.has(key)) {
      if (Array.isArray(value)) out[key] = value.map(convert);
    } else if (key === 'items' && Array.isArray(value)) {
      out.prefixItems = value.map(convert);
    } else if (SCHEMA_VALUES.has(key)) {
      out[key] = convert(value);
    } else if (key === '$ref' && typeof value === 'string') {
      out[key] = value.replace(/^#\/definitions\//, '#/$defs/');
    } else if ((key === 'exclusiveMinimum' || key === 'exclusiveMaximum') && typeof value === 'boolean') {
      const bound = key === 'exclusiveMinimum' ? 'minimum' : 'maximum';
      if (value && typeof node[bound] === 'number') out[key] = node[bound];
    } else if (key === 'required') {
      if (Array.isArray(value) && value.every((v) => typeof v === 'string')) out[key] = value;
    } else {
      out[key] = value;
    }
  }
  // A bound that moved to exclusive* must not stay inclusive too.
  if (node.exclusiveMinimum === true) delete out.minimum;
  if (node.exclusiveMaximum === true) delete out.maximum;
  return out;
}

/**
 * The client tools for the enabled VS Code tools. A schema the registry still cannot compile after
 * `strictSchema` falls back to `{ "type": "object" }` (VS Code's tool checks its own input).
 */
export function bridgeTools(infos: readonly LmToolInfo[], enabled: readonly string[], invoke: LmToolInvoker, options: BridgeOptions): BridgedGroup {
  const names = new Map<string, string>();
  const skipped: string[] = [];
  const tools: ClientTool[] = [];
  const probe = new ToolRegistry();
  try {
    for (const info of [...infos].sort((a, b) => a.name.localeCompare(b.name))) {
      if (tools.length >= MAX_BRIDGED_TOOLS) break;
      if (!isEnabled(info.name, enabled)) continue;
      // The VS Code name itself when it is a function name, else that name with a digest of it
      // (src/protocol/functionNames.ts): a name that depends on no other tool, so it never moves.
      const name = toFunctionName(info.name);
      if (names.has(name) || options.isTaken(name)) {
        skipped.push(`${info.name}: NAME_TAKEN: the function name ${name} is held by another tool`);
        continue;
      }
      names.set(name, info.name);
      const original = info.name;
      const description = clip(info.description || `VS Code tool ${original}.`, MAX_DESCRIPTION_CHARS);
      let tool = makeTool(name, description, strictSchema(info.inputSchema), original, invoke, options.requirePermission);
      if (!compiles(probe, tool)) tool = makeTool(name, description, { type: 'object' }, original, invoke, options.requirePermission);
      tools.push(tool);
    }
  } finally {
    probe.dispose();
  }
  const group: ToolGroupSpec = {
    name: VSCODE_TOOLS_GROUP,
    description: 'Tools that other VS Code extensions offer to language models, enabled by the user in clientTools.vscodeTools.enabled.',
    functionResult: 'These tools come from other VS Code extensions; some ask the user to confirm before they run.',
    startCollapsed: true,
  };
  return { group, tools, names, skipped };
}

function makeTool(name: string, description: string, parameters: JsonSchema, original: string, invoke: LmToolInvoker, requiresPermission: boolean): ClientTool {
  return defineTool<Record<string, unknown>>({
    name,
    sourceName: original,
    group: VSCODE_TOOLS_GROUP,
    description,
    parameters,
    requiresPermission,
    declineStrategy: 'reject',
    prepare(args) {
      // The user allows this input, so the prompt shows it whole, on one line, or the gate refuses it.
      return Promise.resolve({ prompt: `Run the VS Code tool ${original}?`, detail: consent`Arguments: ${JSON.stringify(args)}` });
    },
    async run(args, ctx) {
      return { content: await invoke(original, args, ctx.signal) };
    },
  });
}

function compiles(probe: ToolRegistry, tool: ClientTool): boolean {
  try {
    probe.register({ name: 'probe', description: 'schema probe' }, [{ ...tool, group: 'probe' }]).dispose();
    return true;
  } catch {
    return false;
  }
}

function isRecord(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

function clip(s: string, max: number): string {
  return s.length > max ? `${s.slice(0, max - 1)}…` : s;
}
