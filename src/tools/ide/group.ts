/** The `IDE` tool group: the editor tools this extension offers the agent. */
import type { ToolGroupSpec } from '../../core/registry';
import type { ClientTool } from '../../core/tool';
import { stampGroup, type BuiltinGroup } from '../support/toolGroup';
import { DeleteFile } from './deleteFile';
import { GetSelection } from './getSelection';
import { OpenFile } from './openFile';
import { ReadFile } from './readFile';
import { ShowMessage } from './showMessage';

export const IDE_GROUP: ToolGroupSpec = {
  name: 'IDE',
  description: "Work with the user's editor: open and read workspace files, see the current selection, show a message, delete a file.",
  functionResult:
    'Paths are relative to the workspace folder (in a multi-root workspace, start with the folder name). ' +
    'Lines and columns start at 1. DeleteFile, and reading files with secrets, ask the user first; a refusal is final for that call.',
  systemPrompt:
    'IDE tools act in the user\'s editor. Prefer GetSelection when the user says "this" or "the selection". ' +
    'Use ReadFile before describing a file you have not seen. Never try to work around a denied permission.',
  startCollapsed: true,
};

export const IDE_TOOLS: readonly ClientTool[] = stampGroup(IDE_GROUP, [OpenFile, GetSelection, ShowMessage, ReadFile, DeleteFile]);

/** What `ClientCore.registry.register` takes: `core.registry.register(ide.group, ide.tools)`. */
export function ideToolGroup(): BuiltinGroup {
  return { group: IDE_GROUP, tools: IDE_TOOLS };
}
