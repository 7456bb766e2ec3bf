import * as assert from 'node:assert/strict';
import * as path from 'node:path';
import type { GitRepositoryState } from '../../../../src/core/host';
import { ErrorCode, type ClientToolInvokeResponse } from '../../../../src/protocol';
import { SOURCE_CONTROL_GROUP, SOURCE_CONTROL_TOOLS } from '../../../../src/tools/sourceControl/group';
import { DispatchHarness } from '../../../support/dispatch-harness';
import { createTempWorkspace, type TempWorkspace } from '../../../support/fake-host';

function json<T = Record<string, unknown>>(r: ClientToolInvokeResponse): T {
  assert.equal(r.success, true, `${r.errorCode}: ${r.errorMessage}`);
  const item = r.content[0];
  assert.ok(item && item.type === 'json');
  return item.value as T;
}

const DIFF_A = 'diff --git a/src/a.ts b/src/a.ts\n--- a/src/a.ts\n+++ b/src/a.ts\n@@ -1 +1 @@\n-old\n+new\n';

describe('SourceControl group', () => {
  let ws: TempWorkspace;
  let h: DispatchHarness;
  let repo: GitRepositoryState;

  beforeEach(async () => {
    ws = await createTempWorkspace(['ws'], { 'src/a.ts': 'new\n', 'src/b.ts': 'b\n', 'docs/c.md': 'c\n', 'notes.txt': 'n\n', '.env': 'KEY=1\n' });
    repo = {
      root: ws.folders[0].path,
      branch: 'main',
      commit: '0123456789abcdef0123',
      upstream: 'origin/main',
      ahead: 2,
      behind: 0,
      staged: [{ path: ws.file('src/b.ts'), status: 'added' }],
      unstaged: [{ path: ws.file('src/a.ts'), status: 'modified' }, { path: ws.file('.env'), status: 'modified' }, { path: ws.file('docs/c.md'), status: 'renamed', originalPath: ws.file('docs/old.md') }],
      untracked: [{ path: ws.file('notes.txt'), status: 'untracked' }],
      conflicts: [],
    };
    ws.host.git.repositories = [repo];
    ws.host.git.diffs.set(ws.file('src/a.ts'), { working: DIFF_A });
    ws.host.git.diffs.set(ws.file('src/b.ts'), { staged: 'diff --git a/src/b.ts b/src/b.ts\n+b\n' });
    ws.host.git.diffs.set(ws.file('.env'), { working: '-KEY=0\n+KEY=1\n' });
    ws.host.git.diffs.set(ws.file('docs/c.md'), { working: 'diff --git a/docs/c.md\n'.padEnd(500, 'x') });
    h = new DispatchHarness({ host: ws.host, group: SOURCE_CONTROL_GROUP, tools: SOURCE_CONTROL_TOOLS });
  });
  afterEach(async () => {
    h.dispose();
    await ws.dispose();
  });

  it('GitStatus: branch, upstream, and each kind of change as "path (status)"', async () => {
    const v = json(await h.call('GitStatus', {}));
    assert.deepEqual(v, {
      repository: '.',
      branch: 'main',
      commit: '0123456789ab',
      upstream: 'origin/main',
      ahead: 2,
      behind: 0,
      staged: ['src/b.ts (added)'],
      unstaged: ['src/a.ts (modified)', '.env (modified)', 'docs/c.md (renamed from docs/old.md)'],
      untracked: ['notes.txt (untracked)'],
      conflicts: [],
    });
    const narrowed = json<{ unstaged: string[]; staged: string[] }>(await h.call('GitStatus', { path: 'src' }));
    assert.deepEqual([narrowed.staged, narrowed.unstaged], [['src/b.ts (added)'], ['src/a.ts (modified)']]);
  });

  it('GitDiff: the working tree against HEAD, a protected file\'s diff withheld, the staged changes on request', async () => {
    const v = json<{ diff: string; files: number; withheld?: string[] }>(await h.call('GitDiff', { path: 'src' }));
    assert.equal(v.diff, DIFF_A);
    assert.equal(v.files, 1);
    const all = json<{ diff: string; withheld?: string[] }>(await h.call('GitDiff', {}));
    assert.deepEqual(all.withheld, ['.env']);
    assert.ok(!all.diff.includes('KEY='), 'a protected file\'s diff was returned');
    assert.ok(!ws.host.git.diffed.includes(ws.file('.env')), 'a protected file\'s diff was even read');
    assert.equal(json<{ diff: string }>(await h.call('GitDiff', { staged: true })).diff, 'diff --git a/src/b.ts b/src/b.ts\n+b\n');
    assert.equal((await h.call('GitDiff', { path: '.env' })).errorCode, ErrorCode.PathProtected);
  });

  it('GitDiff caps the text and names the files that did not fit', async () => {
    const v = json<{ diff: string; notShown?: string[]; moreFiles?: number }>(await h.call('GitDiff', { maxChars: 100 }));
    assert.ok(v.diff.startsWith(DIFF_A));
    assert.match(v.diff, /more characters of docs\/c\.md not shown/);
    assert.ok(v.diff.length < 200);
    ws.host.git.diffs.set(ws.file('src/a.ts'), { working: 'x'.repeat(100) });
    const small = json<{ notShown?: string[]; moreFiles?: number }>(await h.call('GitDiff', { maxChars: 100 }));
    assert.deepEqual([small.notShown, small.moreFiles], [['docs/c.md'], 1]);
  });

  it('GitLog: recent commits, short hashes, capped; a path narrows it', async () => {
    ws.host.git.commits = [
      { hash: 'a'.repeat(40), message: 'Second\n', authorName: 'Ada', authorDate: '2026-01-02T00:00:00.000Z' },
      { hash: 'b'.repeat(40), message: 'First', authorName: 'Ada' },
    ];
    const v = json<{ branch: string; commits: unknown[] }>(await h.call('GitLog', { maxCommits: 1 }));
    assert.deepEqual(v.commits, [{ hash: 'aaaaaaaaaaaa', author: 'Ada', date: '2026-01-02T00:00:00.000Z', message: 'Second' }]);
    json(await h.call('GitLog', { path: 'src/a.ts' }));
    assert.deepEqual(ws.host.git.logged.map((l) => l.path), [undefined, ws.file('src/a.ts')]);
  });

  it('no repository open: NOT_FOUND that says the tool never opens one', async () => {
    ws.host.git.repositories = [];
    const r = await h.call('GitStatus', {});
    assert.equal(r.errorCode, ErrorCode.NotFound);
    assert.match(r.errorMessage ?? '', /never does/);
  });

  it('a repository rooted above the workspace: only the workspace\'s changes, the rest counted; the log narrowed to the workspace', async () => {
    repo.root = path.dirname(ws.folders[0].path);
    repo.unstaged.push({ path: path.join(repo.root, 'elsewhere', 'secret.txt'), status: 'modified' });
    const v = json<{ repository: string; unstaged: string[]; outsideWorkspace?: string }>(await h.call('GitStatus', {}));
    assert.match(v.repository, /above the workspace/);
    assert.ok(!v.unstaged.some((u) => u.includes('secret')));
    json(await h.call('GitLog', {}));
    assert.equal(ws.host.git.logged[0].path, ws.folders[0].path);
  });
});
