/**
 * The registry of tool groups, tools and skills, built from the extension's own definitions.
 *
 * The local definitions are the authority: what a tool's schema is and whether it needs permission
 * never comes from the backend (its `toolGroupState`, augmentations or requests cannot change them).
 * Lookup is by exact name: names are ASCII by pattern, and a `Map` is not fooled by case, Unicode
 * look-alikes or `__proto__`.
 */
import type Ajv2020 from 'ajv/dist/2020';
import type { ErrorObject, ValidateFunction } from 'ajv/dist/2020';
import { createAjv, STRICT_SCHEMA_OPTIONS } from '../base/jsonSchema';
import { CodedError, ErrorCode, Schemas, TOOL_NAME_PATTERN, toFunctionName, type SkillDefinition, type ToolGroupDefinition } from '../protocol';
import { Emitter, type Disposable, type Event } from '../base/events';
import type { ClientTool } from './tool';
import { toolKey, type ToolIdentity, type ToolSource } from './consent/toolIdentity';

/** Everything about a group except its tools. */
export interface ToolGroupSpec {
  name: string;
  description: string;
  /** One-time text appended to the expansion result. */
  functionResult?: string;
  /** Joins the system prompt while the group is expanded. */
  systemPrompt?: string;
  startCollapsed?: boolean;
  skills?: SkillDefinition[];
}

/** Why a tool is switched off; the dispatcher answers calls with this code. */
export interface DisabledReason {
  code: typeof ErrorCode.ToolDisabled | typeof ErrorCode.WorkspaceUntrusted;
  message: string;
}

export interface RegisteredTool {
  readonly tool: ClientTool;
  readonly group: string;
  /** Where the tool comes from and its name there. */
  readonly identity: ToolIdentity;
  /** `toolKey(identity)`: what policies and grants are kept under. */
  readonly key: string;
  readonly hidden: boolean;
  /** Set while switched off: by workspace trust or `setDisabled`. */
  readonly disabled: DisabledReason | undefined;
}

export type ToolLookup = { ok: true; entry: RegisteredTool } | { ok: false; code: ErrorCode; message: string };

/** A tool as the UI shows it: every registered tool, with why it is not callable. */
export interface ToolSnapshot {
  name: string;
  /** `toolKey` of the tool's identity. */
  key: string;
  identity: ToolIdentity;
  /** The tool's classification (its definition's, or its MCP server's hints), shown beside it. */
  effects?: ClientTool['effects'];
  requiresPermission: boolean;
  hidden: boolean;
  disabled?: DisabledReason;
}

export interface GroupSnapshot {
  name: string;
  description: string;
  tools: ToolSnapshot[];
  skills: string[];
}

interface Entry {
  tool: ClientTool;
  group: string;
  identity: ToolIdentity;
  key: string;
  /** Compiled at registration, or at the first call for a checked (built-in) schema. */
  validate: ValidateFunction | undefined;
  hidden: boolean;
  manualDisabled?: DisabledReason;
}

interface Group {
  spec: ToolGroupSpec;
  tools: string[];
  /** Every model-facing name the group holds: its container, its tools, its skills. */
  functionNames: string[];
}

export interface RegisterOptions {
  /**
   * The parameter schemas were checked already (the built-in tools' are, by a unit test: the JSON
   * Schema 2020-12 meta-schema and a strict compile with this registry's options). They are then
   * compiled when the tool is first called instead of at registration: compiling the built-in
   * groups took 45-60 ms, most of the extension's activation. Schemas from anywhere else are
   * checked and compiled at registration, so a bad one is refused there.
   */
  schemasChecked?: boolean;
  /**
   * Where the group's tools come from; each tool's identity is this source with the tool's
   * `sourceName` (or its name). Default: another extension's group, named by the group.
   */
  source?: ToolSource;
}

