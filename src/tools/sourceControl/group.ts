/** The `SourceControl` tool group: the repository's state through VS Code's built-in Git extension, read only. */
import type { ToolGroupSpec } from '../../core/registry';
import type { ClientTool } from '../../core/tool';
import { stampGroup, type BuiltinGroup } from '../support/toolGroup';
import { GitDiff } from './gitDiff';
import { GitLog } from './gitLog';
import { GitStatus } from './gitStatus';

export const SOURCE_CONTROL_GROUP: ToolGroupSpec = {
  name: 'SourceControl',
  description: 'What changed in the workspace\'s Git repository: status (branch, staged, unstaged, untracked, conflicts), diffs against HEAD and recent commits.',
  functionResult:
    'These tools read the repositories VS Code\'s Git extension has open and change nothing. To stage, commit or switch branches, ' +
    'use RunInTerminal, which shows the user the exact git command first.',
  systemPrompt:
    'Use GitStatus to see what changed, GitDiff for the changes themselves (one file at a time when they are large), and GitLog for recent history. ' +
    'Never stage, commit, reset or push without the user asking for it.',
  startCollapsed: true,
};

export const SOURCE_CONTROL_TOOLS: readonly ClientTool[] = stampGroup(SOURCE_CONTROL_GROUP, [GitStatus, GitDiff, GitLog]);

export function sourceControlToolGroup(): BuiltinGroup {
  return { group: SOURCE_CONTROL_GROUP, tools: SOURCE_CONTROL_TOOLS };
}
