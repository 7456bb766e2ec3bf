/**
 * How the Tool Groups view's policies are stored: one entry per tool, under its identity key
 * (src/core/consent/toolIdentity.ts). Versions before identities stored them under the model-facing name.
 * A built-in tool's key is its name, so its entry carries over. Under any other name the entry could
 * have meant either of two tools (`mcp_github_create_issue` was server `github_create`'s `issue` and
 * server `github`'s `create_issue`), so it is never read as Allow: a Deny stays in force for whatever
 * tool has that name now (never wider than before), an Allow is ignored. Setting the tool's policy
 * again replaces the old entry.
 */
import type { ToolPolicy } from './permissionGate';
import { isBareKey } from './toolIdentity';

export type StoredPolicies = Readonly<Record<string, unknown>>;

const POLICIES: readonly ToolPolicy[] = ['ask', 'allow', 'deny'];

/** The policy of the tool with this identity key and model-facing name; undefined means ask. */
export function storedPolicy(stored: StoredPolicies, toolKey: string, toolName: string): ToolPolicy | undefined {
  const value = Object.hasOwn(stored, toolKey) ? stored[toolKey] : undefined;
  if (POLICIES.includes(value as ToolPolicy) && value !== 'ask') return value as ToolPolicy;
  if (toolKey !== toolName && isBareKey(toolName) && Object.hasOwn(stored, toolName) && stored[toolName] === 'deny') return 'deny';
  return undefined;
}

/** The stored entries with this tool's policy set (`ask` removes its entry) and any entry under its old name gone. */
export function withStoredPolicy(stored: StoredPolicies, toolKey: string, toolName: string, policy: ToolPolicy): Record<string, unknown> {
  const next: Record<string, unknown> = { ...stored };
  delete next[toolKey];
  if (toolKey !== toolName && isBareKey(toolName)) delete next[toolName];
  if (policy !== 'ask') next[toolKey] = policy;
  return next;
}
