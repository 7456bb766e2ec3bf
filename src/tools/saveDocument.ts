/** SaveDocument: saves an open workspace file that has unsaved changes. */
import type { ResolvedPath } from '../core/paths';
import { defineTool, jsonResult, type Preparation } from '../core/tool';

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

export const SaveDocument = defineTool<SaveDocumentArgs, SavePreparation>({
  name: 'SaveDocument',
  group: 'Editor',
  description: 'Save a workspace file that is open in the editor with unsaved changes. Says so when there is nothing to save.',
  parameters: {
    type: 'object',
    properties: { path: { type: 'string', minLength: 1, maxLength: 4096, description: 'Workspace-relative path of the file.' } },
    required: ['path'],
    additionalProperties: false,
  },
  requiresPermission: false,
  declineStrategy: 'reject',

  async prepare(args, ctx) {
    const target = await ctx.resolvePath(args.path);
    if (!target.protected) return { target };
    return {
      target,
      forcePrompt: true,
      prompt: `Save ${target.relative}?`,
      detail: 'This file can hold secrets or configuration that runs code.',
    };
  },

  async run(_args, ctx, prepared) {
    const target = prepared!.target;
    const outcome = await ctx.host.saveDocument(target.absolute);
    return jsonResult({ path: target.relative, saved: outcome === 'saved', status: outcome, message: MESSAGES[outcome] });
  },
});
