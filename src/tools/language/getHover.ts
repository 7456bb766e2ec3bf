/** GetHover: what the editor shows on hover over a symbol: its type or signature and its documentation. */
import { jsonResult } from '../../core/tool';
import { cutWithNote } from '../../protocol/textCut';
import { defineLanguageTool } from '../support/toolGroup';
import { objectOutput, STRING, STRINGS } from '../support/outputSchemas';
import { resolveTarget, TARGET_PROPERTIES, type TargetArgs } from './symbolTarget';

/** Characters of hover text returned. */
export const MAX_HOVER_CHARS = 8000;

export const GetHover = defineLanguageTool<TargetArgs>({
  name: 'GetHover',
  description:
    'Get the hover information of a symbol (its type or signature and its documentation, as markdown), as the editor shows it. ' +
    'Give path, line and column (1-based), or the symbol\'s name as symbol (with path to say which file).',
  parameters: { type: 'object', properties: TARGET_PROPERTIES, additionalProperties: false },
  requiresPermission: false,
  effects: { readOnly: true },
  declineStrategy: 'reject',
  outputSchema: objectOutput({ at: STRING, alsoNamed: STRINGS, hover: STRING, message: STRING }, ['at', 'hover']),

  async run(args, ctx) {
    const target = await resolveTarget(args, ctx);
    const parts = (await ctx.host.hover(target.file.absolute, target.position)).map((p) => p.trim()).filter((p) => p !== '');
    const text = parts.join('\n\n---\n\n');
    return jsonResult({
      at: target.at,
      ...(target.alsoNamed ? { alsoNamed: target.alsoNamed } : {}),
      hover: cutWithNote(text, MAX_HOVER_CHARS),
      ...(text === '' ? { message: `The language server has no hover information at ${target.at}.` } : {}),
    });
  },
});
