/**
 * SaveDocument: saves an open workspace file that has unsaved changes, after asking: the buffer may
 * hold the user's own unfinished edits, and the extension cannot tell them from the agent's (an
 * ApplyEdit with `save: true` saves its own change without a second question).
 */
import type { ResolvedPath } from '../../core/paths';
import { consent, consentLines } from '../../core/consent/consentText';
import { jsonResult, type Preparation } from '../../core/tool';
import { defineEditorTool } from '../support/toolGroup';
import { pathOnlyParameters } from '../support/parameters';
import { BOOLEAN, objectOutput, STRING } from '../support/outputSchemas';

interface SaveDocumentArgs {
  path: string;
}

interface SavePreparation extends Preparation {
  target: ResolvedPath;
}

const MESSAGES = {
  saved: 'Saved.',
  notDirty: 'The file has no unsaved changes; nothing to save.',
  notOpen: 'The file is not open in the editor, so it has no unsaved changes.',
} as const;

export const SaveDocument = defineEditorTool<SaveDocumentArgs, SavePreparation>({
  name: 'SaveDocument',
  description:
    'Save a workspace file that is open in the editor with unsaved changes; the user is asked first, since the changes may be their own. ' +
    'Says so when there is nothing to save. To save your own ApplyEdit change, pass save: true to ApplyEdit instead.',
  parameters: pathOnlyParameters('Workspace-relative path of the file.'),
  requiresPermission: false,
  effects: { readOnly: false, destructive: false },
  declineStrategy: 'reject',
  outputSchema: objectOutput({ path: STRING, saved: BOOLEAN, status: STRING, message: STRING }, ['path', 'saved', 'status', 'message']),

  async prepare(args, ctx) {
    const target = await ctx.resolvePath(args.path);
    const { dirty } = await ctx.host.documentState(target.absolute);
    if (!dirty && !target.protected) return { target };
    const lines = [
      dirty ? consent`${target.relative} has unsaved changes in the editor, which may be your own edits; saving writes all of them to disk.` : undefined,
      target.protected ? consent`This file can hold secrets or configuration that runs code.` : undefined,
    ];
    return {
      target,
      forcePrompt: true,
      prompt: dirty ? `Save ${target.relative}, which has unsaved changes?` : `Save ${target.relative}?`,
      detail: consentLines(lines),
    };
  },

  async run(_args, ctx, prepared) {
    const target = prepared!.target;
    const outcome = await ctx.host.saveDocument(target.absolute);
    return jsonResult({ path: target.relative, saved: outcome === 'saved', status: outcome, message: MESSAGES[outcome] });
  },
});
