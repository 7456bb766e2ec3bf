/**
 * The SourceControl group in a real VS Code on a real repository the test makes (git init, a
 * commit, then a modified, a staged and an untracked file), read through the built-in Git
 * extension's API: status, a file's diff against HEAD, the log.
 */
import * as assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import * as vscode from 'vscode';
import type { ClientToolInvokeResponse } from '../../src/protocol';
import type { ScriptedBackend } from '../support/scripted-backend';
import { until, useScriptedConnection } from './support/scriptedConnection';

const TOKEN = 'source-control-test-token';

function json<T = Record<string, unknown>>(res: ClientToolInvokeResponse): T {
  assert.equal(res.success, true, `${res.errorCode}: ${res.errorMessage}`);
  const item = res.content[0];
  assert.ok(item && item.type === 'json', `expected JSON content, got ${JSON.stringify(res.content)}`);
  return item.value as T;
}

interface GitApi {
  repositories: { rootUri: vscode.Uri }[];
  openRepository(root: vscode.Uri): Promise<unknown>;
}

describe('the SourceControl group in a real VS Code', function () {
  this.timeout(90_000);
  const connection = useScriptedConnection(TOKEN);
  let backend: ScriptedBackend;
  let repo: string;
  const invoke = async (tool: string, args: Record<string, unknown>) => {
    const id = backend.invoke(tool, args);
    return backend.first('clientToolInvokeResponse', (m) => m.requestId === id, 30_000);
  };
  const git = (...args: string[]) => execFileSync('git', ['-c', 'user.name=Test', '-c', 'user.email=test@example.invalid', '-c', 'commit.gpgsign=false', ...args], { cwd: repo });

  before(async () => {
    let workspace: string;
    ({ backend, workspace } = connection());
    repo = path.join(workspace, 'git-fixture');
    fs.mkdirSync(repo, { recursive: true });
    git('init', '-q', '-b', 'main');
    fs.writeFileSync(path.join(repo, 'a.txt'), 'one\n');
    fs.writeFileSync(path.join(repo, 'b.txt'), 'bee\n');
    git('add', '.');
    git('commit', '-q', '-m', 'First commit');
    fs.writeFileSync(path.join(repo, 'a.txt'), 'two\n');
    fs.writeFileSync(path.join(repo, 'c.txt'), 'sea\n');
    git('add', 'c.txt');
    fs.writeFileSync(path.join(repo, 'd.txt'), 'dee\n');
    // The user opens the repository in the Source Control view (the tools never open one).
    const api = vscode.extensions.getExtension<{ getAPI(v: 1): GitApi }>('vscode.git')!;
    const gitApi = (await api.activate()).getAPI(1);
    const real = fs.realpathSync(repo);
    if (!gitApi.repositories.some((r) => r.rootUri.fsPath === real)) await gitApi.openRepository(vscode.Uri.file(real));
    await until('the Git extension to open the repository', () => gitApi.repositories.some((r) => r.rootUri.fsPath === real), 30_000);
  });

  after(() => fs.rmSync(repo, { recursive: true, force: true }));

  it('GitStatus: the branch and the staged, unstaged and untracked files', async () => {
    const v = json<{ repository: string; branch: string; staged: string[]; unstaged: string[]; untracked: string[]; conflicts: string[] }>(await invoke('GitStatus', { path: 'git-fixture' }));
    assert.equal(v.repository, 'git-fixture');
    assert.equal(v.branch, 'main');
    assert.deepEqual(v.staged, ['git-fixture/c.txt (added)']);
    assert.deepEqual(v.unstaged, ['git-fixture/a.txt (modified)']);
    assert.deepEqual(v.untracked, ['git-fixture/d.txt (untracked)']);
    assert.deepEqual(v.conflicts, []);
  });

  it('GitDiff: a file\'s working-tree diff against HEAD, and the staged changes', async () => {
    const v = json<{ diff: string; files: number }>(await invoke('GitDiff', { path: 'git-fixture/a.txt' }));
    assert.match(v.diff, /^-one$/m);
    assert.match(v.diff, /^\+two$/m);
    assert.equal(v.files, 1);
    const staged = json<{ diff: string }>(await invoke('GitDiff', { path: 'git-fixture', staged: true }));
    assert.match(staged.diff, /^\+sea$/m);
    assert.doesNotMatch(staged.diff, /two/);
  });

  it('GitLog: the commit', async () => {
    const v = json<{ commits: { hash: string; message: string; author?: string }[] }>(await invoke('GitLog', { path: 'git-fixture' }));
    assert.equal(v.commits.length, 1);
    assert.equal(v.commits[0].message, 'First commit');
    assert.equal(v.commits[0].author, 'Test');
    assert.match(v.commits[0].hash, /^[0-9a-f]{12}$/);
  });
});