export class ToolRegistry implements Disposable {
  private readonly groups = new Map<string, Group>();
  private readonly tools = new Map<string, Entry>();
  /** Every model-facing name in use (containers, tools, skills), with what holds it. */
  private readonly functionNames = new Map<string, string>();
  /** Tool name by identity key. */
  private readonly keys = new Map<string, string>();
  private trusted = true;
  private readonly compiler = new SchemaCompiler();
  private readonly changed = new Emitter<void>();
  /** Fires after any change to what the backend should be told (registration, visibility, trust). */
  readonly onDidChange: Event<void> = this.changed.event;

  /**
   * Registers a group and its tools. Throws CodedError INVALID_SCHEMA naming the tool when a
   * parameter schema does not compile (with `schemasChecked`, schemas are compiled at each tool's
   * first call instead), a name breaks the protocol's pattern, a tool belongs to another group, or a
   * skill names a tool outside the group; NAME_TAKEN when the group is registered already, or a
   * model-facing name (the group's container function `toFunctionName(group.name)`, a tool, a skill)
   * or a tool's identity is held already. Nothing is renamed: the whole group is refused.
   */
  register(group: ToolGroupSpec, tools: readonly ClientTool[], options: RegisterOptions = {}): Disposable {
    if (this.groups.has(group.name)) throw nameTaken(`group "${group.name}" is registered already`);
    const source: ToolSource = options.source ?? { kind: 'extension', group: group.name };
    const entries: Entry[] = [];
    let functionNames: string[];
    try {
      functionNames = this.claimNames(group, tools, source);
      this.prepareGroup(group, tools, source, entries, options.schemasChecked === true);
    } catch (e) {
      for (const done of entries) this.compiler.release(done.tool);
      throw e;
    }

    this.groups.set(group.name, { spec: group, tools: entries.map((e) => e.tool.name), functionNames });
    for (const n of functionNames) this.functionNames.set(n, group.name);
    for (const e of entries) {
      this.tools.set(e.tool.name, e);
      this.keys.set(e.key, e.tool.name);
    }
    this.changed.fire();

    let disposed = false;
    return {
      dispose: () => {
        if (disposed) return;
        disposed = true;
        this.groups.delete(group.name);
        for (const n of functionNames) if (this.functionNames.get(n) === group.name) this.functionNames.delete(n);
        for (const e of entries) {
          if (this.tools.get(e.tool.name) === e) this.tools.delete(e.tool.name);
          if (this.keys.get(e.key) === e.tool.name) this.keys.delete(e.key);
          this.compiler.release(e.tool);
        }
        this.changed.fire();
      },
    };
  }

  /** The model-facing name of the tool with this identity key, if it is registered. */
  nameOfKey(key: string): string | undefined {
    return this.keys.get(key);
  }

  /** Whether a model-facing name (a tool, a skill or a group's container function) is held. */
  holdsFunctionName(name: string): boolean {
    return this.functionNames.has(name);
  }

  /** Exact-name lookup of a registered tool (callable or not). */
  get(name: string): RegisteredTool | undefined {
    const e = this.tools.get(name);
    return e && this.view(e);
  }

  /** Exact-name lookup that says why a tool cannot be called: UNKNOWN_TOOL, TOOL_HIDDEN, TOOL_DISABLED, WORKSPACE_UNTRUSTED. */
  lookup(name: string): ToolLookup {
    const e = this.tools.get(name);
    if (!e) return { ok: false, code: ErrorCode.UnknownTool, message: `no client tool is named "${printable(name)}"` };
    if (e.hidden) return { ok: false, code: ErrorCode.ToolHidden, message: `tool ${name} is hidden right now` };
    const disabled = this.disabledReason(e);
    if (disabled) return { ok: false, code: disabled.code, message: disabled.message };
    return { ok: true, entry: this.view(e) };
  }

  /**
   * Validates arguments against the tool's schema, without coercion or defaults. Returns undefined
   * when valid, else one sentence naming the field: "path: must be string".
   */
  validateArguments(name: string, args: unknown): string | undefined {
    const e = this.tools.get(name);
    if (!e) return `no client tool is named "${printable(name)}"`;
    e.validate ??= this.compiler.compile(e.tool, true);
    if (e.validate(args)) return undefined;
    return describeAjvError(e.validate.errors?.[0]);
  }

