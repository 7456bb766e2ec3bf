/**
 * The unit-test host's Search group: the real ripgrep runner (src/tools/search/ripgrep.ts) with a
 * ripgrep found on this machine (a provisioned code-server's, else the system's), real folder
 * listings, and exclude settings the test sets.
 */
import { existsSync } from 'node:fs';
import { lstat, readdir } from 'node:fs/promises';
import * as os from 'node:os';
import * as path from 'node:path';
import type { DirectoryEntry, TextSearchOutcome, TextSearchQuery } from '../../src/core/host';
import { ripgrepCandidates, runRipgrep } from '../../src/tools/search/ripgrep';

/** An absolute path to a ripgrep: the one a provisioned code-server ships (as the extension finds it), else the system's. */
export function localRipgrep(): string {
  const cache = process.env.CLIENT_TOOLS_CACHE ?? path.join(os.homedir(), '.cache', 'client-tools');
  const appRoots = ['code-server-4.100.3', 'code-server-4.139.1'].map((v) => path.join(cache, v, 'node_modules', 'code-server', 'lib', 'vscode'));
  const found = [...appRoots.flatMap((root) => ripgrepCandidates(root)), '/usr/bin/rg', '/usr/local/bin/rg'].find((p) => existsSync(p));
  if (!found) throw new Error('no ripgrep on this machine: install the ripgrep package (scripts/ensure-system.mjs does)');
  return found;
}

export class FakeSearch {
  /** What `files.exclude` and `search.exclude` hold (folder-relative globs). */
  filesExclude: string[] = ['**/.git'];
  searchExclude: string[] = [];
  readonly queries: TextSearchQuery[] = [];
  rgPath = localRipgrep();

  excludeGlobs(_folderPath: string, settings: 'files' | 'search'): readonly string[] {
    return settings === 'search' ? [...this.filesExclude, ...this.searchExclude] : this.filesExclude;
  }

  searchText(query: TextSearchQuery, signal: AbortSignal): Promise<TextSearchOutcome> {
    this.queries.push(query);
    return runRipgrep(this.rgPath, query, signal);
  }

  async readDirectory(absDir: string): Promise<DirectoryEntry[]> {
    const out: DirectoryEntry[] = [];
    for (const entry of await readdir(absDir, { withFileTypes: true })) {
      if (entry.isSymbolicLink()) out.push({ name: entry.name, kind: 'symlink' });
      else if (entry.isDirectory()) out.push({ name: entry.name, kind: 'directory' });
      else if (entry.isFile()) out.push({ name: entry.name, kind: 'file', size: (await lstat(path.join(absDir, entry.name))).size });
      else out.push({ name: entry.name, kind: 'other' });
    }
    return out;
  }
}
