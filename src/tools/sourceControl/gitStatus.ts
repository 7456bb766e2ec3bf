/** GitStatus: the repository's branch and its staged, unstaged, untracked and conflicted files, through the built-in Git extension. */
import type { GitChange } from '../../core/host';
import { jsonResult } from '../../core/tool';
import { defineSourceControlTool } from '../support/toolGroup';
import { locateInWorkspace } from '../support/workspacePaths';
import { pathParameter } from '../support/parameters';
import { BOOLEAN, INTEGER, objectOutput, STRING, STRING_OR_NULL, STRINGS } from '../support/outputSchemas';
import { repositoryOf, shownChange, under } from './repository';

interface GitStatusArgs {
  path?: string;
}

/** Files listed per kind of change. */
export const MAX_LISTED = 200;

export const GitStatus = defineSourceControlTool<GitStatusArgs>({
  name: 'GitStatus',
  description:
    'The Git status of the repository holding a workspace path (default: the workspace folder), as VS Code\'s Source Control view has it: ' +
    'the branch, its upstream and how far ahead or behind it is, and the staged, unstaged, untracked and conflicted files ("path (status)"), ' +
    'limited to the given folder. Reads only.',
  parameters: { type: 'object', properties: { path: pathParameter('Workspace-relative file or folder. Default: the workspace folder.') }, additionalProperties: false },
  requiresPermission: false,
  effects: { readOnly: true },
  declineStrategy: 'reject',
  outputSchema: objectOutput(
    {
      repository: STRING,
      path: STRING,
      branch: STRING_OR_NULL,
      detached: BOOLEAN,
      commit: STRING,
      upstream: STRING,
      ahead: INTEGER,
      behind: INTEGER,
      staged: STRINGS,
      unstaged: STRINGS,
      untracked: STRINGS,
      conflicts: STRINGS,
      message: STRING,
      outsideWorkspace: STRING,
      truncated: BOOLEAN,
    },
    ['repository', 'branch', 'staged', 'unstaged', 'untracked', 'conflicts'],
  ),

  async run(args, ctx) {
    const { state, display, target } = await repositoryOf(args.path, ctx);
    let outside = 0;
    let truncated = false;
    const list = async (changes: readonly GitChange[]) => {
      const out: string[] = [];
      for (const c of changes) {
        if (!under(c, target)) {
          // Elsewhere in the workspace is simply not asked about; outside it is worth saying.
          if (!locateInWorkspace(c.path, ctx.host.workspaceFolders())) outside++;
          continue;
        }
        const shown = await shownChange(c, ctx);
        if (!shown) {
          outside++;
          continue;
        }
        if (out.length >= MAX_LISTED) {
          truncated = true;
          continue;
        }
        out.push(`${shown.path} (${shown.status}${shown.from !== undefined ? ` from ${shown.from}` : ''})`);
      }
      return out;
    };
    const [staged, unstaged, untracked, conflicts] = [await list(state.staged), await list(state.unstaged), await list(state.untracked), await list(state.conflicts)];
    const clean = staged.length + unstaged.length + untracked.length + conflicts.length === 0;
    return jsonResult({
      repository: display,
      ...(target.relative !== '.' && !target.isFolderRoot ? { path: target.relative } : {}),
      branch: state.branch ?? null,
      ...(state.branch === undefined ? { detached: true } : {}),
      ...(state.commit ? { commit: state.commit.slice(0, 12) } : {}),
      ...(state.upstream ? { upstream: state.upstream, ahead: state.ahead ?? 0, behind: state.behind ?? 0 } : {}),
      staged,
      unstaged,
      untracked,
      conflicts,
      ...(clean ? { message: 'No changes.' } : {}),
      ...(outside > 0 ? { outsideWorkspace: `${outside} changed file${outside === 1 ? '' : 's'} outside the workspace not listed` } : {}),
      ...(truncated ? { truncated: true } : {}),
    });
  },
});
