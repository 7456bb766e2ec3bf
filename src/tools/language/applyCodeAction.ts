/**
 * ApplyCodeAction: one of the code actions GetCodeActions lists, chosen by its exact title, with its
 * change shown to the user as one review of every file it touches (src/tools/language/workspaceChange.ts).
 * Only the action's edit is applied: a command it would also run is not, because it cannot be shown
 * before it runs; an action that is only a command is refused.
 */
import { CodedError, ErrorCode } from '../../protocol';
import { defineLanguageTool } from '../support/toolGroup';
import { actionsAt, RANGE_PROPERTIES, type RangeArgs } from './codeActionQuery';
import { STRING } from '../support/outputSchemas';
import { changeReviewOutput, prepareChange, reviewAndApply, type ChangePreparation } from './workspaceChange';

interface ApplyArgs extends RangeArgs {
  title: string;
}

interface ApplyPreparation extends ChangePreparation {
  title: string;
  at: string;
  commandSkipped: boolean;
}

export const ApplyCodeAction = defineLanguageTool<ApplyArgs, ApplyPreparation>({
  name: 'ApplyCodeAction',
  description:
    'Apply a code action (quick fix, refactoring) the editor offers for a range, chosen by its exact title from GetCodeActions with the same path and range. ' +
    'The user reviews the change to every file, may keep or reject each hunk, and accepts or rejects it; blocks until then. ' +
    'Only the action\'s edits are applied (an action that only runs a command is refused). Returns the decision per file, as RenameSymbol does.',
  parameters: {
    type: 'object',
    properties: { ...RANGE_PROPERTIES, title: { type: 'string', minLength: 1, maxLength: 500, description: 'The action\'s exact title, as GetCodeActions returned it.' } },
    required: ['path', 'startLine', 'title'],
    additionalProperties: false,
  },
  // The review is the question: nothing is written unless the user accepts it there.
  requiresPermission: false,
  effects: { readOnly: false, destructive: true },
  declineStrategy: 'reject',
  outputSchema: changeReviewOutput({ note: STRING }),

  async prepare(args, ctx) {
    const { file, range, actions } = await actionsAt(args, ctx);
    const at = `${file.relative}:${range.startLine + 1}:${range.startCharacter + 1}`;
    const action = actions.find((a) => a.title === args.title);
    if (!action) {
      const offered = actions.slice(0, 10).map((a) => `"${a.title}"`).join(', ');
      throw new CodedError(ErrorCode.NotFound, `title: no code action "${args.title}" at ${at}${offered ? `; offered: ${offered}` : ''}`);
    }
    if (action.disabled) throw new CodedError(ErrorCode.ToolFailed, `"${action.title}" cannot be applied now: ${action.disabled}`);
    if (!action.change || action.change.files.length === 0) {
      throw new CodedError(ErrorCode.ToolFailed, `"${action.title}" only runs a command, which cannot be shown before it runs; it was not applied`);
    }
    const change = await prepareChange(action.change, `the code action "${action.title}"`, ctx);
    return { ...change, title: action.title, at, commandSkipped: action.runsCommand };
  },

  async run(_args, ctx, prepared) {
    const result = await reviewAndApply(prepared, { title: prepared?.title ?? 'Code action', message: `The agent proposes the code action "${prepared?.title}" at ${prepared?.at}.` }, ctx);
    if (!prepared?.commandSkipped) return result;
    const [item] = result.content;
    if (item?.type !== 'json' || !item.value || typeof item.value !== 'object') return result;
    return { ...result, content: [{ type: 'json', value: { ...item.value, note: 'The action also runs a command of its language extension; that command was not run.' } }] };
  },
});
