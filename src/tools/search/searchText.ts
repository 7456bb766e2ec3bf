/**
 * SearchText: text search across the workspace with the editor's own ripgrep (src/tools/search/ripgrep.ts):
 * literal or regular expression (linear time), case, whole word, include and exclude globs, the
 * user's `files.exclude`/`search.exclude` and `.gitignore`, context lines, a cap with an honest count
 * of what else matched. Protected files (secrets, code-running configuration) are not searched,
 * and a hit whose file turns out protected, or outside the workspace, is dropped.
 */
import { CodedError, ErrorCode } from '../../protocol';
import { protectedGlobs } from '../../core/paths';
import type { SearchToolsHost, TextSearchHit } from '../../core/host';
import { jsonResult, type ToolContext } from '../../core/tool';
import { checkGlobList, MAX_GLOBS, MAX_GLOB_CHARS } from '../support/globArguments';
import { defineSearchTool } from '../support/toolGroup';
import { pathParameter } from '../support/parameters';
import { arrayOf, BOOLEAN, INTEGER, objectOutput, STRING, STRINGS } from '../support/outputSchemas';

interface SearchTextArgs {
  query: string;
  isRegex?: boolean;
  caseSensitive?: boolean;
  wholeWord?: boolean;
  include?: string[];
  exclude?: string[];
  path?: string;
  useExcludeSettings?: boolean;
  useIgnoreFiles?: boolean;
  contextLines?: number;
  maxResults?: number;
}

export const DEFAULT_MAX_MATCHES = 50;
export const MAX_MATCHES = 500;
export const MAX_CONTEXT_LINES = 5;
/** The whole search, over every folder, stops here and says it is incomplete. */
export const SEARCH_TIMEOUT_MS = 10_000;

const globList = (description: string) => ({ type: 'array', maxItems: MAX_GLOBS, items: { type: 'string', minLength: 1, maxLength: MAX_GLOB_CHARS }, description });

