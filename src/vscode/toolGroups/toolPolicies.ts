/**
 * The user's per-tool policies from the Tool Groups view (Allow / Ask / Deny for the tools that ask
 * permission), kept in the workspace's state, which no workspace file can write, under each tool's
 * identity key (src/core/consent/storedPolicies.ts says how, and what becomes of entries stored before). The
 * permission gate reads them at every check (src/core/consent/permissionGate.ts `ToolPolicies`).
 */
import * as vscode from 'vscode';
import type { ToolPolicies, ToolPolicy } from '../../core/consent/permissionGate';
import type { ToolRegistry } from '../../core/registry';
import { storedPolicy, withStoredPolicy } from '../../core/consent/storedPolicies';
import { ErrorCode } from '../../protocol';

const POLICIES_KEY = 'clientTools.toolPolicies';

export class ToolPolicyStore implements ToolPolicies, vscode.Disposable {
  private readonly changed = new vscode.EventEmitter<void>();
  /** A policy changed; the tree shows it. */
  readonly onDidChange = this.changed.event;

  constructor(private readonly state: vscode.Memento) {}

  get(toolKey: string, toolName: string): ToolPolicy | undefined {
    return storedPolicy(this.all(), toolKey, toolName);
  }

  /** `ask` removes the entry: asking is what a tool without a policy does. */
  async set(toolKey: string, toolName: string, policy: ToolPolicy): Promise<void> {
    await this.state.update(POLICIES_KEY, withStoredPolicy(this.all(), toolKey, toolName, policy));
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

/** What a call to a tool set to Deny (Off) gets, if the backend still sends one. */
export function switchedOffReason(toolName: string): { code: typeof ErrorCode.ToolDisabled; message: string } {
  return { code: ErrorCode.ToolDisabled, message: `tool ${toolName} is switched off in the Tool Groups view (Deny)` };
}

/**
 * Keeps the tools set to Deny (Off) out of what the backend is offered: each is switched off in the
 * registry, so hello and updateToolGroups leave it out and a call that still comes gets
 * TOOL_DISABLED; Ask or Allow switches it on again. Applied again whenever groups change (a group
 * registered later, the workspace trusted).
 */
export function keepSwitchedOffTools(registry: ToolRegistry, policies: ToolPolicyStore): vscode.Disposable {
  const apply = (): void => {
    for (const group of registry.snapshot()) {
      for (const tool of group.tools) {
        const off = tool.requiresPermission && policies.get(tool.key, tool.name) === 'deny';
        const reason = switchedOffReason(tool.name);
        if (off && tool.disabled === undefined) registry.setDisabled(tool.name, reason);
        else if (!off && tool.disabled?.message === reason.message) registry.setDisabled(tool.name, undefined);
      }
    }
  };
  apply();
  return vscode.Disposable.from(policies.onDidChange(apply), registry.onDidChange(apply));
}
