/** SearchWorkspaceSymbols: symbols across the workspace whose names match a query, as the editor's "Go to Symbol in Workspace" finds them. */
import { jsonResult } from '../../core/tool';
import { defineLanguageTool } from '../support/toolGroup';
import { placeLocations, positionText } from './locations';
import { arrayOf, BOOLEAN, INTEGER, objectOutput, STRING } from '../support/outputSchemas';
import { bareName } from './symbolTarget';

interface WorkspaceSymbolsArgs {
  query: string;
  maxResults?: number;
}

export const DEFAULT_MAX_WORKSPACE_SYMBOLS = 50;
export const MAX_WORKSPACE_SYMBOLS = 500;

export const SearchWorkspaceSymbols = defineLanguageTool<WorkspaceSymbolsArgs>({
  name: 'SearchWorkspaceSymbols',
  description:
    'Find symbols (classes, functions, interfaces, …) across the workspace by name, as "Go to Symbol in Workspace" does (the language server\'s fuzzy match). ' +
    'Returns name, kind, container and "path:line:column", exact names first, workspace files before libraries (which come without text).',
  parameters: {
    type: 'object',
    properties: {
      query: { type: 'string', minLength: 1, maxLength: 200, pattern: '^[^\\n\\r]+$', description: 'The name, or part of it.' },
      maxResults: { type: 'integer', minimum: 1, maximum: MAX_WORKSPACE_SYMBOLS, description: `Most symbols to return. Default ${DEFAULT_MAX_WORKSPACE_SYMBOLS}.` },
    },
    required: ['query'],
    additionalProperties: false,
  },
  requiresPermission: false,
  effects: { readOnly: true },
  declineStrategy: 'reject',
  outputSchema: objectOutput(
    {
      symbols: arrayOf(objectOutput({ name: STRING, kind: STRING, container: STRING, location: STRING, outsideWorkspace: BOOLEAN, protected: BOOLEAN }, ['name', 'kind', 'location'])),
      total: INTEGER,
      more: INTEGER,
      message: STRING,
    },
    ['symbols', 'total'],
  ),

  async run(args, ctx) {
    const found = await ctx.host.workspaceSymbols(args.query);
    const placed = await placeLocations(found.map((s) => s.location), ctx);
    const symbolAt = new Map(found.map((s) => [s.location, s]));
    const exact = (name: string) => (bareName(name) === args.query ? 0 : bareName(name).toLowerCase() === args.query.toLowerCase() ? 1 : 2);
    const rows = placed
      .map((p, order) => ({ p, s: symbolAt.get(p.location)!, order }))
      .sort((a, b) => exact(a.s.name) - exact(b.s.name) || a.order - b.order);
    const limit = args.maxResults ?? DEFAULT_MAX_WORKSPACE_SYMBOLS;
    return jsonResult({
      symbols: rows.slice(0, limit).map(({ p, s }) => ({
        name: s.name,
        kind: s.kind,
        ...(s.container ? { container: s.container } : {}),
        location: positionText(p.display, p.location),
        ...(p.placement === 'outside' ? { outsideWorkspace: true } : p.placement === 'protected' ? { protected: true } : {}),
      })),
      total: rows.length,
      ...(rows.length > limit ? { more: rows.length - limit } : {}),
      ...(rows.length === 0 ? { message: `No symbol matches "${args.query}" (the language server may still be loading the project, or no open file's language offers workspace symbols).` } : {}),
    });
  },
});
