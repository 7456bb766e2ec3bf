/**
 * What the model sees of the client's tools, for one thread. Pure: no I/O, no timers, so every rule
 * here is unit-tested directly.
 *
 * - A collapsed group is ONE container function, named `toFunctionName(group)` (admission in
 *   registration.ts refused a group whose container name another function has). Calling it expands the group: the result says "<Group> expanded. Available
 *   functions: A, B" followed by the group's `functionResult`, and the group's `systemPrompt` joins
 *   the system prompt every turn while it stays expanded.
 * - A skill is a function of its own, offered while it is not active (whether its group is collapsed
 *   or expanded). Activating it makes the tools it references visible even inside a collapsed group,
 *   answers like an expansion, and keeps its `systemPrompt` in the system prompt while active.
 *   Collapsing the group deactivates its skills.
 * - With collapsing switched off there are no containers: every tool that is not hidden is visible
 *   and every group's `systemPrompt` applies.
 * - Hidden tools (definition `hidden`, or an augmentation's `hideTools`) are never visible; a skill
 *   cannot reveal them, only `showTools` can.
 * - Augmentations and context items change the state; `clone()` gives a thread its own copy.
 */
import type { Augmentation, ContextItem, GroupState, SkillDefinition, ToolDefinition, ToolGroupDefinition, ToolGroupState } from '../protocol';
import { toFunctionName } from '../protocol';

export const DEFAULT_CLIENT_TOOLS_INSTRUCTIONS = [
  'Some of your functions are client tools: they run inside the user\'s editor, where the user can see what they do.',
  'A function that stands for a collapsed tool group does nothing but expand that group: call it, and the group\'s own functions become available on your next step.',
  'A client tool may ask the user for permission first. When the user denies or skips a call, do not repeat it unless the user asks you to.',
].join(' ');

/** Most context items a thread keeps; the oldest go first. */
export const MAX_CONTEXT_ITEMS = 256;
/**
 * Most characters of context text a thread keeps (the oldest items go first): every item joins the
 * system prompt of every turn, and 256 items of 200,000 characters made a 51 MB prompt.
 */
export const MAX_CONTEXT_CHARS = 1_000_000;
/** How many tool names a container's description lists before "…". */
const LISTED_NAMES = 16;
const EMPTY_PARAMETERS: Record<string, unknown> = { type: 'object', properties: {}, additionalProperties: false };

export interface ToolStateOptions {
  /** Show collapsed groups as one container function each (default true). */
  collapsing: boolean;
  /** Text joined to the system prompt whenever any client tool group is registered. */
  instructions: string;
}

/** A function as the model sees it. */
export interface FunctionSpec {
  name: string;
  description: string;
  parameters: Record<string, unknown>;
}

export type ResolvedFunction =
  | { kind: 'container'; group: string }
  | { kind: 'skill'; group: string; skill: SkillDefinition }
  | { kind: 'tool'; group: string; tool: ToolDefinition }
  /** The tool exists but the model cannot call it now (hidden, or its group collapsed). */
  | { kind: 'unavailable'; group: string; container: string; tool: ToolDefinition; reason: 'hidden' | 'collapsed' };

/** What expanding a group or activating a skill answers the model and tells the client. */
export interface Expansion {
  group: string;
  skill?: string;
  tools: string[];
  text: string;
}

type Source = 'registered' | 'injected';

interface GroupEntry {
  def: ToolGroupDefinition;
  containerName: string;
  expanded: boolean;
  activeSkills: Set<string>;
  source: Source;
}

export class ClientToolState {
  private groups: GroupEntry[] = [];
  /** Per-tool visibility set by augmentations; overrides the definition's `hidden`. */
  private readonly hiddenOverride = new Map<string, boolean>();
  private context: ContextItem[] = [];

  constructor(
    private readonly options: ToolStateOptions,
    groups: readonly ToolGroupDefinition[] = [],
    preExpanded: readonly string[] = [],
  ) {
    for (const g of groups) this.insert(g, 'registered', preExpanded.includes(g.name));
  }

  get collapsing(): boolean {
    return this.options.collapsing;
  }

  clone(): ClientToolState {
    const copy = new ClientToolState(this.options);
    copy.groups = this.groups.map((e) => ({ ...e, activeSkills: new Set(e.activeSkills) }));
    for (const [k, v] of this.hiddenOverride) copy.hiddenOverride.set(k, v);
    copy.context = [...this.context];
    return copy;
  }

  groupNames(): string[] {
    return this.groups.map((e) => e.def.name);
  }

  /** The definitions of every group except the ones named (which are about to be replaced), for the per-session limits. */
  groupDefinitions(except: ReadonlySet<string> = new Set()): ToolGroupDefinition[] {
    return this.groups.filter((e) => !except.has(e.def.name)).map((e) => e.def);
  }

