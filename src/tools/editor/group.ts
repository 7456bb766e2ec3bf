/** The `Editor` tool group: change files through the editor, with the user in the loop. */
import type { ToolGroupSpec } from '../../core/registry';
import type { ClientTool } from '../../core/tool';
import { stampGroup, type BuiltinGroup } from '../support/toolGroup';
import { ApplyEdit } from './applyEdit';
import { CloseTab } from './closeTab';
import { OpenDiff } from './openDiff';
import { SaveDocument } from './saveDocument';

export const EDITOR_GROUP: ToolGroupSpec = {
  name: 'Editor',
  description: 'Change workspace files through the editor: propose a whole new version in a diff the user accepts or rejects, apply range edits, save, close tabs.',
  functionResult:
    'OpenDiff waits until the user accepts or rejects; an accepted result carries the final content, which may include the user\'s own edits. ' +
    'ApplyEdit asks the user first; lines and columns start at 1 and the end column is exclusive.',
  systemPrompt:
    'Prefer OpenDiff for larger changes so the user can review them; use ApplyEdit for small, precise edits. ' +
    'After a rejected diff or a denied edit, ask the user what to change instead of trying again unchanged.',
  startCollapsed: true,
};

export const EDITOR_TOOLS: readonly ClientTool[] = stampGroup(EDITOR_GROUP, [OpenDiff, ApplyEdit, SaveDocument, CloseTab]);

export function editorToolGroup(): BuiltinGroup {
  return { group: EDITOR_GROUP, tools: EDITOR_TOOLS };
}
