/** GitLog: recent commits of the repository, or of one file or folder, newest first. */
import { jsonResult } from '../../core/tool';
import { defineSourceControlTool } from '../support/toolGroup';
import { pathParameter } from '../support/parameters';
import { arrayOf, objectOutput, STRING, STRING_OR_NULL } from '../support/outputSchemas';
import { repositoryOf } from './repository';

interface GitLogArgs {
  path?: string;
  maxCommits?: number;
}

export const DEFAULT_MAX_COMMITS = 20;
export const MAX_COMMITS = 200;
const MAX_MESSAGE_CHARS = 1000;

export const GitLog = defineSourceControlTool<GitLogArgs>({
  name: 'GitLog',
  description:
    'Recent commits of the repository holding a workspace path, newest first, each with hash, author, date and message; with path, only commits that touched it. ' +
    `At most maxCommits (default ${DEFAULT_MAX_COMMITS}). Reads only.`,
  parameters: {
    type: 'object',
    properties: {
      path: pathParameter('Workspace-relative file or folder. Default: the whole repository.'),
      maxCommits: { type: 'integer', minimum: 1, maximum: MAX_COMMITS, description: `Most commits to return. Default ${DEFAULT_MAX_COMMITS}.` },
    },
    additionalProperties: false,
  },
  requiresPermission: false,
  effects: { readOnly: true },
  declineStrategy: 'reject',
  outputSchema: objectOutput(
    {
      repository: STRING,
      branch: STRING_OR_NULL,
      path: STRING,
      commits: arrayOf(objectOutput({ hash: STRING, author: STRING, date: STRING, message: STRING }, ['hash', 'message'])),
    },
    ['repository', 'branch', 'commits'],
  ),

  async run(args, ctx) {
    const { state, display, target } = await repositoryOf(args.path, ctx);
    const root = await ctx.resolvePath(state.root).catch(() => undefined);
    // A path narrows the log; so does a repository above the workspace, to the workspace's part.
    const narrowed = args.path !== undefined || !root ? target.absolute : undefined;
    const commits = await ctx.host.gitLog(state.root, args.maxCommits ?? DEFAULT_MAX_COMMITS, narrowed);
    return jsonResult({
      repository: display,
      branch: state.branch ?? null,
      ...(narrowed !== undefined ? { path: target.relative } : {}),
      commits: commits.map((c) => ({
        hash: c.hash.slice(0, 12),
        ...(c.authorName ? { author: c.authorName } : {}),
        ...(c.authorDate ? { date: c.authorDate } : {}),
        message: c.message.length > MAX_MESSAGE_CHARS ? `${c.message.slice(0, MAX_MESSAGE_CHARS)}…` : c.message.trimEnd(),
      })),
    });
  },
});
