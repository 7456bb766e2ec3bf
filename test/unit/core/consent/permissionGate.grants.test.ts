import * as assert from 'node:assert/strict';
import * as path from 'node:path';
import { grantCovers, makeGrant, parseStoredGrant, type GrantTarget } from '../../../../src/core/consent/grants';
import type { ResolvedPath } from '../../../../src/core/paths';
import { PermissionGate, type PermissionCheck } from '../../../../src/core/consent/permissionGate';
import { grantTargetOf } from '../../../../src/core/tool';
import { AnsweringPrompter, MemoryStore } from './permission-fakes';

const ROOT = path.resolve('/ws');

function resolved(relative: string, folderName = 'ws', multiRoot = false): ResolvedPath {
  const inFolder = multiRoot ? relative.split('/').slice(1).join('/') : relative;
  return {
    input: relative,
    absolute: path.join(ROOT, ...inFolder.split('/')),
    relative,
    folder: { name: folderName, path: ROOT },
    exists: true,
    isFolderRoot: false,
    protected: false,
  };
}

const DELETE_FILE = { key: 'DeleteFile', name: 'DeleteFile' };

function deleteOf(relative: string, extra: Partial<PermissionCheck> = {}): PermissionCheck {
  return {
    requestId: `r-${Math.random()}`,
    toolKey: 'DeleteFile',
    toolName: 'DeleteFile',
    groupName: 'IDE',
    message: `Delete ${relative}?`,
    rememberable: true,
    target: grantTargetOf(resolved(relative)),
    signal: new AbortController().signal,
    ...extra,
  };
}

