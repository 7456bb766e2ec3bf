/**
 * FindFiles: workspace files matching a glob. The host's search honours `files.exclude` and
 * `search.exclude`; this tool also drops what each workspace folder's root `.gitignore` ignores
 * (read with the small matcher in gitignore.ts; nested `.gitignore` files are not read).
 */
import { CodedError, ErrorCode } from '../../protocol';
import { jsonResult } from '../../core/tool';
import { checkRelativeGlob } from '../support/globArguments';
import { readGitIgnores } from '../support/gitignore';
import { locateInWorkspace } from '../support/workspacePaths';
import { defineWorkspaceTool } from '../support/toolGroup';
import { BOOLEAN, INTEGER, objectOutput, STRING } from '../support/outputSchemas';

interface FindFilesArgs {
  pattern: string;
  maxResults?: number;
}

export const DEFAULT_MAX_FILES = 200;
export const MAX_FILES = 1000;
/** The host is asked for more than requested so that `.gitignore` filtering still leaves enough. */
const OVERFETCH = 4;
const MAX_HOST_RESULTS = 5000;

export const FindFiles = defineWorkspaceTool<FindFilesArgs>({
  name: 'FindFiles',
  description:
    'Find files in the workspace by glob pattern, e.g. "**/*.ts", "src/**/test_*.py", "**/{package.json,tsconfig.json}". ' +
    'Files excluded by the files.exclude and search.exclude settings or by the root .gitignore are left out. ' +
    'Returns workspace-relative paths, sorted, at most maxResults (default 200, at most 1000), and whether more matched.',
  parameters: {
    type: 'object',
    properties: {
      pattern: { type: 'string', minLength: 1, maxLength: 1000, description: 'Glob relative to the workspace folder(s).' },
      maxResults: { type: 'integer', minimum: 1, maximum: MAX_FILES, description: `Most paths to return. Default ${DEFAULT_MAX_FILES}.` },
    },
    required: ['pattern'],
    additionalProperties: false,
  },
  requiresPermission: false,
  effects: { readOnly: true },
  declineStrategy: 'reject',
  outputSchema: objectOutput({ files: { type: 'array', items: STRING }, count: INTEGER, truncated: BOOLEAN, ignoredByGitignore: INTEGER }, ['files', 'count', 'truncated']),

  async run(args, ctx) {
    const pattern = checkRelativeGlob(args.pattern, 'pattern');
    const folders = ctx.host.workspaceFolders();
    if (folders.length === 0) throw new CodedError(ErrorCode.NoWorkspace, 'no workspace folder is open, so there is nothing to search');
    const limit = args.maxResults ?? DEFAULT_MAX_FILES;
    const asked = Math.min(limit * OVERFETCH + 1, MAX_HOST_RESULTS);
    const found = await ctx.host.findFiles(pattern, { maxResults: asked }, ctx.signal);
    const ignores = await readGitIgnores(ctx.host, folders);

    const files = new Set<string>();
    let ignoredByGitignore = 0;
    for (const abs of found) {
      const where = locateInWorkspace(abs, folders);
      if (!where) continue;
      if (ignores.get(where.folder.path)?.ignores(where.inFolder)) {
        ignoredByGitignore++;
        continue;
      }
      files.add(where.display);
    }
    const sorted = [...files].sort();
    const truncated = sorted.length > limit || found.length >= asked;
    return jsonResult({
      files: sorted.slice(0, limit),
      count: Math.min(sorted.length, limit),
      truncated,
      ...(ignoredByGitignore > 0 ? { ignoredByGitignore } : {}),
    });
  },
});
