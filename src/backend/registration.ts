/**
 * Admission of client tool groups (from `hello`, `updateToolGroups` or an augmentation's
 * `injectGroups`). A tool whose parameter schema is not a usable JSON Schema, or whose name is
 * already taken (NAME_TAKEN), is refused with a problem naming it; the rest of its group is still
 * registered. A group whose container function (`toFunctionName` of its name) is taken, by a server
 * tool, another group's container, tool or skill, or one of its own tools or skills, is refused
 * whole (NAME_TAKEN): a model-facing name is never renamed to make room.
 * A session's tool state holds at most SESSION_LIMITS groups, tools and schema bytes; what would
 * pass them is refused with LIMIT_EXCEEDED (one problem per group, not per tool).
 */
import type { Augmentation, ToolGroupDefinition } from '../protocol';
import { ErrorCode, toFunctionName } from '../protocol';
import { checkParameters, SchemaCompiler } from './jsonSchema';
import type { ClientToolState } from './toolState';

export const SESSION_LIMITS = {
  /** Tool groups in one tool state (registered and injected), as many as one `hello` may carry. */
  maxGroups: 128,
  /** Tools in one tool state; also the most tools whose schemas one registration checks. */
  maxTools: 1024,
  /** Parameter schemas of one tool state, serialised as JSON. */
  maxSchemaBytes: 4 * 1024 * 1024,
} as const;

export interface RegistrationProblem {
  code: ErrorCode;
  group: string;
  tool?: string;
  message: string;
}

/**
 * Empties, in place, the tool lists of a raw `hello` (not validated yet) that a session could not
 * register anyway: those of every group after the groups before it reached `maxTools` tools. The
 * groups stay (as `admitGroups` keeps a group whose tools it refused), only their tools go before
 * the schema would check them: validating 16,384 tools to register 1,024 stalled the event loop. A
 * hello with more groups than the protocol allows is left alone (the schema refuses it whole).
 * Returns the problems of the tools dropped (LIMIT_EXCEEDED, one per group), reported after the
 * registration's own.
 */
export function pruneHelloGroups(hello: Record<string, unknown>): RegistrationProblem[] {
  const groups = hello.toolGroups;
  if (!Array.isArray(groups) || groups.length > SESSION_LIMITS.maxGroups) return [];
  const problems: RegistrationProblem[] = [];
  let tools = 0;
  for (const raw of groups as unknown[]) {
    const g = raw as { name?: unknown; tools?: unknown } | null;
    if (!g || !Array.isArray(g.tools) || g.tools.length === 0) continue;
    if (tools < SESSION_LIMITS.maxTools) {
      tools += g.tools.length;
      continue;
    }
    problems.push(toolsOver(typeof g.name === 'string' ? g.name.slice(0, 64) : '?', g.tools.length));
    g.tools = [];
  }
  return problems;
}

function groupsOver(group: string): RegistrationProblem {
  return { code: ErrorCode.LimitExceeded, group, message: `Tool group "${group}" was not registered: a session may have at most ${SESSION_LIMITS.maxGroups} tool groups (limit "groups per session").` };
}

function toolsOver(group: string, count: number): RegistrationProblem {
  return { code: ErrorCode.LimitExceeded, group, message: `${count} tool${count === 1 ? '' : 's'} of group "${group}" ${count === 1 ? 'was' : 'were'} not registered: a session may have at most ${SESSION_LIMITS.maxTools} tools (limit "tools per session").` };
}

export interface Admission {
  groups: ToolGroupDefinition[];
  problems: RegistrationProblem[];
}

/** What a tool state already holds, counted against SESSION_LIMITS. */
export interface Usage {
  groups: number;
  tools: number;
  schemaBytes: number;
}

/**
 * @param taken names the model already sees elsewhere (server tools, the containers, tools and skills of groups that stay)
 * @param used what the tool state keeps besides these groups
 */
