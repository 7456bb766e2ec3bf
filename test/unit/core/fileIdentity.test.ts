import * as assert from 'node:assert/strict';
import { mkdir, rename, rm, symlink, writeFile } from 'node:fs/promises';
import * as path from 'node:path';
import { bindTarget, textHash, verifyTarget, verifyTextHash } from '../../../src/core/fileIdentity';
import { resolveWorkspacePath } from '../../../src/core/paths';
import { CodedError, ErrorCode } from '../../../src/protocol';
import { createTempWorkspace, type TempWorkspace } from '../../support/fake-host';

async function targetChanged(promise: Promise<unknown> | (() => void)): Promise<CodedError> {
  try {
    await (typeof promise === 'function' ? promise() : promise);
  } catch (e) {
    assert.ok(e instanceof CodedError, `expected a CodedError, got ${String(e)}`);
    assert.equal(e.code, ErrorCode.TargetChanged, e.message);
    return e;
  }
  assert.fail('expected TARGET_CHANGED');
}

describe('fileIdentity: consent bound to the object', () => {
  let ws: TempWorkspace;
  const outside = () => path.join(ws.root, 'outside');

  beforeEach(async () => {
    ws = await createTempWorkspace(['ws'], { 'a/b/file.txt': 'hello', 'top.txt': 'top' });
    await mkdir(path.join(outside(), 'b'), { recursive: true });
    await writeFile(path.join(outside(), 'b', 'file.txt'), 'outside');
    await writeFile(path.join(outside(), 'file.txt'), 'outside');
  });
  afterEach(() => ws.dispose());

  const bind = async (rel: string) => bindTarget(await resolveWorkspacePath(rel, ws.folders));

  it('an untouched file verifies, and so does a missing file that is still missing', async () => {
    await verifyTarget(await bind('a/b/file.txt'));
    await verifyTarget(await bind('top.txt'));
    const missing = await bind('a/new.txt');
    assert.equal(missing.target, undefined);
    await verifyTarget(missing);
  });

  it('records the workspace root and every folder on the path, by device and inode', async () => {
    const bound = await bind('a/b/file.txt');
    assert.equal(bound.root, ws.folders[0].path);
    assert.equal(bound.folders.length, 3); // ws, ws/a, ws/a/b
    assert.ok(bound.folders.every((f) => f?.kind === 'directory' && f.ino > 0n));
    assert.equal(bound.target?.kind, 'file');
    assert.equal(bound.target?.size, 5n);
  });

  it('refuses when the file became a symbolic link, even one to an identical copy', async () => {
    const bound = await bind('a/b/file.txt');
    await rm(ws.file('a/b/file.txt'));
    await symlink(path.join(outside(), 'b', 'file.txt'), ws.file('a/b/file.txt'));
    const e = await targetChanged(verifyTarget(bound));
    assert.match(e.message, /^a\/b\/file\.txt: .*nothing was done$/);
  });

  it('refuses when any folder on the path became a symbolic link (the middle one, the last one)', async () => {
    const deep = await bind('a/b/file.txt');
    await rename(ws.file('a'), ws.file('a-gone'));
    await symlink(ws.root, ws.file('a')); // ws/a/b/file.txt now leads to <root>/b/... → missing, or outside
    await targetChanged(verifyTarget(deep));
    await rm(ws.file('a'));
    await rename(ws.file('a-gone'), ws.file('a'));
    await verifyTarget(deep); // the same objects again: consent holds

    await rename(ws.file('a/b'), ws.file('a/b-gone'));
    await symlink(path.join(outside(), 'b'), ws.file('a/b'));
    await targetChanged(verifyTarget(deep));
  });

  it('refuses a file replaced by another one under the same name, and one whose content changed', async () => {
    const bound = await bind('top.txt');
    await writeFile(ws.file('top.txt'), 'top, changed');
    await targetChanged(verifyTarget(bound));
    // Object identity alone (a growing log read without a prompt) still holds.
    await verifyTarget(bound, { sameContent: false });

    const again = await bind('top.txt');
    await rename(ws.file('top.txt'), ws.file('old-top.txt'));
    await writeFile(ws.file('top.txt'), 'top, changed');
    await targetChanged(verifyTarget(again, { sameContent: false }));
  });

  it('refuses a file that appeared where none was, or disappeared', async () => {
    const missing = await bind('a/new.txt');
    await writeFile(ws.file('a/new.txt'), 'surprise');
    await targetChanged(verifyTarget(missing));
    const present = await bind('top.txt');
    await rm(ws.file('top.txt'));
    await targetChanged(verifyTarget(present));
  });

  it('a file to be created in folders that do not exist yet binds; a link appearing in their place is refused', async () => {
    const bound = await bind('new/deeper/file.txt');
    assert.deepEqual(bound.folders.slice(1), [undefined, undefined]);
    await verifyTarget(bound);
    await symlink(outside(), ws.file('new'));
    await targetChanged(verifyTarget(bound));
  });

  it('refuses to bind a target that is a link already (a swap racing the resolution)', async () => {
    const resolved = await resolveWorkspacePath('top.txt', ws.folders);
    await rm(ws.file('top.txt'));
    await symlink(path.join(outside(), 'file.txt'), ws.file('top.txt'));
    await targetChanged(bindTarget(resolved));
  });

  it('binds text by SHA-256, ignoring only line-ending style', async () => {
    const bound = await bind('top.txt');
    const hash = textHash('a\nb\n');
    assert.equal(textHash('a\r\nb\r\n'), hash);
    verifyTextHash(bound, hash, 'a\nb\n');
    await targetChanged(() => verifyTextHash(bound, hash, 'a\nB\n'));
  });
});