describe('permission grants', () => {
  describe('grantTargetOf', () => {
    it('offers the target\'s folder, but never a workspace folder itself (single or multi-root)', () => {
      assert.equal(grantTargetOf(resolved('a.txt')).folder, undefined);
      assert.deepEqual(grantTargetOf(resolved('src/lib/a.ts')).folder, { absolute: path.join(ROOT, 'src', 'lib'), relative: 'src/lib' });
      assert.equal(grantTargetOf(resolved('api/a.txt', 'api', true)).folder, undefined);
      assert.equal(grantTargetOf(resolved('api/src/a.txt', 'api', true)).folder?.relative, 'api/src');
    });
  });

  describe('grantCovers', () => {
    const a: GrantTarget = grantTargetOf(resolved('src/a.ts'));
    it('a target grant covers that tool on that resolved path only', () => {
      const g = makeGrant(DELETE_FILE, 'target', a, 'session');
      assert.equal(g.label, 'Allow DeleteFile of src/a.ts until this window closes');
      assert.equal(grantCovers(g, 'DeleteFile', grantTargetOf(resolved('src/a.ts'))), true);
      assert.equal(grantCovers(g, 'DeleteFile', grantTargetOf(resolved('src/b.ts'))), false);
      assert.equal(grantCovers(g, 'ApplyEdit', a), false, 'another tool');
      assert.equal(grantCovers(g, 'DeleteFile', undefined), false, 'a call that names no target');
    });

    it('a folder grant covers files below it, not the folder itself, not a sibling that shares its prefix', () => {
      const g = makeGrant(DELETE_FILE, 'folder', a, 'workspace');
      assert.equal(g.label, 'Allow DeleteFile in src/ in this workspace from now on');
      assert.equal(grantCovers(g, 'DeleteFile', grantTargetOf(resolved('src/b.ts'))), true);
      assert.equal(grantCovers(g, 'DeleteFile', grantTargetOf(resolved('src/deep/er/c.ts'))), true);
      assert.equal(grantCovers(g, 'DeleteFile', grantTargetOf(resolved('src-evil/b.ts'))), false);
      assert.equal(grantCovers(g, 'DeleteFile', grantTargetOf(resolved('b.ts'))), false);
      assert.equal(grantCovers(g, 'DeleteFile', { absolute: path.join(ROOT, 'src'), relative: 'src' }), false);
    });

    it('a tool grant (a tool whose calls name no target) never covers a call that names one', () => {
      const g = makeGrant({ key: 'Custom', name: 'Custom' }, 'tool', undefined, 'session');
      assert.equal(g.label, 'Allow every Custom call until this window closes');
      assert.equal(grantCovers(g, 'Custom', undefined), true);
      assert.equal(grantCovers(g, 'Custom', a), false);
    });
  });

  describe('parseStoredGrant', () => {
    it('drops what older versions stored (bare tool names) and anything malformed; labels come from the fields, not storage', () => {
      assert.equal(parseStoredGrant('DeleteFile'), undefined);
      assert.equal(parseStoredGrant({ toolName: 'DeleteFile', kind: 'everything', path: '', shown: '' }), undefined);
      assert.equal(parseStoredGrant({ toolName: 'DeleteFile', kind: 'target', path: 'relative/a.txt', shown: 'a.txt' }), undefined);
      assert.equal(parseStoredGrant({ toolName: 'DeleteFile', kind: 'target', path: '', shown: '' }), undefined);
      assert.equal(parseStoredGrant({ toolName: 'DeleteFile', kind: 'tool', path: path.join(ROOT, 'a'), shown: '' }), undefined);
      const g = parseStoredGrant({ toolName: 'DeleteFile', kind: 'target', path: path.join(ROOT, 'a.txt'), shown: 'a.txt', label: 'Allow anything' });
      assert.equal(g?.label, 'Allow DeleteFile of a.txt in this workspace from now on');
      assert.equal(g?.scope, 'workspace');
    });
  });

  describe('the gate', () => {
    let presenter: AnsweringPrompter;
    let gate: PermissionGate;
    beforeEach(() => {
      presenter = new AnsweringPrompter('allowSession');
      gate = new PermissionGate({ presenter, closeGraceMs: 20 });
    });
    afterEach(() => gate.dispose());

    it('offers this target and its folder, with labels that say so; remembering a.ts still asks for b.ts', async () => {
      assert.deepEqual(await gate.check(deleteOf('src/a.ts')), { kind: 'allowed', via: 'prompt', remembered: { label: 'Allow DeleteFile of src/a.ts until this window closes' } });
      assert.deepEqual(presenter.shown[0].choices, [
        { answer: 'allowSession', label: 'Allow DeleteFile of src/a.ts until this window closes' },
        { answer: 'allowFolder', label: 'Allow DeleteFile in src/ until this window closes' },
      ]);
      assert.equal(presenter.shown[0].offerAllowSession, true);
      presenter.answer = 'deny';
      assert.deepEqual(await gate.check(deleteOf('src/b.ts')), { kind: 'denied', via: 'user' });
      assert.deepEqual(await gate.check(deleteOf('src/a.ts')), { kind: 'allowed', via: 'remembered', grant: { label: 'Allow DeleteFile of src/a.ts until this window closes' } });
      assert.equal(presenter.shown.length, 2);
    });

    it('allowFolder remembers the folder; an answer the prompt did not offer is allow-once', async () => {
      presenter.answer = 'allowFolder';
      await gate.check(deleteOf('src/a.ts'));
      assert.equal((await gate.check(deleteOf('src/x/y.ts'))).kind, 'allowed');
      assert.equal(presenter.shown.length, 1);
      assert.deepEqual(presenter.shown[0].choices.map((c) => c.answer), ['allowSession', 'allowFolder']);
      // top.ts: no folder choice offered (the workspace folder itself), so allowFolder remembers nothing.
      assert.deepEqual(await gate.check(deleteOf('top.ts')), { kind: 'allowed', via: 'prompt' });
      assert.deepEqual(presenter.shown[1].choices.map((c) => c.answer), ['allowSession']);
      assert.deepEqual(gate.remembered().map((g) => g.label), ['Allow DeleteFile in src/ until this window closes']);
    });

    it('with workspace scope the buttons say "in this workspace from now on" and the grant goes to the store; without a store they say "until this window closes"', async () => {
      const store = new MemoryStore();
      const g = new PermissionGate({ presenter, store, rememberScope: 'workspace' });
      await g.check(deleteOf('src/a.ts'));
      assert.equal(presenter.shown[0].choices[0].label, 'Allow DeleteFile of src/a.ts in this workspace from now on');
      assert.deepEqual(store.grants.map((x) => [x.kind, x.path]), [['target', path.join(ROOT, 'src', 'a.ts')]]);
      g.dispose();
      const noStore = new PermissionGate({ presenter, rememberScope: 'workspace' });
      await noStore.check(deleteOf('src/b.ts'));
      assert.equal(presenter.shown[1].choices[0].label, 'Allow DeleteFile of src/b.ts until this window closes');
      noStore.dispose();
    });

    it('forget(grant) revokes that grant only; the others still answer', async () => {
      await gate.check(deleteOf('src/a.ts'));
      await gate.check(deleteOf('lib/b.ts'));
      const [a, b] = gate.remembered();
      await gate.forget(a);
      assert.deepEqual(gate.remembered(), [b]);
      presenter.answer = 'deny';
      assert.equal((await gate.check(deleteOf('src/a.ts'))).kind, 'denied');
      assert.equal((await gate.check(deleteOf('lib/b.ts'))).kind, 'allowed');
    });
  });
});
