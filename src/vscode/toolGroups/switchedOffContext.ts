/**
 * Tells the agent which tools the user switched off and where (src/vscode/toolGroups/switchedOffText.ts),
 * as the `switched-off-tools` context item: again whenever a policy or the registry changes, and on
 * every new or resumed session; the same text is not sent twice in a session.
 */
import * as vscode from 'vscode';
import type { ClientCore } from '../../core';
import type { ToolPolicyStore } from './toolPolicies';
import { describeSwitchedOff, NOTHING_SWITCHED_OFF, SWITCHED_OFF_CONTEXT_NAME, type SwitchedOffTool } from './switchedOffText';

export function tellAgentWhatIsOff(core: ClientCore, policies: ToolPolicyStore): vscode.Disposable {
  /** What this session was last told; undefined before anything was sent. */
  let lastSent: string | undefined;
  const push = (): void => {
    const off: SwitchedOffTool[] = [];
    for (const group of core.registry.snapshot()) {
      for (const tool of group.tools) {
        if (tool.requiresPermission && policies.get(tool.key, tool.name) === 'deny') off.push({ name: tool.name, group: group.name });
      }
    }
    const text = describeSwitchedOff(off);
    // Nothing to say until something was switched off (the protocol cannot remove a context item: it is replaced).
    if (text === lastSent || (lastSent === undefined && text === NOTHING_SWITCHED_OFF)) return;
    if (core.pushContext([{ name: SWITCHED_OFF_CONTEXT_NAME, text }])) lastSent = text;
  };
  push();
  return vscode.Disposable.from(
    policies.onDidChange(push),
    core.registry.onDidChange(push),
    core.onWelcome(() => {
      lastSent = undefined;
      push();
    }),
  );
}