export const SearchText = defineSearchTool<SearchTextArgs>({
  name: 'SearchText',
  description:
    'Search the text of the workspace files (like the editor\'s Search view). query is a literal string unless isRegex is true ' +
    '(Rust regex syntax, linear time: no lookaround or backreferences). Case-insensitive unless caseSensitive. ' +
    'include/exclude are globs relative to the workspace folder ("src/**/*.ts", "**/test/**"). ' +
    'The user\'s files.exclude and search.exclude settings and .gitignore files apply unless useExcludeSettings/useIgnoreFiles are false; ' +
    'files with secrets are never searched. Returns matching lines as "path:line:column" with the line\'s text (and contextLines around it), ' +
    `at most maxResults (default ${DEFAULT_MAX_MATCHES}), and how many more lines matched.`,
  parameters: {
    type: 'object',
    properties: {
      query: { type: 'string', minLength: 1, maxLength: 2000, description: 'The text or regular expression to find.' },
      isRegex: { type: 'boolean', description: 'Treat query as a regular expression. Default false.' },
      caseSensitive: { type: 'boolean', description: 'Match case. Default false.' },
      wholeWord: { type: 'boolean', description: 'Match whole words only. Default false.' },
      include: globList('Only files matching one of these globs.'),
      exclude: globList('Leave out files and folders matching these globs.'),
      path: pathParameter('Workspace-relative folder to search in. Default: every workspace folder.'),
      useExcludeSettings: { type: 'boolean', description: 'Apply files.exclude and search.exclude. Default true.' },
      useIgnoreFiles: { type: 'boolean', description: 'Apply .gitignore and .ignore files. Default true.' },
      contextLines: { type: 'integer', minimum: 0, maximum: MAX_CONTEXT_LINES, description: 'Lines of context before and after each match. Default 0.' },
      maxResults: { type: 'integer', minimum: 1, maximum: MAX_MATCHES, description: `Most matching lines to return. Default ${DEFAULT_MAX_MATCHES}.` },
    },
    required: ['query'],
    additionalProperties: false,
  },
  requiresPermission: false,
  effects: { readOnly: true },
  declineStrategy: 'reject',
  outputSchema: objectOutput(
    {
      matches: arrayOf(objectOutput({ location: STRING, text: STRING, before: STRINGS, after: STRINGS }, ['location', 'text'])),
      matchingLines: INTEGER,
      files: INTEGER,
      more: INTEGER,
      complete: BOOLEAN,
      leftOut: STRING,
      message: STRING,
    },
    ['matches', 'matchingLines', 'files', 'more', 'complete'],
  ),

  async run(args, ctx) {
    const includes = checkGlobList(args.include, 'include');
    const excludes = checkGlobList(args.exclude, 'exclude');
    if (args.query.includes('\0')) throw new CodedError(ErrorCode.InvalidArguments, 'query: contains a NUL byte');
    const folders = ctx.host.workspaceFolders();
    if (folders.length === 0) throw new CodedError(ErrorCode.NoWorkspace, 'no workspace folder is open, so there is nothing to search');
    const roots = await searchRoots(args.path, ctx);
    const limit = args.maxResults ?? DEFAULT_MAX_MATCHES;
    const contextLines = args.contextLines ?? 0;
    const hidden = protectedGlobs(ctx.host.protectedPatterns?.() ?? []);
    const deadline = Date.now() + SEARCH_TIMEOUT_MS;

    const hits: TextSearchHit[] = [];
    let matchingLines = 0;
    let files = 0;
    let stoppedBy: string | undefined;
    for (const root of roots) {
      const timeoutMs = deadline - Date.now();
      if (timeoutMs <= 0) {
        stoppedBy ??= 'time';
        break;
      }
      const outcome = await ctx.host.searchText(
        {
          root: root.absolute,
          pattern: args.query,
          isRegex: args.isRegex === true,
          caseSensitive: args.caseSensitive === true,
          wholeWord: args.wholeWord === true,
          includes,
          excludes: [...excludes, ...(args.useExcludeSettings === false ? [] : ctx.host.excludeGlobs(root.folderPath, 'search'))],
          excludesIgnoringCase: hidden,
          useIgnoreFiles: args.useIgnoreFiles !== false,
          contextLines,
          maxMatches: Math.max(0, limit - hits.length),
          timeoutMs,
        },
        ctx.signal,
      );
      hits.push(...outcome.hits);
      matchingLines += outcome.matchingLines;
      files += outcome.files;
      if (!outcome.complete) {
        stoppedBy = outcome.stoppedBy ?? 'time';
        break;
      }
    }

    // The hits again, as paths: inside the workspace now (not swapped for a link out) and not protected.
    const matches: Record<string, unknown>[] = [];
    let dropped = 0;
    for (const hit of hits) {
      const where = await ctx.resolvePath(hit.path).catch(() => undefined);
      if (!where || where.protected) {
        dropped++;
        continue;
      }
      matches.push({
        location: `${where.relative}:${hit.line}${hit.column !== undefined ? `:${hit.column}` : ''}`,
        ...(hit.text !== undefined ? { text: hit.text } : { text: `[a line of ${hit.length ?? 'many'} bytes, too long to show]` }),
        ...(hit.before.length > 0 ? { before: hit.before } : {}),
        ...(hit.after.length > 0 ? { after: hit.after } : {}),
      });
    }
    const more = Math.max(0, matchingLines - hits.length);
    const complete = stoppedBy === undefined;
    return jsonResult({
      matches,
      matchingLines: matchingLines - dropped,
      files,
      more,
      complete,
      ...(dropped > 0 ? { leftOut: `${dropped} matching line${dropped === 1 ? '' : 's'} in protected files or outside the workspace` } : {}),
      ...(complete
        ? more > 0 ? { message: `${more} more matching line${more === 1 ? '' : 's'} not shown; narrow the search or raise maxResults.` } : {}
        : { message: `The search stopped at its ${stoppedBy === 'time' ? `${SEARCH_TIMEOUT_MS / 1000} s time limit` : 'output limit'}: at least ${more} more line${more === 1 ? '' : 's'} matched, and files not reached were not searched.` }),
    });
  },
});

/** The folders to search: the given one (a folder inside the workspace, not a protected one) or every workspace folder. */
async function searchRoots(input: string | undefined, ctx: ToolContext<SearchToolsHost>): Promise<{ absolute: string; folderPath: string }[]> {
  if (input === undefined) return ctx.host.workspaceFolders().map((f) => ({ absolute: f.path, folderPath: f.path }));
  const target = await ctx.resolvePath(input);
  const stat = await ctx.host.stat(target.absolute);
  if (!stat) throw new CodedError(ErrorCode.NotFound, `path: ${target.relative} does not exist`);
  if (stat.kind !== 'directory') throw new CodedError(ErrorCode.InvalidArguments, `path: ${target.relative} is not a folder; use include to search particular files`);
  if (target.protected) throw new CodedError(ErrorCode.PathProtected, `path: ${target.relative} holds secrets or code-running configuration, which SearchText does not search; ReadFile asks the user first`);
  return [{ absolute: target.absolute, folderPath: target.folder.path }];
}
