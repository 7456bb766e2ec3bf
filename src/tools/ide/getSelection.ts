/** GetSelection: what the user has selected in the active editor. */
import { isProtectedPath, resolveWorkspacePath } from '../../core/paths';
import type { SelectionInfo, WorkspaceInfo } from '../../core/host';
import { consent } from '../../core/consent/consentText';
import { jsonResult, type Preparation } from '../../core/tool';
import { defineIdeTool } from '../support/toolGroup';
import { NO_PARAMETERS } from '../support/parameters';
import { BOOLEAN, objectOutput, RANGE_OUTPUT, STRING } from '../support/outputSchemas';

/** Longest selected text returned; the rest is cut and `truncated` says so. */
export const MAX_SELECTION_CHARS = 100_000;

interface SelectionPreparation extends Preparation {
  selection: SelectionInfo | undefined;
  file: string | undefined;
}

export const GetSelection = defineIdeTool<Record<string, never>, SelectionPreparation>({
  name: 'GetSelection',
  description:
    "Get the user's current selection in the active editor: file, language, range (1-based lines and columns) and the selected text. " +
    'Says so when no editor is active.',
  parameters: NO_PARAMETERS,
  requiresPermission: false,
  effects: { readOnly: true },
  declineStrategy: 'reject',
  outputSchema: objectOutput({ activeEditor: BOOLEAN, message: STRING, file: STRING, language: STRING, range: RANGE_OUTPUT, text: STRING, isEmpty: BOOLEAN, truncated: BOOLEAN }, ['activeEditor']),
  availableWhenUntrusted: true,

  async prepare(_args, ctx) {
    const selection = await ctx.host.getSelection();
    if (!selection) return { selection, file: undefined };
    const file = await displayName(selection, ctx.host);
    // Selected text from a file that holds secrets is shared only with the user's consent.
    const sensitive = !selection.isEmpty && file !== undefined && isProtectedPath(file, ctx.host.protectedPatterns?.() ?? []);
    if (!sensitive) return { selection, file };
    return {
      selection,
      file,
      forcePrompt: true,
      prompt: `Share the text selected in ${file} with the agent?`,
      detail: consent`This file can hold secrets or configuration that runs code.`,
    };
  },

  async run(_args, _ctx, prepared) {
    const selection = prepared?.selection;
    if (!selection) return jsonResult({ activeEditor: false, message: 'No text editor is active, so nothing is selected.' });
    const truncated = selection.text.length > MAX_SELECTION_CHARS;
    const r = selection.selection;
    return jsonResult({
      activeEditor: true,
      file: prepared?.file ?? selection.uri,
      language: selection.language,
      range: { startLine: r.startLine + 1, startColumn: r.startCharacter + 1, endLine: r.endLine + 1, endColumn: r.endCharacter + 1 },
      text: truncated ? selection.text.slice(0, MAX_SELECTION_CHARS) : selection.text,
      isEmpty: selection.isEmpty,
      ...(truncated ? { truncated: true } : {}),
    });
  },
});

/** Workspace-relative when the file is inside the workspace, else its absolute path. */
async function displayName(selection: SelectionInfo, host: WorkspaceInfo): Promise<string | undefined> {
  if (selection.path === undefined) return undefined;
  try {
    return (await resolveWorkspacePath(selection.path, host.workspaceFolders())).relative;
  } catch {
    return selection.path;
  }
}
