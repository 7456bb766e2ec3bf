/**
 * RenameSymbol: the language server's rename of a symbol across the workspace, shown to the user as
 * one review of every file it touches (each hunk kept or rejected), written with one undoable edit
 * only when the user accepts (src/tools/language/workspaceChange.ts).
 */
import { CodedError, ErrorCode } from '../../protocol';
import type { ToolContext } from '../../core/tool';
import type { LanguageToolsHost } from '../../core/host';
import { defineLanguageTool } from '../support/toolGroup';
import { resolveTarget, TARGET_PROPERTIES, type Target, type TargetArgs } from './symbolTarget';
import { changeReviewOutput, prepareChange, reviewAndApply, type ChangePreparation } from './workspaceChange';

interface RenameArgs extends TargetArgs {
  newName: string;
}

interface RenamePreparation extends ChangePreparation {
  target: Target;
}

export const RenameSymbol = defineLanguageTool<RenameArgs, RenamePreparation>({
  name: 'RenameSymbol',
  description:
    'Rename a symbol everywhere it is used, as the editor\'s Rename Symbol does (the language server decides what changes). ' +
    'Give path, line and column (1-based), or the symbol\'s name as symbol, and newName. The user reviews the change to every file, may keep or reject each hunk, ' +
    'and accepts or rejects it; blocks until then. Returns {"decision": "accepted" | "partial" | "rejected", "files": [{"path", "decision", "hunks", "keptHunks", "rejectedHunks"}], "reason"}. ' +
    'Nothing is written when rejected.',
  parameters: {
    type: 'object',
    properties: {
      ...TARGET_PROPERTIES,
      newName: { type: 'string', minLength: 1, maxLength: 200, pattern: '^[^\\n\\r]+$', description: 'The new name.' },
    },
    required: ['newName'],
    additionalProperties: false,
  },
  // The review is the question: nothing is written unless the user accepts it there.
  requiresPermission: false,
  effects: { readOnly: false, destructive: true },
  declineStrategy: 'reject',
  outputSchema: changeReviewOutput(),

  async prepare(args, ctx) {
    const target = await resolveTarget(args, ctx);
    const change = await ctx.host.renameEdits(target.file.absolute, target.position, args.newName).catch((e: unknown) => {
      throw e instanceof CodedError ? e : new CodedError(ErrorCode.ToolFailed, `the symbol at ${target.at} cannot be renamed: ${e instanceof Error ? e.message : String(e)}`);
    });
    return { target, ...(await prepareChange(change, `renaming the symbol at ${target.at} to ${args.newName}`, ctx)) };
  },

  run(args, ctx: ToolContext<LanguageToolsHost>, prepared) {
    const at = prepared?.target.at ?? '';
    return reviewAndApply(prepared, { title: `Rename to ${args.newName}`, message: `The agent proposes renaming the symbol at ${at} to ${args.newName}.` }, ctx);
  },
});
