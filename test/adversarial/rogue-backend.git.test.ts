/**
 * The SourceControl group asked, by a rogue backend, for what lies beyond the workspace through
 * Git: a repository rooted above the workspace (its other files), a link out, a protected file's
 * diff, a path outside. Nothing of those is listed or read.
 */
import * as assert from 'node:assert/strict';
import * as path from 'node:path';
import { ErrorCode, type ClientToolInvokeResponse } from '../../src/protocol';
import { sourceControlToolGroup } from '../../src/tools/sourceControl/group';
import { assertNoLeak, assertRefused, CoreRig, SECRET } from './support/core-rig';

function json<T = Record<string, unknown>>(r: ClientToolInvokeResponse): T {
  assert.equal(r.success, true, `${r.errorCode}: ${r.errorMessage}`);
  const item = r.content[0];
  assert.ok(item && item.type === 'json');
  return item.value as T;
}

describe('rogue backend: the SourceControl group', () => {
  let rig: CoreRig;

  beforeEach(async () => {
    rig = await CoreRig.start();
    const group = sourceControlToolGroup();
    rig.core.registry.register(group.group, group.tools);
    // A repository rooted above the workspace: its changes include files outside it.
    const outside = path.join(rig.root, 'outside', 'secret.txt');
    rig.host.git.repositories = [{
      root: rig.root,
      branch: 'main',
      staged: [],
      unstaged: [
        { path: outside, status: 'modified' },
        { path: rig.file('secret-link'), status: 'modified' },
        { path: rig.file('.env'), status: 'modified' },
        { path: rig.file('src/a.ts'), status: 'modified' },
      ],
      untracked: [],
      conflicts: [],
    }];
    for (const p of [outside, rig.file('secret-link'), rig.file('.env')]) rig.host.git.diffs.set(p, { working: `+${SECRET}\n` });
    rig.host.git.diffs.set(rig.file('src/a.ts'), { working: '+export const a = 1;\n' });
    await rig.connect();
  });
  afterEach(() => rig.dispose());

  it('T-GIT-01 a repository rooted above the workspace: files outside it (or linked out of it) are neither listed nor diffed', async () => {
    const status = await rig.backend.call('GitStatus', {});
    assertNoLeak(status);
    const v = json<{ unstaged: string[]; outsideWorkspace?: string }>(status);
    assert.deepEqual(v.unstaged, ['.env (modified)', 'src/a.ts (modified)']);
    assert.match(v.outsideWorkspace ?? '', /2 changed files outside the workspace/);
    const diff = await rig.backend.call('GitDiff', {});
    assertNoLeak(diff);
    assert.deepEqual(rig.host.git.diffed, [rig.file('src/a.ts')], 'a diff outside the workspace, or of a protected file, was read');
    json<{ log?: unknown }>(await rig.backend.call('GitLog', {}));
    assert.equal(rig.host.git.logged[0].path, rig.folder, 'the log of a repository above the workspace is not narrowed to the workspace');
  });

  it('T-GIT-02 a protected file\'s diff is refused or withheld, a path outside refused, before anything is read', async () => {
    assertRefused(await rig.backend.call('GitDiff', { path: '.env' }), ErrorCode.PathProtected);
    assertRefused(await rig.backend.call('GitDiff', { path: '../outside/secret.txt' }), ErrorCode.PathOutsideWorkspace);
    assertRefused(await rig.backend.call('GitDiff', { path: 'secret-link' }), ErrorCode.PathOutsideWorkspace);
    assert.deepEqual(rig.host.git.diffed, []);
  });
});
