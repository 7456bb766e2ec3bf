/**
 * Admission of client tool groups (from `hello`, `updateToolGroups` or an augmentation's
 * `injectGroups`). A tool whose parameter schema is not a usable JSON Schema, or whose name is
 * already taken, is refused with a problem naming it; the rest of its group is still registered.
 */
import type { Augmentation, ToolGroupDefinition } from '../protocol';
import { ErrorCode } from '../protocol';
import { compileParameters } from './jsonSchema';
import type { ClientToolState } from './toolState';

export interface RegistrationProblem {
  code: ErrorCode;
  group: string;
  tool?: string;
  message: string;
}

export interface Admission {
  groups: ToolGroupDefinition[];
  problems: RegistrationProblem[];
}

/**
 * @param taken names the model already sees elsewhere (server tools, tools of groups that stay)
 */
export function admitGroups(groups: readonly ToolGroupDefinition[], taken: ReadonlySet<string>): Admission {
  const problems: RegistrationProblem[] = [];
  const names = new Set(taken);
  const seenGroups = new Set<string>();
  const admitted: ToolGroupDefinition[] = [];

  for (const group of groups) {
    if (seenGroups.has(group.name)) {
      problems.push({ code: ErrorCode.InvalidMessage, group: group.name, message: `Tool group "${group.name}" is defined twice; the second definition was ignored.` });
      continue;
    }
    seenGroups.add(group.name);

    const tools = group.tools.filter((tool) => {
      const schema = compileParameters(tool.parameters);
      if (!schema.ok) {
        problems.push({ code: ErrorCode.InvalidSchema, group: group.name, tool: tool.name, message: `Tool "${tool.name}" (group "${group.name}") was not registered: invalid parameter schema: ${schema.reason}.` });
        return false;
      }
      if (names.has(tool.name)) {
        problems.push({ code: ErrorCode.InvalidMessage, group: group.name, tool: tool.name, message: `Tool "${tool.name}" (group "${group.name}") was not registered: another tool already has that name.` });
        return false;
      }
      names.add(tool.name);
      return true;
    });

    const toolNames = new Set(tools.map((t) => t.name));
    const skills = (group.skills ?? []).flatMap((skill) => {
      if (names.has(skill.name)) {
        problems.push({ code: ErrorCode.InvalidMessage, group: group.name, tool: skill.name, message: `Skill "${skill.name}" (group "${group.name}") was not registered: a tool or skill already has that name.` });
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
    const admission = admitGroups(aug.injectGroups, new Set([...reserved, ...state.namesInUse(replaced)]));
    problems = admission.problems;
    applied = { ...aug, injectGroups: admission.groups };
  }
  return { applied, problems, notes: state.apply(applied) };
}
