import * as assert from 'node:assert/strict';
import { symlink, writeFile } from 'node:fs/promises';
import * as path from 'node:path';
import { ErrorCode, type BinaryContent } from '../../../../src/protocol';
import { classifyFile } from '../../../../src/tools/support/mime';
import { IDE_GROUP, IDE_TOOLS } from '../../../../src/tools/ide/group';
import { DispatchHarness } from '../../../support/dispatch-harness';
import { createTempWorkspace, type TempWorkspace } from '../../../support/fake-host';
import { makePng } from '../../../support/png';

describe('tool ReadFile', () => {
  let ws: TempWorkspace;
  let h: DispatchHarness;
  const png = makePng(3, 2);
  beforeEach(async () => {
    ws = await createTempWorkspace(['ws'], {
      'src/a.ts': 'one\ntwo\r\nthree\nfour\n',
      'img/logo.png': png,
      'img/no-extension': png,
      'docs/spec.pdf': '%PDF-1.7\n...',
      'bin/blob.dat': Buffer.from([1, 2, 0, 3]),
      '.env': 'API_KEY=secret\n',
      '.git/config': '[core]\n',
      'bom.txt': '\ufeffhello',
    });
    h = new DispatchHarness({ host: ws.host, group: IDE_GROUP, tools: IDE_TOOLS, limits: { maxResultBytes: 4096 } });
  });
  afterEach(async () => {
    h.dispose();
    await ws.dispose();
  });

  it('returns a text file as text, without a BOM', async () => {
    assert.deepEqual((await h.call('ReadFile', { path: 'src/a.ts' })).content, [{ type: 'text', text: 'one\ntwo\r\nthree\nfour\n' }]);
    assert.deepEqual((await h.call('ReadFile', { path: 'bom.txt' })).content, [{ type: 'text', text: 'hello' }]);
  });

  it('returns a range of lines (1-based, inclusive), keeping line endings and clamping the end', async () => {
    assert.deepEqual((await h.call('ReadFile', { path: 'src/a.ts', startLine: 2, endLine: 3 })).content, [{ type: 'text', text: 'two\r\nthree\n' }]);
    assert.deepEqual((await h.call('ReadFile', { path: 'src/a.ts', startLine: 4, endLine: 99 })).content, [{ type: 'text', text: 'four\n' }]);
    const beyond = await h.call('ReadFile', { path: 'src/a.ts', startLine: 50 });
    assert.deepEqual([beyond.errorCode, beyond.errorMessage?.startsWith('startLine:')], [ErrorCode.InvalidArguments, true]);
    const backwards = await h.call('ReadFile', { path: 'src/a.ts', startLine: 3, endLine: 2 });
    assert.deepEqual([backwards.errorCode, backwards.errorMessage?.startsWith('endLine:')], [ErrorCode.InvalidArguments, true]);
  });

  it('returns a PNG as binary content with image/png and the exact bytes', async () => {
    const r = await h.call('ReadFile', { path: 'img/logo.png' });
    assert.equal(r.success, true, r.errorMessage);
    const item = r.content[0] as BinaryContent;
    assert.equal(item.type, 'binary');
    assert.equal(item.mimeType, 'image/png');
    assert.equal(item.filename, 'logo.png');
    assert.ok(Buffer.from(item.bytes).equals(png));
  });

  it('recognises binaries by their bytes and by extension', async () => {
    const mime = async (p: string) => ((await h.call('ReadFile', { path: p })).content[0] as BinaryContent).mimeType;
    assert.equal(await mime('img/no-extension'), 'image/png');
    assert.equal(await mime('docs/spec.pdf'), 'application/pdf');
    assert.equal(await mime('bin/blob.dat'), 'application/octet-stream');
    assert.deepEqual(classifyFile('x.ts', Buffer.from('plain text')), { kind: 'text' });
    assert.deepEqual(classifyFile('x.txt', Buffer.from([0x41, 0x00, 0x42])), { kind: 'binary', mimeType: 'application/octet-stream' });
    assert.deepEqual(classifyFile('photo.JPG', Buffer.from('not really')), { kind: 'binary', mimeType: 'image/jpeg' });
  });

  it('refuses line ranges on a binary file', async () => {
    assert.equal((await h.call('ReadFile', { path: 'img/logo.png', startLine: 1 })).errorCode, ErrorCode.InvalidArguments);
  });

  it('refuses a file over the limit with FILE_TOO_LARGE, before reading it', async () => {
    await ws.write('big.txt', 'x'.repeat(5000));
    let reads = 0;
    const original = ws.host.readFile.bind(ws.host);
    ws.host.readFile = async (p) => (reads++, original(p));
    const r = await h.call('ReadFile', { path: 'big.txt' });
    assert.equal(r.errorCode, ErrorCode.FileTooLarge);
    assert.equal(reads, 0);
  });

  it('answers IS_DIRECTORY, NOT_FOUND and the path errors', async () => {
    assert.equal((await h.call('ReadFile', { path: 'src' })).errorCode, ErrorCode.IsDirectory);
    assert.equal((await h.call('ReadFile', { path: 'nope.txt' })).errorCode, ErrorCode.NotFound);
    assert.equal((await h.call('ReadFile', { path: 'no-such-folder/nope.txt' })).errorCode, ErrorCode.NotFound);
    assert.equal((await h.call('ReadFile', { path: '../../../../etc/passwd' })).errorCode, ErrorCode.PathOutsideWorkspace);
    await writeFile(path.join(ws.root, 'outside.txt'), 'secret');
    await symlink(path.join(ws.root, 'outside.txt'), ws.file('inside.txt'));
    assert.equal((await h.call('ReadFile', { path: 'inside.txt' })).errorCode, ErrorCode.PathOutsideWorkspace);
    assert.equal((await h.call('ReadFile', { path: 'http://example.com/x' })).errorCode, ErrorCode.PathInvalid);
  });

  it('asks before reading a protected file; deny is PERMISSION_DENIED, allow returns it, and allowSession is not remembered', async () => {
    ws.host.answerPrompts('deny');
    const denied = await h.call('ReadFile', { path: '.env' });
    assert.equal(denied.errorCode, ErrorCode.PermissionDenied);
    assert.equal(ws.host.prompts[0].message, 'Let the agent read .env (15 B)?');
    assert.equal(ws.host.prompts[0].offerAllowSession, false);
    ws.host.answerPrompts('allowSession');
    assert.deepEqual((await h.call('ReadFile', { path: '.env' })).content, [{ type: 'text', text: 'API_KEY=secret\n' }]);
    await h.call('ReadFile', { path: '.git/config' });
    await h.call('ReadFile', { path: '.env' });
    assert.equal(ws.host.prompts.length, 4, 'every protected read asks');
    await h.call('ReadFile', { path: 'src/a.ts' });
    assert.equal(ws.host.prompts.length, 4, 'ordinary files do not ask');
  });

  it('a symlink with an innocent name pointing at a protected file still asks', async () => {
    await symlink(ws.file('.env'), ws.file('notes.txt'));
    ws.host.answerPrompts('deny');
    assert.equal((await h.call('ReadFile', { path: 'notes.txt' })).errorCode, ErrorCode.PermissionDenied);
    assert.equal(ws.host.prompts.length, 1);
  });

  it('is off in an untrusted workspace (WORKSPACE_UNTRUSTED)', async () => {
    h.registry.setWorkspaceTrusted(false);
    assert.equal((await h.call('ReadFile', { path: 'src/a.ts' })).errorCode, ErrorCode.WorkspaceUntrusted);
  });
});
