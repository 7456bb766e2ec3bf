/**
 * The user's per-tool policies from the Tool Groups view (Allow / Ask / Deny for the tools that ask
 * permission), kept in the workspace's state, which no workspace file can write. The permission
 * gate reads them at every check (src/core/permissions.ts `ToolPolicies`).
 */
import * as vscode from 'vscode';
import type { ToolPolicies, ToolPolicy } from '../core/permissions';

const POLICIES_KEY = 'clientTools.toolPolicies';
const POLICIES: readonly ToolPolicy[] = ['ask', 'allow', 'deny'];

export class ToolPolicyStore implements ToolPolicies, vscode.Disposable {
  private readonly changed = new vscode.EventEmitter<void>();
  /** A policy changed; the tree shows it. */
  readonly onDidChange = this.changed.event;

  constructor(private readonly state: vscode.Memento) {}

  get(toolName: string): ToolPolicy | undefined {
    const value = this.all()[toolName];
    return POLICIES.includes(value as ToolPolicy) && value !== 'ask' ? (value as ToolPolicy) : undefined;
  }

  /** `ask` removes the entry: asking is what a tool without a policy does. */
  async set(toolName: string, policy: ToolPolicy): Promise<void> {
    const { [toolName]: _old, ...others } = this.all();
    await this.state.update(POLICIES_KEY, policy === 'ask' ? others : { ...others, [toolName]: policy });
    this.changed.fire();
  }

  private all(): Record<string, unknown> {
    const stored = this.state.get<unknown>(POLICIES_KEY);
    return stored !== null && typeof stored === 'object' && !Array.isArray(stored) ? (stored as Record<string, unknown>) : {};
  }

  dispose(): void {
    this.changed.dispose();
  }
}
