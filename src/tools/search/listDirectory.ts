/**
 * ListDirectory: a folder's files and folders, to a depth, with file sizes; leaves out what
 * `files.exclude`, the root `.gitignore` and the caller's globs exclude, and says how much it left
 * out. Links are listed as links and never followed; every folder is proven inside the workspace
 * right before it is read, so one swapped for a link out is not listed.
 */
import * as path from 'node:path';
import { CodedError, ErrorCode } from '../../protocol';
import { globToRegExp } from '../../core/globs';
import { jsonResult } from '../../core/tool';
import { checkGlobList, MAX_GLOBS, MAX_GLOB_CHARS } from '../support/globArguments';
import { readGitIgnores } from '../support/gitignore';
import { defineSearchTool } from '../support/toolGroup';
import { pathParameter } from '../support/parameters';
import { arrayOf, BOOLEAN, INTEGER, objectOutput, STRING } from '../support/outputSchemas';

interface ListDirectoryArgs {
  path?: string;
  depth?: number;
  exclude?: string[];
  useExcludeSettings?: boolean;
  useIgnoreFiles?: boolean;
  maxEntries?: number;
}

export const MAX_DEPTH = 6;
export const DEFAULT_MAX_ENTRIES = 200;
export const MAX_ENTRIES = 2000;

export const ListDirectory = defineSearchTool<ListDirectoryArgs>({
  name: 'ListDirectory',
  description:
    'List a workspace folder: its files (with sizes in bytes) and subfolders, to a depth (default 1: the folder itself, at most 6). ' +
    'Folders end with "/", links are marked and not followed. Leaves out what files.exclude, the root .gitignore and exclude globs exclude ' +
    `(unless useExcludeSettings/useIgnoreFiles are false). At most maxEntries (default ${DEFAULT_MAX_ENTRIES}) entries, breadth first.`,
  parameters: {
    type: 'object',
    properties: {
      path: pathParameter('Workspace-relative folder. Default: the workspace folder.'),
      depth: { type: 'integer', minimum: 1, maximum: MAX_DEPTH, description: 'How many levels to list. Default 1.' },
      exclude: { type: 'array', maxItems: MAX_GLOBS, items: { type: 'string', minLength: 1, maxLength: MAX_GLOB_CHARS }, description: 'Globs (relative to the workspace folder) to leave out.' },
      useExcludeSettings: { type: 'boolean', description: 'Apply files.exclude. Default true.' },
      useIgnoreFiles: { type: 'boolean', description: 'Apply the root .gitignore. Default true.' },
      maxEntries: { type: 'integer', minimum: 1, maximum: MAX_ENTRIES, description: `Most entries to return. Default ${DEFAULT_MAX_ENTRIES}.` },
    },
    additionalProperties: false,
  },
  requiresPermission: false,
  effects: { readOnly: true },
  declineStrategy: 'reject',
  outputSchema: objectOutput(
    {
      path: STRING,
      entries: arrayOf(objectOutput({ path: STRING, size: INTEGER, link: BOOLEAN }, ['path'])),
      excluded: INTEGER,
      truncated: BOOLEAN,
      message: STRING,
    },
    ['path', 'entries'],
  ),

  async run(args, ctx) {
    const own = checkGlobList(args.exclude, 'exclude');
    const start = await ctx.resolvePath(args.path ?? '.');
    const stat = await ctx.host.stat(start.absolute);
    if (!stat) throw new CodedError(ErrorCode.NotFound, `${start.relative} does not exist`);
    if (stat.kind !== 'directory') throw new CodedError(ErrorCode.InvalidArguments, `path: ${start.relative} is a file, not a folder; ReadFile reads files`);
    const folder = start.folder;
    const settings = args.useExcludeSettings === false ? [] : ctx.host.excludeGlobs(folder.path, 'files');
    const excluded = [...own, ...settings].map((g) => globToRegExp(g.replace(/\/+$/, '')));
    const ignore = args.useIgnoreFiles === false ? undefined : (await readGitIgnores(ctx.host, [folder])).get(folder.path);
    const inFolder = (relative: string) => (relative === '.' ? '' : relative.startsWith(`${folder.name}/`) && ctx.host.workspaceFolders().length > 1 ? relative.slice(folder.name.length + 1) : relative);
    const isExcluded = (rel: string, isFolder: boolean) =>
      excluded.some((re) => rel.split('/').some((_, i, parts) => re.test(parts.slice(0, i + 1).join('/')))) ||
      (ignore !== undefined && (isFolder ? ignore.ignoresFolder(rel) : ignore.ignores(rel)));

    const limit = args.maxEntries ?? DEFAULT_MAX_ENTRIES;
    const depth = args.depth ?? 1;
    const entries: { path: string; size?: number; link?: true }[] = [];
    let leftOut = 0;
    let truncated = false;
    const queue = [{ absolute: start.absolute, relative: start.relative, level: 1 }];
    while (queue.length > 0 && !truncated) {
      if (ctx.signal.aborted) throw new CodedError(ErrorCode.Cancelled, 'the call was cancelled');
      const dir = queue.shift()!;
      // Right before reading it: still a folder inside the workspace, not a link swapped in.
      const here = await ctx.resolvePath(dir.absolute).catch(() => undefined);
      if (!here || here.absolute !== dir.absolute) continue;
      const children = (await ctx.host.readDirectory(dir.absolute)).sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
      for (const child of children) {
        const relative = dir.relative === '.' ? child.name : `${dir.relative}/${child.name}`;
        if (isExcluded(inFolder(relative), child.kind === 'directory')) {
          leftOut++;
          continue;
        }
        if (entries.length >= limit) {
          truncated = true;
          break;
        }
        if (child.kind === 'directory') {
          entries.push({ path: `${relative}/` });
          if (dir.level < depth) queue.push({ absolute: path.join(dir.absolute, child.name), relative, level: dir.level + 1 });
        } else if (child.kind === 'symlink') {
          entries.push({ path: relative, link: true });
        } else {
          entries.push({ path: relative, ...(child.size !== undefined ? { size: child.size } : {}) });
        }
      }
    }
    return jsonResult({
      path: start.relative,
      entries,
      ...(leftOut > 0 ? { excluded: leftOut } : {}),
      ...(truncated ? { truncated: true, message: `Stopped at ${limit} entries; list a subfolder or raise maxEntries.` } : {}),
    });
  },
});
