/**
 * GitDiff: the diff against HEAD of a file or of every changed file under a folder (the working
 * tree, or with `staged` the index), capped with an honest count of what was left out. Files
 * outside the workspace are left out, and a protected file's diff is never shown (ReadFile asks).
 */
import { CodedError, ErrorCode } from '../../protocol';
import { jsonResult } from '../../core/tool';
import { defineSourceControlTool } from '../support/toolGroup';
import { pathParameter } from '../support/parameters';
import { INTEGER, objectOutput, STRING, STRINGS } from '../support/outputSchemas';
import { repositoryOf, shownChange, under } from './repository';

interface GitDiffArgs {
  path?: string;
  staged?: boolean;
  maxChars?: number;
}

export const DEFAULT_MAX_DIFF_CHARS = 20_000;
export const MAX_DIFF_CHARS = 200_000;
/** Changed files looked at, at most. */
const MAX_FILES = 500;

export const GitDiff = defineSourceControlTool<GitDiffArgs>({
  name: 'GitDiff',
  description:
    'The unified diff against HEAD of a workspace file, or of every changed file under a folder (default: the whole repository): the working tree\'s changes, ' +
    'or with staged: true those staged in the index. Untracked files have no diff (GitStatus lists them). ' +
    `At most maxChars characters (default ${DEFAULT_MAX_DIFF_CHARS}); files that do not fit are named. Reads only.`,
  parameters: {
    type: 'object',
    properties: {
      path: pathParameter('Workspace-relative file or folder. Default: the workspace folder.'),
      staged: { type: 'boolean', description: 'The staged changes (index against HEAD) instead of the working tree\'s. Default false.' },
      maxChars: { type: 'integer', minimum: 100, maximum: MAX_DIFF_CHARS, description: `Most characters of diff to return. Default ${DEFAULT_MAX_DIFF_CHARS}.` },
    },
    additionalProperties: false,
  },
  requiresPermission: false,
  effects: { readOnly: true },
  declineStrategy: 'reject',
  outputSchema: objectOutput(
    {
      repository: STRING,
      against: { enum: ['HEAD (staged changes)', 'HEAD (working tree)'] },
      diff: STRING,
      files: INTEGER,
      notShown: STRINGS,
      moreFiles: INTEGER,
      withheld: STRINGS,
      withheldReason: STRING,
      message: STRING,
    },
    ['repository', 'against', 'diff', 'files'],
  ),

  async run(args, ctx) {
    const { state, display, target } = await repositoryOf(args.path, ctx);
    if (target.protected) throw new CodedError(ErrorCode.PathProtected, `${target.relative} holds secrets or code-running configuration; its diff is not shown (ReadFile asks the user first)`);
    const staged = args.staged === true;
    const limit = args.maxChars ?? DEFAULT_MAX_DIFF_CHARS;
    const changes = (staged ? state.staged : [...state.unstaged, ...state.conflicts]).filter((c) => under(c, target));
    let diff = '';
    const notShown: string[] = [];
    const withheld: string[] = [];
    let files = 0;
    for (const change of changes.slice(0, MAX_FILES)) {
      const shown = await shownChange(change, ctx);
      if (!shown) continue;
      if (shown.protected) {
        withheld.push(shown.path);
        continue;
      }
      if (diff.length >= limit) {
        notShown.push(shown.path);
        continue;
      }
      const text = await ctx.host.gitDiff(state.root, change.path, staged);
      if (text === '') continue;
      files++;
      const room = limit - diff.length;
      diff += text.length <= room ? text : `${text.slice(0, room)}\n[… ${text.length - room} more characters of ${shown.path} not shown …]\n`;
    }
    const skipped = Math.max(0, changes.length - MAX_FILES);
    return jsonResult({
      repository: display,
      against: staged ? 'HEAD (staged changes)' : 'HEAD (working tree)',
      diff,
      files,
      ...(notShown.length > 0 || skipped > 0 ? { notShown: notShown.slice(0, 50), moreFiles: notShown.length + skipped, message: `${notShown.length + skipped} more changed file(s) did not fit; ask for one of them by path, or raise maxChars.` } : {}),
      ...(withheld.length > 0 ? { withheld, withheldReason: 'protected files (secrets, code-running configuration): their diff is not shown' } : {}),
      ...(diff === '' && withheld.length === 0 ? { message: staged ? 'Nothing staged.' : 'No changes against HEAD.' } : {}),
    });
  },
});
