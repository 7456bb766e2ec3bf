/**
 * The SourceControl group's part of `IdeHost` on the built-in Git extension's API
 * (`vscode.extensions.getExtension('vscode.git').exports.getAPI(1)`), reads only. Only repositories
 * the Git extension has open are used: opening one would run git in a folder the user's settings
 * did not choose (and a repository's configuration can run commands).
 */
import * as vscode from 'vscode';
import { CodedError, ErrorCode } from '../../protocol';
import type { GitChange, GitCommit, GitRepositoryState } from '../../core/host';

/** The part of the Git extension's API (extensions/git/src/api/git.d.ts, version 1) used here. */
interface GitApi {
  readonly state: 'uninitialized' | 'initialized';
  readonly onDidChangeState: vscode.Event<'uninitialized' | 'initialized'>;
  readonly repositories: GitRepository[];
  getRepository(uri: vscode.Uri): GitRepository | null;
}

interface GitRepository {
  readonly rootUri: vscode.Uri;
  readonly state: {
    readonly HEAD: { name?: string; commit?: string; upstream?: { remote: string; name: string }; ahead?: number; behind?: number } | undefined;
    readonly mergeChanges: GitApiChange[];
    readonly indexChanges: GitApiChange[];
    readonly workingTreeChanges: GitApiChange[];
    /** Present in newer versions, filled when `git.untrackedChanges` is `separate`. */
    readonly untrackedChanges?: GitApiChange[];
  };
  status(): Promise<void>;
  diffWithHEAD(path: string): Promise<string>;
  diffIndexWithHEAD(path: string): Promise<string>;
  log(options?: { maxEntries?: number; path?: string }): Promise<{ hash: string; message: string; authorName?: string; authorDate?: Date }[]>;
}

interface GitApiChange {
  readonly uri: vscode.Uri;
  readonly originalUri: vscode.Uri;
  readonly renameUri: vscode.Uri | undefined;
  readonly status: number;
}

/** The Git extension's `Status` enum, by value. */
const STATUS = [
  'modified', 'added', 'deleted', 'renamed', 'copied', 'modified', 'deleted', 'untracked', 'ignored', 'intent to add', 'intent to rename', 'type changed',
  'added by us', 'added by them', 'deleted by us', 'deleted by them', 'both added', 'both deleted', 'both modified',
];
const UNTRACKED = 7;

/** How long to wait for the Git extension's first scan of the workspace. */
const INITIALIZE_MS = 10_000;

async function api(): Promise<GitApi> {
  const extension = vscode.extensions.getExtension<{ getAPI(version: 1): GitApi }>('vscode.git');
  if (!extension) throw new CodedError(ErrorCode.ToolFailed, 'VS Code\'s Git extension is not installed or is disabled');
  const exports = extension.isActive ? extension.exports : await extension.activate();
  const git = exports.getAPI(1);
  if (git.state === 'uninitialized') {
    await new Promise<void>((resolve) => {
      const timer = setTimeout(done, INITIALIZE_MS);
      const subscription = git.onDidChangeState((state) => state === 'initialized' && done());
      function done() {
        clearTimeout(timer);
        subscription.dispose();
        resolve();
      }
    });
  }
  return git;
}

export async function gitRepository(absPath: string): Promise<GitRepositoryState | undefined> {
  const git = await api();
  const repo = git.getRepository(vscode.Uri.file(absPath));
  if (!repo) return undefined;
  await repo.status();
  const { HEAD, indexChanges, workingTreeChanges, mergeChanges, untrackedChanges } = repo.state;
  const tracked = workingTreeChanges.filter((c) => c.status !== UNTRACKED);
  const untracked = [...workingTreeChanges.filter((c) => c.status === UNTRACKED), ...(untrackedChanges ?? [])];
  return {
    root: repo.rootUri.fsPath,
    ...(HEAD?.name ? { branch: HEAD.name } : {}),
    ...(HEAD?.commit ? { commit: HEAD.commit } : {}),
    ...(HEAD?.upstream ? { upstream: `${HEAD.upstream.remote}/${HEAD.upstream.name}`, ahead: HEAD.ahead ?? 0, behind: HEAD.behind ?? 0 } : {}),
    staged: indexChanges.map(change),
    unstaged: tracked.map(change),
    untracked: untracked.map(change),
    conflicts: mergeChanges.map(change),
  };
}

export async function gitDiff(root: string, absPath: string, staged: boolean): Promise<string> {
  const repo = (await api()).getRepository(vscode.Uri.file(root));
  if (!repo) throw new CodedError(ErrorCode.NotFound, 'the repository is no longer open in VS Code');
  return staged ? repo.diffIndexWithHEAD(absPath) : repo.diffWithHEAD(absPath);
}

export async function gitLog(root: string, maxEntries: number, absPath?: string): Promise<GitCommit[]> {
  const repo = (await api()).getRepository(vscode.Uri.file(root));
  if (!repo) throw new CodedError(ErrorCode.NotFound, 'the repository is no longer open in VS Code');
  const commits = await repo.log({ maxEntries, ...(absPath !== undefined ? { path: absPath } : {}) });
  return commits.map((c) => ({ hash: c.hash, message: c.message, ...(c.authorName ? { authorName: c.authorName } : {}), ...(c.authorDate ? { authorDate: c.authorDate.toISOString() } : {}) }));
}

function change(c: GitApiChange): GitChange {
  const renamed = c.renameUri && c.renameUri.toString() !== c.uri.toString();
  return {
    path: (c.renameUri ?? c.uri).fsPath,
    status: STATUS[c.status] ?? 'changed',
    ...(renamed ? { originalPath: c.originalUri.fsPath } : {}),
  };
}