  /** Tool and skill names registered in every group except the ones named (which are about to be replaced). */
  namesInUse(except: ReadonlySet<string> = new Set()): Set<string> {
    const names = new Set<string>();
    for (const e of this.groups) {
      if (except.has(e.def.name)) continue;
      for (const t of e.def.tools) names.add(t.name);
      for (const s of e.def.skills ?? []) names.add(s.name);
    }
    return names;
  }

  /** The container function names of every group except the ones named (which are about to be replaced). */
  containerNames(except: ReadonlySet<string> = new Set()): Set<string> {
    return new Set(this.groups.filter((e) => !except.has(e.def.name)).map((e) => e.containerName));
  }

  /** The functions the model sees, in group order: container, inactive skills, visible tools. */
  functions(): FunctionSpec[] {
    const out: FunctionSpec[] = [];
    for (const e of this.groups) {
      if (this.isCollapsed(e)) out.push({ name: e.containerName, description: this.containerDescription(e), parameters: EMPTY_PARAMETERS });
      for (const s of e.def.skills ?? []) {
        if (!e.activeSkills.has(s.name)) out.push({ name: s.name, description: this.skillDescription(e, s), parameters: EMPTY_PARAMETERS });
      }
      for (const t of e.def.tools) {
        if (this.isVisible(e, t)) out.push({ name: t.name, description: t.description, parameters: t.parameters });
      }
    }
    return out;
  }

  /** What a function name the model called stands for, or undefined when nothing has that name. */
  resolve(name: string): ResolvedFunction | undefined {
    for (const e of this.groups) {
      const tool = e.def.tools.find((t) => t.name === name);
      if (tool) {
        if (this.isVisible(e, tool)) return { kind: 'tool', group: e.def.name, tool };
        return { kind: 'unavailable', group: e.def.name, container: e.containerName, tool, reason: this.isHidden(tool) ? 'hidden' : 'collapsed' };
      }
      const skill = e.def.skills?.find((s) => s.name === name);
      if (skill) return { kind: 'skill', group: e.def.name, skill };
      if (e.containerName === name) return { kind: 'container', group: e.def.name };
    }
    return undefined;
  }

  /** Expands a group (the model called its container, or an augmentation asked for it). */
  expand(groupName: string): Expansion | undefined {
    const e = this.entry(groupName);
    if (!e) return undefined;
    const wasCollapsed = this.isCollapsed(e);
    e.expanded = true;
    const tools = this.visibleTools(e);
    const head = wasCollapsed ? `${e.def.name} expanded.` : `${e.def.name} is already expanded.`;
    return { group: e.def.name, tools, text: joinText(`${head} Available functions: ${listOrNone(tools)}`, e.def.functionResult) };
  }

  collapse(groupName: string): boolean {
    const e = this.entry(groupName);
    if (!e) return false;
    e.expanded = false;
    e.activeSkills.clear();
    return true;
  }

  activateSkill(groupName: string, skillName: string): Expansion | undefined {
    const e = this.entry(groupName);
    const skill = e?.def.skills?.find((s) => s.name === skillName);
    if (!e || !skill) return undefined;
    e.activeSkills.add(skill.name);
    const tools = skill.tools.filter((n) => {
      const t = e.def.tools.find((d) => d.name === n);
      return t !== undefined && this.isVisible(e, t);
    });
    return { group: e.def.name, skill: skill.name, tools, text: joinText(`${skill.name} skill activated. Available functions: ${listOrNone(tools)}`, skill.functionResult) };
  }

  /**
   * Applies an augmentation in a fixed order: inject, remove, expand, collapse, hide, show, context.
   * Returns a sentence per instruction that named something unknown (the rest still applies).
   */
  apply(aug: Augmentation): string[] {
    const notes: string[] = [];
    for (const g of aug.injectGroups ?? []) this.insert(g, 'injected', g.startCollapsed === false);
    for (const name of aug.removeGroups ?? []) {
      const before = this.groups.length;
      this.groups = this.groups.filter((e) => e.def.name !== name);
      if (this.groups.length === before) notes.push(`removeGroups: no group named "${name}"`);
    }
    for (const name of aug.expandGroups ?? []) if (!this.expand(name)) notes.push(`expandGroups: no group named "${name}"`);
    for (const name of aug.collapseGroups ?? []) if (!this.collapse(name)) notes.push(`collapseGroups: no group named "${name}"`);
    for (const name of aug.hideTools ?? []) this.hiddenOverride.set(name, true);
    for (const name of aug.showTools ?? []) this.hiddenOverride.set(name, false);
    for (const item of aug.addContext ?? []) this.addContext(item);
    return notes;
  }

