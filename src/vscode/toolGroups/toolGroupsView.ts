import * as vscode from 'vscode';
import type { ToolPolicies } from '../../core/consent/permissionGate';
import type { RegisteredTool } from '../../core/registry';
import { describeEffects } from '../../core/tool';
import { describeSource } from '../../core/consent/toolIdentity';
import type { ToolGroupDefinition, ToolGroupState } from '../../protocol';
import { safe, uiText } from '../../core/uiText';
import * as ui from '../ui';

/**
 * The tree's words for the states `snapshot()` reports (those stay as they are: tests and Show Tool
 * Groups read them). A group is "expanded" for the agent while its tree node may be collapsed, so
 * the tree says what the agent has, not how the group is drawn.
 */
const GROUP_WORDS: Record<string, string> = {
  expanded: 'the agent has its tools',
  collapsed: 'the agent opens it when needed',
  'not registered': 'not sent to the agent',
};
const TOOL_WORDS: Record<string, string> = {
  visible: 'the agent can use it',
  'in collapsed group': 'once the agent opens the group',
  hidden: 'hidden from the agent',
  'switched off': '',
  'not registered': 'not sent to the agent',
};

type Node =
  | { kind: 'group'; name: string }
  | { kind: 'tool'; group: string; name: string }
  | { kind: 'skill'; group: string; name: string }
  | { kind: 'notice'; group: string };

/** A group that is not (or not yet) working, shown with why: an MCP server waiting for approval, failed, misconfigured. */
export interface GroupNotice {
  group: string;
  status: string;
  detail?: string;
  error: boolean;
}

/**
 * Tree of the registered tool groups. Local definitions say what exists and which tools need
 * permission; the backend's `toolGroupState` says what the model sees right now (expanded,
 * collapsed, hidden). Updates live as either changes.
 */
export class ToolGroupsView implements vscode.TreeDataProvider<Node>, vscode.Disposable {
  private definitions: ToolGroupDefinition[] = [];
  private state: ToolGroupState | undefined;
  private readonly changed = new vscode.EventEmitter<Node | undefined>();
  readonly onDidChangeTreeData = this.changed.event;
  private policies: ToolPolicies | undefined;
  private notices: GroupNotice[] = [];
  private lookup: (toolName: string) => RegisteredTool | undefined = () => undefined;

  /** The user's tool policies, shown on the tools that ask permission. */
  setPolicies(policies: ToolPolicies): void {
    this.policies = policies;
    this.changed.fire(undefined);
  }

  /** Where the view finds each tool's identity (policies are kept under it) and classification: the registry. */
  setToolLookup(lookup: (toolName: string) => RegisteredTool | undefined): void {
    this.lookup = lookup;
    this.changed.fire(undefined);
  }

  /** Draws the tree again (the view title's refresh). */
  refresh(): void {
    this.changed.fire(undefined);
  }

  setDefinitions(groups: ToolGroupDefinition[]): void {
    this.definitions = groups;
    this.changed.fire(undefined);
  }

  /** Groups that are not working right now, with why (MCP servers); shown after the registered groups. */
  setNotices(notices: GroupNotice[]): void {
    this.notices = notices;
    this.changed.fire(undefined);
  }

  setState(state: ToolGroupState | undefined): void {
    this.state = state;
    this.changed.fire(undefined);
  }

  /** A plain snapshot of what the tree shows, for tests and for "Show Tool Groups". */
  snapshot(): { name: string; status: string; tools: { name: string; status: string; permission: boolean; policy: string; classification: string }[] }[] {
    return this.definitions.map((g) => ({
      name: g.name,
      status: this.groupStatus(g.name),
      tools: g.tools.map((t) => ({ name: t.name, status: this.toolStatus(g.name, t.name), permission: t.requiresPermission === true, policy: this.policyOf(t.name) ?? 'ask', classification: this.classificationOf(t.name) })),
    })).concat(this.shownNotices().map((n) => ({ name: n.group, status: n.detail === undefined ? n.status : `${n.status}: ${n.detail}`, tools: [] })));
  }

  /** Notices for groups that are not registered (a registered group shows its own state). */
  private shownNotices(): GroupNotice[] {
    // One node per group (tree ids must be unique): the first notice says the most.
    return this.notices.filter((n, i) => !this.definitions.some((d) => d.name === n.group) && this.notices.findIndex((x) => x.group === n.group) === i);
  }

  getChildren(node?: Node): Node[] {
    if (!node) return [...this.definitions.map((g): Node => ({ kind: 'group', name: g.name })), ...this.shownNotices().map((n): Node => ({ kind: 'notice', group: n.group }))];
    if (node.kind !== 'group') return [];
    const g = this.definitions.find((d) => d.name === node.name);
    if (!g) return [];
    return [
      ...g.tools.map((t): Node => ({ kind: 'tool', group: g.name, name: t.name })),
      ...(g.skills ?? []).map((s): Node => ({ kind: 'skill', group: g.name, name: s.name })),
    ];
  }

