/** GetCodeActions: the quick fixes and refactorings the language server offers for a range (the editor's light bulb), without applying any. */
import { jsonResult } from '../../core/tool';
import { defineLanguageTool } from '../support/toolGroup';
import { arrayOf, BOOLEAN, INTEGER, objectOutput, STRING } from '../support/outputSchemas';
import { actionsAt, RANGE_PROPERTIES, type RangeArgs } from './codeActionQuery';

export const MAX_ACTIONS = 50;

export const GetCodeActions = defineLanguageTool<RangeArgs>({
  name: 'GetCodeActions',
  description:
    'List the code actions (quick fixes for problems, refactorings, source actions such as organize imports) the editor offers for a range of a file, as its light bulb does. ' +
    'Changes nothing; ApplyCodeAction applies one by its title after the user reviews it. Each has title, kind, whether it is preferred, and whether it changes files.',
  parameters: { type: 'object', properties: RANGE_PROPERTIES, required: ['path', 'startLine'], additionalProperties: false },
  requiresPermission: false,
  effects: { readOnly: true },
  declineStrategy: 'reject',
  outputSchema: objectOutput(
    {
      at: STRING,
      actions: arrayOf(objectOutput({ title: STRING, kind: STRING, preferred: BOOLEAN, changesFiles: BOOLEAN, files: INTEGER, runsCommand: BOOLEAN, disabled: STRING }, ['title', 'changesFiles'])),
      more: INTEGER,
      message: STRING,
    },
    ['at', 'actions'],
  ),

  async run(args, ctx) {
    const { file, range, actions } = await actionsAt(args, ctx);
    const at = `${file.relative}:${range.startLine + 1}:${range.startCharacter + 1}`;
    return jsonResult({
      at,
      actions: actions.slice(0, MAX_ACTIONS).map((a) => ({
        title: a.title,
        ...(a.kind ? { kind: a.kind } : {}),
        ...(a.isPreferred ? { preferred: true } : {}),
        changesFiles: (a.change?.files.length ?? 0) > 0,
        ...(a.change && a.change.files.length > 0 ? { files: a.change.files.length } : {}),
        ...(a.runsCommand ? { runsCommand: true } : {}),
        ...(a.disabled ? { disabled: a.disabled } : {}),
      })),
      ...(actions.length > MAX_ACTIONS ? { more: actions.length - MAX_ACTIONS } : {}),
      ...(actions.length === 0 ? { message: `No code actions at ${at}.` } : {}),
    });
  },
});
