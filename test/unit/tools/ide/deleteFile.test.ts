import * as assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { mkdir, readdir, rename, symlink, writeFile } from 'node:fs/promises';
import * as path from 'node:path';
import { ErrorCode } from '../../../../src/protocol';
import { IDE_GROUP, IDE_TOOLS } from '../../../../src/tools/ide/group';
import { DispatchHarness } from '../../../support/dispatch-harness';
import { createTempWorkspace, type TempWorkspace } from '../../../support/fake-host';

describe('tool DeleteFile', () => {
  let ws: TempWorkspace;
  let h: DispatchHarness;
  beforeEach(async () => {
    ws = await createTempWorkspace(['ws'], { 'src/old.ts': 'x'.repeat(1229), 'src/keep.ts': 'keep', '.env': 'K=1' });
    h = new DispatchHarness({ host: ws.host, group: IDE_GROUP, tools: IDE_TOOLS });
  });
  afterEach(async () => {
    h.dispose();
    await ws.dispose();
  });

  /** build/ with 26 files, a sub-folder and 10 files in it: 37 entries. */
  async function makeBuildFolder(): Promise<void> {
    for (let i = 0; i < 26; i++) await ws.write(`build/f${i}.js`, '');
    for (let i = 0; i < 10; i++) await ws.write(`build/sub/g${i}.js`, '');
  }

  it('asks "Delete src/old.ts (1.2 KB)?" and moves the file to the trash when allowed', async () => {
    ws.host.answerPrompts('allow');
    const r = await h.call('DeleteFile', { path: 'src/old.ts' });
    assert.equal(r.success, true, r.errorMessage);
    assert.equal(ws.host.prompts[0].message, 'Delete src/old.ts (1.2 KB)?');
    assert.equal(existsSync(ws.file('src/old.ts')), false);
    assert.deepEqual(await readdir(ws.host.trashDir), ['1-old.ts']);
    assert.deepEqual(ws.host.deleted[0].options, { recursive: false, useTrash: true });
    assert.deepEqual(r.content, [{ type: 'json', value: { deleted: 'src/old.ts', kind: 'file', movedToTrash: true } }]);
  });

  it('deny answers PERMISSION_DENIED and leaves the file', async () => {
    ws.host.answerPrompts('deny');
    const r = await h.call('DeleteFile', { path: 'src/old.ts' });
    assert.equal(r.errorCode, ErrorCode.PermissionDenied);
    assert.equal(existsSync(ws.file('src/old.ts')), true);
    assert.equal(ws.host.deleted.length, 0);
  });

  it('refuses a folder without recursive:true (IS_DIRECTORY) before asking', async () => {
    await makeBuildFolder();
    const r = await h.call('DeleteFile', { path: 'build' });
    assert.equal(r.errorCode, ErrorCode.IsDirectory);
    assert.equal(ws.host.prompts.length, 0);
    assert.equal(existsSync(ws.file('build')), true);
  });

  it('asks "Delete folder build/ and its 37 entries?" and deletes it recursively when allowed', async () => {
    await makeBuildFolder();
    ws.host.answerPrompts('allow');
    const r = await h.call('DeleteFile', { path: 'build', recursive: true });
    assert.equal(r.success, true, r.errorMessage);
    assert.equal(ws.host.prompts[0].message, 'Delete folder build/ and its 37 entries?');
    assert.equal(existsSync(ws.file('build')), false);
    assert.deepEqual(ws.host.deleted[0].options, { recursive: true, useTrash: true });
  });

  it('a remembered grant covers what its button said (this file, or its folder), never another file, a folder or a protected file', async () => {
    await mkdir(ws.file('empty'));
    ws.host.answerPrompts('allowSession');
    await h.call('DeleteFile', { path: 'src/old.ts' });
    assert.deepEqual(ws.host.prompts[0].choices.map((c) => c.label), [
      'Allow DeleteFile of src/old.ts until this window closes',
      'Allow DeleteFile in src/ until this window closes',
    ]);
    ws.host.answerPrompts('deny');
    assert.equal((await h.call('DeleteFile', { path: 'src/keep.ts' })).errorCode, ErrorCode.PermissionDenied, 'a grant for src/old.ts does not cover src/keep.ts');
    assert.equal(ws.host.prompts.length, 2);
    ws.host.answerPrompts('allowFolder');
    assert.equal((await h.call('DeleteFile', { path: 'src/keep.ts' })).success, true);
    await writeFile(ws.file('src/new.ts'), 'new');
    assert.equal((await h.call('DeleteFile', { path: 'src/new.ts' })).success, true);
    assert.equal(ws.host.prompts.length, 3, 'the folder grant covered src/new.ts');
    ws.host.answerPrompts('deny');
    assert.equal((await h.call('DeleteFile', { path: 'empty', recursive: true })).errorCode, ErrorCode.PermissionDenied);
    assert.equal(ws.host.prompts[3].message, 'Delete empty folder empty/?');
    assert.equal((await h.call('DeleteFile', { path: '.env' })).errorCode, ErrorCode.PermissionDenied);
    assert.match(ws.host.prompts[4].detail ?? '', /secrets/);
    assert.equal(existsSync(ws.file('.env')), true);
  });

  it('refuses paths outside the workspace, through symlinks, missing files and the folder root without asking', async () => {
    await writeFile(path.join(ws.root, 'precious.txt'), 'do not delete');
    await symlink(path.join(ws.root, 'precious.txt'), ws.file('link.txt'));
    const cases: [unknown, string][] = [
      ['../precious.txt', ErrorCode.PathOutsideWorkspace],
      [path.join(ws.root, 'precious.txt'), ErrorCode.PathOutsideWorkspace],
      ['link.txt', ErrorCode.PathOutsideWorkspace],
      ['src/nothing.ts', ErrorCode.NotFound],
      ['.', ErrorCode.PathInvalid],
      ['\\\\evil-host\\share\\x', ErrorCode.PathInvalid],
      ['src/old.ts\0', ErrorCode.PathInvalid],
    ];
    for (const [p, code] of cases) {
      const r = await h.call('DeleteFile', { path: p, recursive: true });
      assert.equal(r.errorCode, code, String(p));
    }
    assert.equal(ws.host.prompts.length, 0);
    assert.equal(existsSync(path.join(ws.root, 'precious.txt')), true);
  });

  it('is off in an untrusted workspace (WORKSPACE_UNTRUSTED)', async () => {
    h.registry.setWorkspaceTrusted(false);
    assert.equal((await h.call('DeleteFile', { path: 'src/old.ts' })).errorCode, ErrorCode.WorkspaceUntrusted);
    assert.equal(ws.host.prompts.length, 0);
  });

  it('two deletes never prompt at once', async () => {
    ws.host.holdPrompts();
    const a = h.invoke('DeleteFile', { path: 'src/old.ts' });
    const b = h.invoke('DeleteFile', { path: 'src/keep.ts' });
    const first = await ws.host.nextPrompt();
    await new Promise((r) => setTimeout(r, 20));
    assert.equal(ws.host.prompts.length, 1);
    first.answer('allow');
    (await ws.host.nextPrompt()).answer('allow');
    assert.equal((await h.response(a)).success, true);
    assert.equal((await h.response(b)).success, true);
    assert.equal(ws.host.maxOpenPrompts, 1);
  });

  it('a target swapped while the prompt is open is refused with TARGET_CHANGED, and the warning shows a hostile file name as plain text', async () => {
    const name = '[Accept](command:workbench.action.terminal.new).txt';
    await ws.write(name, 'x');
    await mkdir(path.join(ws.root, 'elsewhere'), { recursive: true });
    await writeFile(path.join(ws.root, 'elsewhere', 'x.txt'), 'keep');
    ws.host.holdPrompts();
    const id = h.invoke('DeleteFile', { path: name });
    const prompt = await ws.host.nextPrompt();
    await rename(ws.file(name), ws.file('moved.txt'));
    await symlink(path.join(ws.root, 'elsewhere', 'x.txt'), ws.file(name));
    prompt.answer('allow');
    const r = await h.response(id);
    assert.equal(r.errorCode, ErrorCode.TargetChanged);
    assert.equal(ws.host.deleted.length, 0);
    assert.equal(existsSync(path.join(ws.root, 'elsewhere', 'x.txt')), true);
    const [warning] = ws.host.messages;
    assert.equal(warning?.severity, 'warning');
    assert.doesNotMatch(warning.text, /\]\(|command:/);
    assert.match(warning.text, /did not delete Accept\.txt/);
  });
});