  /** Group, tool and skill names and descriptions come from other extensions and the backend: through the door. */
  getTreeItem(node: Node): vscode.TreeItem {
    if (node.kind === 'notice') {
      const n = this.notices.find((x) => x.group === node.group);
      return ui.treeItem(uiText(node.group), vscode.TreeItemCollapsibleState.None, {
        id: `notice:${node.group}`,
        description: uiText(n?.status ?? ''),
        tooltip: n?.detail === undefined ? undefined : uiText(n.detail),
        iconPath: new vscode.ThemeIcon(n?.error ? 'error' : 'circle-outline'),
      });
    }
    if (node.kind === 'group') {
      const g = this.definitions.find((d) => d.name === node.name);
      const status = this.groupStatus(node.name);
      return ui.treeItem(uiText(node.name), vscode.TreeItemCollapsibleState.Collapsed, {
        id: `group:${node.name}`,
        description: uiText(GROUP_WORDS[status] ?? status),
        tooltip: g?.description === undefined ? undefined : uiText(g.description),
        iconPath: new vscode.ThemeIcon(status === 'expanded' ? 'folder-opened' : 'folder'),
        contextValue: 'group',
      });
    }
    if (node.kind === 'skill') {
      const active = this.state?.groups.find((g) => g.name === node.group)?.skills.find((s) => s.name === node.name)?.active ?? false;
      return ui.treeItem(uiText(node.name), vscode.TreeItemCollapsibleState.None, {
        id: `skill:${node.group}/${node.name}`,
        description: active ? safe`skill · active` : safe`skill`,
        iconPath: new vscode.ThemeIcon('lightbulb'),
      });
    }
    const def = this.definitions.find((d) => d.name === node.group)?.tools.find((t) => t.name === node.name);
    const status = this.toolStatus(node.group, node.name);
    const classification = this.classificationOf(node.name);
    return ui.treeItem(uiText(node.name), vscode.TreeItemCollapsibleState.None, {
      id: `tool:${node.group}/${node.name}`,
      description: uiText([def?.requiresPermission ? this.permissionText(node.name) : '', classification, TOOL_WORDS[status] ?? status].filter(Boolean).join(' · ')),
      tooltip: def?.description === undefined ? undefined : uiText([def.description, this.classificationNote(node.name)].filter(Boolean).join('\n\n')),
      iconPath: new vscode.ThemeIcon(def?.requiresPermission ? 'shield' : status === 'hidden' ? 'eye-closed' : 'tools'),
      // Policies (Allow / Ask / Deny in the context menu) apply where the gate asks: tools that ask
      // permission. The current one is in the value, so the menu shows it checked (package.json).
      contextValue: def?.requiresPermission ? `tool-asks-${this.policyOf(node.name) ?? 'ask'}` : 'tool',
    });
  }

  /** What the tool does, in words, as its definition (or its MCP server) classifies it. */
  private classificationOf(toolName: string): string {
    return describeEffects(this.lookup(toolName)?.tool.effects).join(', ');
  }

  /** Where the classification comes from, for the tooltip: an MCP server's hints are its claim and skip no prompt. */
  private classificationNote(toolName: string): string {
    const entry = this.lookup(toolName);
    const words = describeEffects(entry?.tool.effects);
    if (!entry || words.length === 0) return '';
    if (entry.identity.source.kind !== 'mcp') return `Classification: ${words.join(', ')}.`;
    return `Classification: ${words.join(', ')}, as ${describeSource(entry.identity.source)} describes it (its claim, not checked; it never skips a prompt).`;
  }

  /** The tool's policy, read under its identity key. */
  private policyOf(toolName: string): ReturnType<ToolPolicies['get']> {
    const key = this.lookup(toolName)?.key;
    return key === undefined ? undefined : this.policies?.get(key, toolName);
  }

  private permissionText(tool: string): string {
    const policy = this.policyOf(tool);
    return policy === 'allow' ? 'runs without asking (your choice)' : policy === 'deny' ? 'off (your choice)' : 'asks you first';
  }

  private groupStatus(name: string): string {
    const g = this.state?.groups.find((s) => s.name === name);
    if (!this.state) return 'not connected';
    if (!g) return 'not registered';
    return g.expanded ? 'expanded' : 'collapsed';
  }

  private toolStatus(group: string, tool: string): string {
    if (this.policyOf(tool) === 'deny' && this.definitions.find((d) => d.name === group)?.tools.find((t) => t.name === tool)?.requiresPermission) return 'switched off';
    const g = this.state?.groups.find((s) => s.name === group);
    const t = g?.tools.find((x) => x.name === tool);
    if (!t) return this.state ? 'not registered' : '';
    if (!t.visible) return g?.expanded ? 'hidden' : 'in collapsed group';
    return 'visible';
  }

  dispose(): void {
    this.changed.dispose();
  }
}