  /**
   * Hides or shows tools right now, following what the model is shown (an augmentation, a skill,
   * the backend's tool group state); unknown names are ignored. This is runtime state only: the
   * definitions sent to the backend keep each tool's own `hidden`, so it causes no update message.
   */
  setHidden(names: readonly string[], hidden: boolean): void {
    let changed = false;
    for (const name of names) {
      const e = this.tools.get(name);
      if (e && e.hidden !== hidden) {
        e.hidden = hidden;
        changed = true;
      }
    }
    if (changed) this.changed.fire();
  }

  /** Back to each tool's defined visibility (a new backend session starts from the definitions). */
  resetVisibility(): void {
    let changed = false;
    for (const e of this.tools.values()) {
      const defined = e.tool.hidden === true;
      if (e.hidden !== defined) {
        e.hidden = defined;
        changed = true;
      }
    }
    if (changed) this.changed.fire();
  }

  /** Switches one tool off (with the reason calls will get) or back on (`undefined`); no change, no event. */
  setDisabled(name: string, reason: DisabledReason | undefined): void {
    const e = this.tools.get(name);
    if (!e) return;
    if (e.manualDisabled?.code === reason?.code && e.manualDisabled?.message === reason?.message) return;
    e.manualDisabled = reason;
    this.changed.fire();
  }

  /** In an untrusted workspace, tools without `availableWhenUntrusted` are off (WORKSPACE_UNTRUSTED). */
  setWorkspaceTrusted(trusted: boolean): void {
    if (this.trusted === trusted) return;
    this.trusted = trusted;
    this.changed.fire();
  }

  get workspaceTrusted(): boolean {
    return this.trusted;
  }

  /**
   * The definitions the backend gets in `hello` and `updateToolGroups`: switched-off tools are left
   * out (the model should not see them); tools defined as hidden are sent with `hidden: true`.
   */
  definitions(): ToolGroupDefinition[] {
    return [...this.groups.values()].map((g) => {
      const entries = g.tools.map((n) => this.tools.get(n)).filter((e): e is Entry => e !== undefined);
      return toGroupDefinition(g.spec, entries, (e) => this.disabledReason(e));
    });
  }

  /** Every registered definition, switched-off tools included (the Tool Groups view lists them, to switch them on again). */
  allDefinitions(): ToolGroupDefinition[] {
    return [...this.groups.values()].map((g) => {
      const entries = g.tools.map((n) => this.tools.get(n)).filter((e): e is Entry => e !== undefined);
      return toGroupDefinition(g.spec, entries, () => undefined);
    });
  }

  /** Every group and tool with its state, for the tool tree. */
  snapshot(): GroupSnapshot[] {
    return [...this.groups.values()].map((g) => ({
      name: g.spec.name,
      description: g.spec.description,
      skills: (g.spec.skills ?? []).map((s) => s.name),
      tools: g.tools
        .map((n) => this.tools.get(n))
        .filter((e): e is Entry => e !== undefined)
        .map((e) => {
          const disabled = this.disabledReason(e);
          return {
            name: e.tool.name,
            key: e.key,
            identity: e.identity,
            requiresPermission: e.tool.requiresPermission,
            hidden: e.hidden,
            ...(e.tool.effects ? { effects: { ...e.tool.effects } } : {}),
            ...(disabled ? { disabled } : {}),
          };
        }),
    }));
  }

  dispose(): void {
    this.changed.dispose();
    this.groups.clear();
    this.tools.clear();
    this.functionNames.clear();
    this.keys.clear();
  }

