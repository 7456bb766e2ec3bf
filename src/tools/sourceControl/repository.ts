/**
 * What the SourceControl tools share: the repository (one the Git extension has open) that holds a
 * workspace path, and its files as the model sees them: inside the workspace, with their
 * workspace-relative paths; a repository rooted above the workspace shows only the workspace's part.
 */
import { CodedError, ErrorCode } from '../../protocol';
import type { GitChange, GitRepositoryState, SourceControlToolsHost } from '../../core/host';
import { isInside, type ResolvedPath } from '../../core/paths';
import type { ToolContext } from '../../core/tool';

export interface Repository {
  state: GitRepositoryState;
  /** What the model is told the repository is: its root, workspace-relative, or a note that it is above the workspace. */
  display: string;
  /** The workspace path asked about. */
  target: ResolvedPath;
}

export async function repositoryOf(input: string | undefined, ctx: ToolContext<SourceControlToolsHost>): Promise<Repository> {
  const target = await ctx.resolvePath(input ?? '.');
  const state = await ctx.host.gitRepository(target.absolute);
  if (!state) {
    throw new CodedError(ErrorCode.NotFound, `no Git repository that VS Code has open holds ${target.relative} (the Source Control view opens one; this tool never does)`);
  }
  const root = await ctx.resolvePath(state.root).catch(() => undefined);
  return { state, display: root ? root.relative : `a repository above the workspace (${target.folder.name} is inside it)`, target };
}

/** A change as the model sees it, or undefined when its file is outside the workspace. */
export async function shownChange(change: GitChange, ctx: ToolContext<SourceControlToolsHost>): Promise<{ path: string; status: string; from?: string; protected: boolean } | undefined> {
  const where = await ctx.resolvePath(change.path).catch(() => undefined);
  if (!where) return undefined;
  const from = change.originalPath !== undefined ? (await ctx.resolvePath(change.originalPath).catch(() => undefined))?.relative : undefined;
  return { path: where.relative, status: change.status, ...(from !== undefined ? { from } : {}), protected: where.protected };
}

/** Whether a change's file lies under the asked folder (or is the asked file). */
export function under(change: GitChange, target: ResolvedPath): boolean {
  return isInside(change.path, target.absolute);
}
