/** GetDocumentSymbols: a file's outline (classes, functions, methods, variables, …) as the language server reports it. */
import { jsonResult } from '../../core/tool';
import { defineLanguageTool } from '../support/toolGroup';
import { pathParameter } from '../support/parameters';
import { arrayOf, INTEGER, objectOutput, STRING } from '../support/outputSchemas';
import { languageFile } from './symbolTarget';

interface DocumentSymbolsArgs {
  path: string;
  maxResults?: number;
}

export const DEFAULT_MAX_SYMBOLS = 200;
export const MAX_SYMBOLS = 2000;

export const GetDocumentSymbols = defineLanguageTool<DocumentSymbolsArgs>({
  name: 'GetDocumentSymbols',
  description:
    'Get the outline of a workspace file: its symbols (classes, functions, methods, variables, …) in order, each with kind, ' +
    '"path:line:column" of its name, and depth (0 at the top level, 1 inside it, …). Cheaper than reading the file to find one symbol.',
  parameters: {
    type: 'object',
    properties: {
      path: pathParameter('Workspace-relative path of the file.'),
      maxResults: { type: 'integer', minimum: 1, maximum: MAX_SYMBOLS, description: `Most symbols to return. Default ${DEFAULT_MAX_SYMBOLS}.` },
    },
    required: ['path'],
    additionalProperties: false,
  },
  requiresPermission: false,
  effects: { readOnly: true },
  declineStrategy: 'reject',
  outputSchema: objectOutput(
    {
      path: STRING,
      symbols: arrayOf(objectOutput({ name: STRING, kind: STRING, location: STRING, depth: INTEGER, detail: STRING }, ['name', 'kind', 'location', 'depth'])),
      total: INTEGER,
      more: INTEGER,
      message: STRING,
    },
    ['path', 'symbols', 'total'],
  ),

  async run(args, ctx) {
    const file = await languageFile(args.path, ctx);
    const outline = await ctx.host.documentSymbols(file.absolute);
    const limit = args.maxResults ?? DEFAULT_MAX_SYMBOLS;
    return jsonResult({
      path: file.relative,
      symbols: outline.slice(0, limit).map((s) => ({
        name: s.name,
        kind: s.kind,
        location: `${file.relative}:${s.location.range.startLine + 1}:${s.location.range.startCharacter + 1}`,
        depth: s.depth ?? 0,
        ...(s.detail ? { detail: s.detail.slice(0, 200) } : {}),
      })),
      total: outline.length,
      ...(outline.length > limit ? { more: outline.length - limit } : {}),
      ...(outline.length === 0 ? { message: `The language server reports no symbols in ${file.relative}.` } : {}),
    });
  },
});