  /**
   * Takes a new list of registered groups (a resumed session's `hello`): groups that stay keep their
   * expansion and active skills, new ones start as their definition says, registered groups that are
   * gone are dropped. Injected groups are left alone.
   */
  syncRegistered(groups: readonly ToolGroupDefinition[], preExpanded: readonly string[] = []): void {
    const names = new Set(groups.map((g) => g.name));
    this.groups = this.groups.filter((e) => e.source === 'injected' || names.has(e.def.name));
    for (const g of groups) {
      const e = this.entry(g.name);
      if (e && e.source === 'registered') {
        e.def = g;
        const skills = new Set((g.skills ?? []).map((s) => s.name));
        for (const s of [...e.activeSkills]) if (!skills.has(s)) e.activeSkills.delete(s);
      } else if (!e) {
        this.insert(g, 'registered', preExpanded.includes(g.name));
      }
    }
  }

  /** The client-tool part of the system prompt for the next model call ('' when there is none). */
  systemPrompt(): string {
    const parts: string[] = [];
    if (this.groups.length > 0 && this.options.instructions) parts.push(this.options.instructions);
    for (const e of this.groups) {
      if (!this.isCollapsed(e) && e.def.systemPrompt) parts.push(`## ${e.def.name}\n${e.def.systemPrompt}`);
      for (const s of e.def.skills ?? []) {
        if (e.activeSkills.has(s.name) && s.systemPrompt) parts.push(`## ${s.name} (skill of ${e.def.name})\n${s.systemPrompt}`);
      }
    }
    for (const c of this.context) parts.push(`## Context: ${c.name}\n${c.text}`);
    return parts.join('\n\n');
  }

  /** The body of a `toolGroupState` message: what the model sees right now. */
  snapshot(): Omit<ToolGroupState, 'type' | 'threadId'> {
    const groups: GroupState[] = this.groups.map((e) => ({
      name: e.def.name,
      description: e.def.description,
      expanded: !this.isCollapsed(e),
      containerName: e.containerName,
      tools: e.def.tools.map((t) => ({ name: t.name, visible: this.isVisible(e, t), requiresPermission: t.requiresPermission === true })),
      skills: (e.def.skills ?? []).map((s) => ({ name: s.name, active: e.activeSkills.has(s.name) })),
    }));
    return { collapsing: this.options.collapsing, groups, context: [...this.context] };
  }

  private addContext(item: ContextItem): void {
    const i = this.context.findIndex((c) => c.name === item.name);
    if (i >= 0) this.context[i] = item;
    else this.context.push(item);
    if (this.context.length > MAX_CONTEXT_ITEMS) this.context.splice(0, this.context.length - MAX_CONTEXT_ITEMS);
    let chars = this.context.reduce((n, c) => n + c.text.length, 0);
    while (chars > MAX_CONTEXT_CHARS && this.context.length > 1) chars -= this.context.shift()!.text.length;
  }

  private insert(def: ToolGroupDefinition, source: Source, expand: boolean): void {
    const existing = this.groups.findIndex((e) => e.def.name === def.name);
    const expanded = expand || def.startCollapsed === false;
    if (existing >= 0) {
      const old = this.groups[existing];
      this.groups[existing] = { def, containerName: old.containerName, expanded, activeSkills: new Set(), source };
      return;
    }
    // Admission (registration.ts) refused a group whose container name is taken.
    this.groups.push({ def, containerName: toFunctionName(def.name), expanded, activeSkills: new Set(), source });
  }

  private entry(name: string): GroupEntry | undefined {
    return this.groups.find((e) => e.def.name === name);
  }

  private isCollapsed(e: GroupEntry): boolean {
    return this.options.collapsing && !e.expanded;
  }

  private isHidden(t: ToolDefinition): boolean {
    return this.hiddenOverride.get(t.name) ?? t.hidden === true;
  }

  private isVisible(e: GroupEntry, t: ToolDefinition): boolean {
    if (this.isHidden(t)) return false;
    if (!this.isCollapsed(e)) return true;
    for (const s of e.def.skills ?? []) if (e.activeSkills.has(s.name) && s.tools.includes(t.name)) return true;
    return false;
  }

  private visibleTools(e: GroupEntry): string[] {
    return e.def.tools.filter((t) => this.isVisible(e, t)).map((t) => t.name);
  }

  private containerDescription(e: GroupEntry): string {
    const names = e.def.tools.filter((t) => !this.isHidden(t)).map((t) => t.name);
    const listed = names.length > LISTED_NAMES ? `${names.slice(0, LISTED_NAMES).join(', ')}, …` : names.join(', ');
    const count = `${names.length} tool${names.length === 1 ? '' : 's'}`;
    return `${e.def.description}${e.def.description ? ' ' : ''}(collapsed tool group "${e.def.name}" with ${count}${names.length ? `: ${listed}` : ''}). Call this function to expand the group; its tools become available on your next step.`;
  }

  private skillDescription(e: GroupEntry, s: SkillDefinition): string {
    return `${s.description}${s.description ? ' ' : ''}(skill of the "${e.def.name}" tool group; activating it makes available: ${listOrNone(s.tools)}).`;
  }
}

function listOrNone(names: readonly string[]): string {
  return names.length ? names.join(', ') : '(none)';
}

function joinText(head: string, extra: string | undefined): string {
  return extra ? `${head}\n\n${extra}` : head;
}
