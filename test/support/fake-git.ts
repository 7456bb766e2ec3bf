/** The unit-test host's SourceControl group: repositories, diffs and logs the test scripts. */
import type { GitCommit, GitRepositoryState } from '../../src/core/host';
import { isInside } from '../../src/core/paths';

export class FakeGit {
  /** Repositories "the Git extension has open". */
  repositories: GitRepositoryState[] = [];
  /** Diffs by absolute path, of the working tree and of the index. */
  diffs = new Map<string, { working?: string; staged?: string }>();
  commits: GitCommit[] = [];
  readonly diffed: string[] = [];
  readonly logged: { root: string; maxEntries: number; path?: string }[] = [];

  async gitRepository(absPath: string): Promise<GitRepositoryState | undefined> {
    return this.repositories.filter((r) => isInside(absPath, r.root)).sort((a, b) => b.root.length - a.root.length)[0];
  }

  async gitDiff(_root: string, absPath: string, staged: boolean): Promise<string> {
    this.diffed.push(absPath);
    const d = this.diffs.get(absPath);
    return (staged ? d?.staged : d?.working) ?? '';
  }

  async gitLog(root: string, maxEntries: number, absPath?: string): Promise<GitCommit[]> {
    this.logged.push({ root, maxEntries, ...(absPath !== undefined ? { path: absPath } : {}) });
    return this.commits.slice(0, maxEntries);
  }
}
