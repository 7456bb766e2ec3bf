/**
 * FindFiles: workspace files matching a glob. The host's search honours `files.exclude` and
 * `search.exclude`; this tool also drops what each workspace folder's root `.gitignore` ignores
 * (read with the small matcher in gitignore.ts; nested `.gitignore` files are not read).
 */
import * as path from 'node:path';
import { CodedError, ErrorCode } from '../../protocol';
import type { WorkspaceFolder, WorkspaceToolsHost } from '../../core/host';
import { jsonResult } from '../../core/tool';
import { GitIgnore } from '../support/gitignore';
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
/** A `.gitignore` larger than this is not read (and not applied). */
const MAX_GITIGNORE_BYTES = 1024 * 1024;

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
    const pattern = checkPattern(args.pattern);
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

/** Refuses what can only be a mistake or an attempt to leave the workspace: absolute paths, `..`. */
function checkPattern(pattern: string): string {
  if (pattern.includes('\0')) throw badPattern('contains a NUL byte');
  const p = pattern.trim().replace(/\\/g, '/');
  if (p === '') throw badPattern('is empty');
  if (p.startsWith('/') || /^[A-Za-z]:/.test(p)) throw badPattern('must be relative to the workspace, not absolute');
  if (p.split('/').includes('..')) throw badPattern('must not contain ".." segments');
  return p.replace(/^\.\//, '');
}

function badPattern(why: string): CodedError {
  return new CodedError(ErrorCode.InvalidArguments, `pattern: ${why}`);
}

async function readGitIgnores(host: WorkspaceToolsHost, folders: readonly WorkspaceFolder[]): Promise<Map<string, GitIgnore>> {
  const out = new Map<string, GitIgnore>();
  for (const folder of folders) {
    const file = path.join(folder.path, '.gitignore');
    try {
      const stat = await host.stat(file);
      if (stat?.kind !== 'file' || stat.size > MAX_GITIGNORE_BYTES) continue;
      const rules = new GitIgnore(new TextDecoder('utf-8').decode(await host.readFile(file)));
      if (!rules.isEmpty) out.set(folder.path, rules);
    } catch {
      // An unreadable .gitignore filters nothing.
    }
  }
  return out;
}