  /**
   * The group's model-facing names (container, tools, skills), checked against each other and
   * everything registered; throws NAME_TAKEN naming the clash. Identities are checked the same way.
   */
  private claimNames(group: ToolGroupSpec, tools: readonly ClientTool[], source: ToolSource): string[] {
    const mine = new Map<string, string>();
    const claim = (name: string, what: string) => {
      const holder = this.functionNames.get(name);
      if (holder !== undefined) throw nameTaken(`${what} would be the function ${name}, which the group "${holder}" holds already`);
      const own = mine.get(name);
      if (own !== undefined) throw nameTaken(`${what} would be the function ${name}, the same name as ${own}`);
      mine.set(name, what);
    };
    claim(toFunctionName(group.name), `the container of group "${group.name}"`);
    const keys = new Set<string>();
    for (const tool of tools) {
      claim(tool.name, `tool ${tool.name}`);
      const key = toolKey({ source, tool: tool.sourceName ?? tool.name });
      if (keys.has(key) || this.keys.has(key)) throw nameTaken(`tool ${tool.name}: another registered tool is the same tool (${key})`);
      keys.add(key);
    }
    for (const skill of group.skills ?? []) claim(skill.name, `skill ${skill.name}`);
    return [...mine.keys()];
  }

  /** Checks a group and compiles its tools into `entries`; throws INVALID_SCHEMA. */
  private prepareGroup(group: ToolGroupSpec, tools: readonly ClientTool[], source: ToolSource, entries: Entry[], schemasChecked: boolean): void {
    const seen = new Set<string>();
    for (const tool of tools) {
      if (!TOOL_NAME_PATTERN.test(tool.name)) throw invalidSchema(`tool name "${tool.name}" must match ${TOOL_NAME_PATTERN.source}`);
      if (tool.group !== group.name) throw invalidSchema(`tool ${tool.name} belongs to group "${tool.group}", not "${group.name}"`);
      if (seen.has(tool.name) || this.tools.has(tool.name)) throw nameTaken(`tool ${tool.name} is registered already`);
      seen.add(tool.name);
      const identity: ToolIdentity = { source, tool: tool.sourceName ?? tool.name };
      entries.push({ tool, group: group.name, identity, key: toolKey(identity), validate: schemasChecked ? undefined : this.compiler.compile(tool, false), hidden: tool.hidden === true });
    }
    for (const skill of group.skills ?? []) {
      const missing = skill.tools.find((t) => !seen.has(t));
      if (missing !== undefined) throw invalidSchema(`skill ${skill.name} of group ${group.name} names tool ${missing}, which is not in the group`);
    }
    const parsed = Schemas.ToolGroupDefinition.safeParse(toGroupDefinition(group, entries, () => undefined));
    if (!parsed.success) {
      const issue = parsed.error.issues[0];
      throw invalidSchema(`group ${group.name}: ${issue ? `${issue.path.join('.')}: ${issue.message}` : 'invalid definition'}`);
    }
  }

  private disabledReason(e: Entry): DisabledReason | undefined {
    if (e.manualDisabled) return e.manualDisabled;
    if (!this.trusted && e.tool.availableWhenUntrusted !== true) {
      return { code: ErrorCode.WorkspaceUntrusted, message: `tool ${e.tool.name} is off while the workspace is in restricted mode` };
    }
    return undefined;
  }

  private view(e: Entry): RegisteredTool {
    return { tool: e.tool, group: e.group, identity: e.identity, key: e.key, hidden: e.hidden, disabled: this.disabledReason(e) };
  }
}

function toGroupDefinition(spec: ToolGroupSpec, entries: readonly Entry[], disabled: (e: Entry) => DisabledReason | undefined): ToolGroupDefinition {
  const def: ToolGroupDefinition = {
    name: spec.name,
    description: spec.description,
    tools: entries
      .filter((e) => !disabled(e))
      .map((e) => ({
        name: e.tool.name,
        description: e.tool.description,
        parameters: e.tool.parameters,
        requiresPermission: e.tool.requiresPermission,
        declineStrategy: e.tool.declineStrategy,
        ...(e.tool.sequential ? { sequential: true } : {}),
        ...(e.tool.hidden ? { hidden: true } : {}),
      })),
  };
  if (spec.skills !== undefined) def.skills = spec.skills;
  if (spec.functionResult !== undefined) def.functionResult = spec.functionResult;
  if (spec.systemPrompt !== undefined) def.systemPrompt = spec.systemPrompt;
  if (spec.startCollapsed !== undefined) def.startCollapsed = spec.startCollapsed;
  return def;
}

