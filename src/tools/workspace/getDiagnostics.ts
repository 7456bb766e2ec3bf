/** GetDiagnostics: the problems (errors, warnings, …) VS Code knows about, for one file or the workspace. */
import type { DiagnosticSeverity, FileDiagnostics } from '../../core/host';
import { jsonResult } from '../../core/tool';
import { locateInWorkspace } from '../support/workspacePaths';
import { defineWorkspaceTool } from '../support/toolGroup';
import { pathParameter } from '../support/parameters';
import { BOOLEAN, INTEGER, objectOutput, RANGE_OUTPUT, STRING } from '../support/outputSchemas';

interface GetDiagnosticsArgs {
  path?: string;
  minSeverity?: DiagnosticSeverity;
  maxResults?: number;
}

export const DEFAULT_MAX_DIAGNOSTICS = 200;
export const MAX_DIAGNOSTICS = 1000;
const MAX_MESSAGE_CHARS = 2000;
const RANK: Record<DiagnosticSeverity, number> = { error: 0, warning: 1, information: 2, hint: 3 };

export const GetDiagnostics = defineWorkspaceTool<GetDiagnosticsArgs>({
  name: 'GetDiagnostics',
  description:
    'Get the diagnostics (problems from compilers and linters) of one workspace file, or of every workspace file when no path is given. ' +
    'Each has severity (error, warning, information, hint), message, range (1-based lines and columns) and source. Errors come first.',
  parameters: {
    type: 'object',
    properties: {
      path: pathParameter('Workspace-relative path of one file. Omit for the whole workspace.'),
      minSeverity: { type: 'string', enum: ['error', 'warning', 'information', 'hint'], description: 'Leave out anything less severe. Default hint (everything).' },
      maxResults: { type: 'integer', minimum: 1, maximum: MAX_DIAGNOSTICS, description: `Most diagnostics to return. Default ${DEFAULT_MAX_DIAGNOSTICS}.` },
    },
    additionalProperties: false,
  },
  requiresPermission: false,
  effects: { readOnly: true },
  declineStrategy: 'reject',
  outputSchema: objectOutput({ diagnostics: { type: 'array', items: objectOutput({ path: STRING, severity: { enum: ['error', 'warning', 'information', 'hint'] }, message: STRING, range: RANGE_OUTPUT, source: STRING }, ['path', 'severity', 'message', 'range']) }, total: INTEGER, counts: objectOutput({ error: INTEGER, warning: INTEGER, information: INTEGER, hint: INTEGER }, ['error', 'warning', 'information', 'hint']), truncated: BOOLEAN }, ['diagnostics', 'total', 'counts']),

  async run(args, ctx) {
    const folders = ctx.host.workspaceFolders();
    let reported: FileDiagnostics[];
    if (args.path !== undefined) {
      const target = await ctx.resolvePath(args.path);
      reported = await ctx.host.diagnostics(target.absolute);
    } else {
      reported = await ctx.host.diagnostics();
    }
    const worst = RANK[args.minSeverity ?? 'hint'];
    const limit = args.maxResults ?? DEFAULT_MAX_DIAGNOSTICS;
    const all = reported.flatMap((file) => {
      const where = locateInWorkspace(file.path, folders);
      if (!where) return [];
      return file.diagnostics
        .filter((d) => RANK[d.severity] <= worst)
        .map((d) => ({
          path: where.display,
          severity: d.severity,
          message: d.message.length > MAX_MESSAGE_CHARS ? `${d.message.slice(0, MAX_MESSAGE_CHARS - 1)}…` : d.message,
          range: { startLine: d.range.startLine + 1, startColumn: d.range.startCharacter + 1, endLine: d.range.endLine + 1, endColumn: d.range.endCharacter + 1 },
          ...(d.source ? { source: d.source } : {}),
          ...(d.code ? { code: d.code } : {}),
        }));
    });
    all.sort((a, b) => RANK[a.severity] - RANK[b.severity] || a.path.localeCompare(b.path) || a.range.startLine - b.range.startLine);
    const counts = { error: 0, warning: 0, information: 0, hint: 0 };
    for (const d of all) counts[d.severity]++;
    return jsonResult({
      diagnostics: all.slice(0, limit),
      total: all.length,
      counts,
      ...(all.length > limit ? { truncated: true } : {}),
    });
  },
});