export function admitGroups(groups: readonly ToolGroupDefinition[], taken: ReadonlySet<string>, used: Usage = { groups: 0, tools: 0, schemaBytes: 0 }): Admission {
  const problems: RegistrationProblem[] = [];
  const names = new Set(taken);
  const seenGroups = new Set<string>();
  const admitted: ToolGroupDefinition[] = [];
  // One ajv instance for the schemas of this registration: they live and die together.
  const compiler = new SchemaCompiler();
  let groupCount = used.groups;
  let toolCount = used.tools;
  let schemaBytes = used.schemaBytes;
  // Every tool examined (admitted or not) costs one: a flood of refused tools is still bounded work.
  let examinable = SESSION_LIMITS.maxTools - used.tools;

  for (const group of groups) {
    if (seenGroups.has(group.name)) {
      problems.push({ code: ErrorCode.InvalidMessage, group: group.name, message: `Tool group "${group.name}" is defined twice; the second definition was ignored.` });
      continue;
    }
    seenGroups.add(group.name);
    const container = toFunctionName(group.name);
    const own = [...group.tools.map((t) => t.name), ...(group.skills ?? []).map((s) => s.name)];
    if (names.has(container) || own.includes(container)) {
      problems.push({ code: ErrorCode.NameTaken, group: group.name, message: `Tool group "${group.name}" was not registered: its container function ${container} is the name of another function the model sees; rename the group.` });
      continue;
    }
    if (groupCount >= SESSION_LIMITS.maxGroups) {
      problems.push(groupsOver(group.name));
      continue;
    }
    groupCount++;
    names.add(container);

    let overCount = 0;
    const tools = group.tools.filter((tool) => {
      if (examinable <= 0 || toolCount >= SESSION_LIMITS.maxTools) {
        overCount++;
        return false;
      }
      examinable--;
      const schema = checkParameters(tool.parameters, compiler);
      if (!schema.ok) {
        problems.push({ code: schema.code, group: group.name, tool: tool.name, message: `Tool "${tool.name}" (group "${group.name}") was not registered: invalid parameter schema: ${schema.reason}.` });
        return false;
      }
      if (names.has(tool.name)) {
        problems.push({ code: ErrorCode.NameTaken, group: group.name, tool: tool.name, message: `Tool "${tool.name}" (group "${group.name}") was not registered: another function the model sees already has that name.` });
        return false;
      }
      if (schemaBytes + schema.bytes > SESSION_LIMITS.maxSchemaBytes) {
        problems.push({ code: ErrorCode.LimitExceeded, group: group.name, tool: tool.name, message: `Tool "${tool.name}" (group "${group.name}") was not registered: a session's parameter schemas may take at most ${SESSION_LIMITS.maxSchemaBytes} bytes (limit "schema bytes per session").` });
        return false;
      }
      schemaBytes += schema.bytes;
      toolCount++;
      names.add(tool.name);
      return true;
    });
    if (overCount > 0) problems.push(toolsOver(group.name, overCount));

    const toolNames = new Set(tools.map((t) => t.name));
    const skills = (group.skills ?? []).flatMap((skill) => {
      if (names.has(skill.name)) {
        problems.push({ code: ErrorCode.NameTaken, group: group.name, tool: skill.name, message: `Skill "${skill.name}" (group "${group.name}") was not registered: another function the model sees already has that name.` });
        return [];
      }
      names.add(skill.name);
      const unknown = skill.tools.filter((n) => !toolNames.has(n));
      if (unknown.length) {
        problems.push({ code: ErrorCode.UnknownTool, group: group.name, tool: skill.name, message: `Skill "${skill.name}" (group "${group.name}") references tools its group does not have: ${unknown.join(', ')}; they were left out.` });
      }
      return [{ ...skill, tools: skill.tools.filter((n) => toolNames.has(n)) }];
    });

    admitted.push({ ...group, tools, ...(group.skills ? { skills } : {}) });
  }
  return { groups: admitted, problems };
}

/**
 * Applies an augmentation to a state, admitting its injected groups first. Returns the augmentation
 * as applied (refused tools left out), the problems (to report to the client) and notes
 * (instructions that named nothing, to log).
 */
export function applyAugmentation(
  state: ClientToolState,
  aug: Augmentation,
  reserved: Iterable<string>,
): { applied: Augmentation; problems: RegistrationProblem[]; notes: string[] } {
  let applied = aug;
  let problems: RegistrationProblem[] = [];
  if (aug.injectGroups?.length) {
    const replaced = new Set(aug.injectGroups.map((g) => g.name));
    const admission = admitGroups(aug.injectGroups, new Set([...reserved, ...state.namesInUse(replaced), ...state.containerNames(replaced)]), usage(state.groupDefinitions(replaced)));
    problems = admission.problems;
    applied = { ...aug, injectGroups: admission.groups };
  }
  return { applied, problems, notes: state.apply(applied) };
}

function usage(groups: readonly ToolGroupDefinition[]): Usage {
  let tools = 0;
  let schemaBytes = 0;
  for (const g of groups) {
    for (const t of g.tools) {
      tools++;
      // Admitted before, so the check is remembered: no schema is walked twice.
      const check = checkParameters(t.parameters);
      if (check.ok) schemaBytes += check.bytes;
    }
  }
  return { groups: groups.length, tools, schemaBytes };
}