/** How parameter schemas are compiled (src/base/jsonSchema.ts's strict mode); exported for the test that checks the built-in schemas. */
export const SCHEMA_COMPILER_OPTIONS = STRICT_SCHEMA_OPTIONS;

/**
 * Compiles tools' parameter schemas (JSON Schema 2020-12). Strict mode refuses unknown keywords, so
 * a typo in a schema fails at registration rather than silently accepting anything (for the
 * built-in groups, registered with `schemasChecked`, the unit test that compiles every built-in
 * schema with these options is where a typo fails). Arguments are
 * never coerced, defaulted or stripped. `format` is not validated (no format plugin is bundled);
 * schemas should use `pattern` instead.
 */
class SchemaCompiler {
  // One instance per registry, made at the first compile: creating one costs 5-20 ms, compiling a
  // small schema well under 1 ms. The meta-schema check is explicit (see compile), so it can be
  // skipped for checked schemas.
  private instance: Ajv2020 | undefined;

  private get ajv(): Ajv2020 {
    return (this.instance ??= createAjv('strict'));
  }

  compile(tool: ClientTool, schemaChecked: boolean): ValidateFunction {
    const schema = tool.parameters as unknown;
    if (typeof schema !== 'object' || schema === null || Array.isArray(schema)) throw invalidSchema(`tool ${tool.name}: parameters must be a JSON Schema object`);
    if ((schema as { type?: unknown }).type !== 'object') throw invalidSchema(`tool ${tool.name}: parameters must have "type": "object"`);
    if (!schemaChecked && !this.ajv.validateSchema(schema)) {
      throw invalidSchema(`tool ${tool.name}: invalid parameter schema: ${this.ajv.errorsText(this.ajv.errors)}`);
    }
    try {
      return this.ajv.compile(schema);
    } catch (e) {
      this.release(tool);
      throw invalidSchema(`tool ${tool.name}: invalid parameter schema: ${(e as Error).message}`);
    }
  }

  /** Forgets a tool's schema (and its `$id`, so the id can be registered again). */
  release(tool: ClientTool): void {
    try {
      this.instance?.removeSchema(tool.parameters);
    } catch {
      // Never added.
    }
  }
}

/** "path: must be string", "path: is required", "approved: is not an accepted argument". */
export function describeAjvError(error: ErrorObject | undefined): string {
  if (!error) return 'the arguments do not match the schema';
  const base = pointerToField(error.instancePath);
  const params = error.params as Record<string, unknown>;
  if (error.keyword === 'required' && typeof params.missingProperty === 'string') {
    return `${join(base, params.missingProperty)}: is required`;
  }
  if (error.keyword === 'additionalProperties' && typeof params.additionalProperty === 'string') {
    return `${join(base, printable(params.additionalProperty))}: is not an accepted argument`;
  }
  return `${base || '(arguments)'}: ${error.message ?? 'is invalid'}`;
}

function pointerToField(pointer: string): string {
  if (pointer === '') return '';
  return pointer
    .slice(1)
    .split('/')
    .map((s) => printable(s.replace(/~1/g, '/').replace(/~0/g, '~')))
    .join('.');
}

function join(base: string, field: string): string {
  return base ? `${base}.${field}` : field;
}

function printable(s: string): string {
  const clean = s.replace(/[\u0000-\u001f\u007f]/g, '?');
  return clean.length > 100 ? `${clean.slice(0, 100)}…` : clean;
}

function invalidSchema(message: string): CodedError {
  return new CodedError(ErrorCode.InvalidSchema, message);
}

function nameTaken(message: string): CodedError {
  return new CodedError(ErrorCode.NameTaken, message);
}
