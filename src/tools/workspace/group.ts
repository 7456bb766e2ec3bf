/** The `Workspace` tool group: what is in the workspace and the editor, without changing anything. */
import type { ToolGroupSpec } from '../../core/registry';
import type { ClientTool } from '../../core/tool';
import { stampGroup, type BuiltinGroup } from '../support/toolGroup';
import { FindFiles } from './findFiles';
import { GetDiagnostics } from './getDiagnostics';
import { GetOpenEditors } from './getOpenEditors';
import { GetWorkspaceFolders } from './getWorkspaceFolders';

export const WORKSPACE_GROUP: ToolGroupSpec = {
  name: 'Workspace',
  description: 'Look around the workspace: its folders, files by glob pattern, the open editor tabs, and the problems (diagnostics) VS Code reports.',
  functionResult:
    'Paths are relative to the workspace folder (in a multi-root workspace they start with the folder name). Lines and columns start at 1. ' +
    'FindFiles leaves out what files.exclude, search.exclude and the root .gitignore exclude.',
  systemPrompt:
    'Workspace tools only read. Use FindFiles to locate files before reading them, GetDiagnostics to see compiler and linter errors, ' +
    'and GetOpenEditors to see what the user is working on.',
  startCollapsed: true,
};

export const WORKSPACE_TOOLS: readonly ClientTool[] = stampGroup(WORKSPACE_GROUP, [GetWorkspaceFolders, FindFiles, GetOpenEditors, GetDiagnostics]);

export function workspaceToolGroup(): BuiltinGroup {
  return { group: WORKSPACE_GROUP, tools: WORKSPACE_TOOLS };
}
