/** The `Terminal` tool group: shell commands, each approved by the user. */
import type { ToolGroupSpec } from '../../core/registry';
import type { ClientTool } from '../../core/tool';
import { stampGroup, type BuiltinGroup } from '../support/toolGroup';
import { RunInTerminal } from './runInTerminal';

export const TERMINAL_GROUP: ToolGroupSpec = {
  name: 'Terminal',
  description: 'Run shell commands in the workspace (build, test, git status, …); the user approves each exact command.',
  functionResult:
    'Every RunInTerminal call shows the user the exact command and waits for approval. Commands run in the workspace folder unless cwd says otherwise, ' +
    'and stop at the time limit.',
  systemPrompt:
    'Run one command per call, plainly written, so the user can judge it. Prefer read-only commands; never try to get around a denied command ' +
    'by rewording it.',
  startCollapsed: true,
};

export const TERMINAL_TOOLS: readonly ClientTool[] = stampGroup(TERMINAL_GROUP, [RunInTerminal]);

export function terminalToolGroup(): BuiltinGroup {
  return { group: TERMINAL_GROUP, tools: TERMINAL_TOOLS };
}
