import * as assert from 'node:assert/strict';
import { ErrorCode } from '../../../../src/protocol';
import { IDE_GROUP, IDE_TOOLS } from '../../../../src/tools/ide/group';
import { DispatchHarness } from '../../../support/dispatch-harness';
import { createTempWorkspace, type TempWorkspace } from '../../../support/fake-host';

describe('tool OpenFile', () => {
  let ws: TempWorkspace;
  let h: DispatchHarness;
  beforeEach(async () => {
    ws = await createTempWorkspace(['ws'], { 'src/a.ts': 'line 1\nline 2\nline 3\n', 'docs/readme.md': '# x\n' });
    h = new DispatchHarness({ host: ws.host, group: IDE_GROUP, tools: IDE_TOOLS });
  });
  afterEach(async () => {
    h.dispose();
    await ws.dispose();
  });

  it('opens a file and answers its workspace-relative path, language and line count', async () => {
    const r = await h.call('OpenFile', { path: 'src/a.ts' });
    assert.equal(r.success, true, r.errorMessage);
    assert.deepEqual(r.content, [{ type: 'json', value: { path: 'src/a.ts', language: 'typescript', lineCount: 4 } }]);
    assert.deepEqual(ws.host.opened, [{ path: ws.file('src/a.ts'), options: { preview: true } }]);
  });

  it('puts the caret at line/column (1-based in, 0-based to the host) and honours preview:false', async () => {
    await h.call('OpenFile', { path: 'src/a.ts', line: 2, column: 3, preview: false });
    assert.deepEqual(ws.host.opened[0].options, { preview: false, selection: { startLine: 1, startCharacter: 2, endLine: 1, endCharacter: 2 } });
  });

  it('selects a range; endLine without endColumn selects to the end of that line', async () => {
    await h.call('OpenFile', { path: 'src/a.ts', startLine: 1, startColumn: 2, endLine: 2, endColumn: 4 });
    assert.deepEqual(ws.host.opened[0].options.selection, { startLine: 0, startCharacter: 1, endLine: 1, endCharacter: 3 });
    await h.call('OpenFile', { path: 'src/a.ts', startLine: 2, endLine: 3 });
    assert.deepEqual(ws.host.opened[1].options.selection, { startLine: 1, startCharacter: 0, endLine: 2, endCharacter: Number.MAX_SAFE_INTEGER });
  });

  it('refuses mixed or backwards positions and line 0 with INVALID_ARGUMENTS naming the field', async () => {
    const mixed = await h.call('OpenFile', { path: 'src/a.ts', line: 1, startLine: 2 });
    assert.deepEqual([mixed.errorCode, mixed.errorMessage?.startsWith('line:')], [ErrorCode.InvalidArguments, true]);
    const backwards = await h.call('OpenFile', { path: 'src/a.ts', startLine: 3, endLine: 1 });
    assert.equal(backwards.errorCode, ErrorCode.InvalidArguments);
    const zero = await h.call('OpenFile', { path: 'src/a.ts', line: 0 });
    assert.deepEqual([zero.errorCode, zero.errorMessage], [ErrorCode.InvalidArguments, 'line: must be >= 1']);
    const wrongType = await h.call('OpenFile', { path: ['src/a.ts'] });
    assert.deepEqual([wrongType.errorCode, wrongType.errorMessage], [ErrorCode.InvalidArguments, 'path: must be string']);
    assert.equal(ws.host.opened.length, 0);
  });

  it('answers NOT_FOUND, IS_DIRECTORY and PATH_OUTSIDE_WORKSPACE without opening anything', async () => {
    assert.equal((await h.call('OpenFile', { path: 'src/missing.ts' })).errorCode, ErrorCode.NotFound);
    assert.equal((await h.call('OpenFile', { path: 'src' })).errorCode, ErrorCode.IsDirectory);
    assert.equal((await h.call('OpenFile', { path: '../../etc/passwd' })).errorCode, ErrorCode.PathOutsideWorkspace);
    assert.equal((await h.call('OpenFile', { path: 'vscode-remote://x/etc/passwd' })).errorCode, ErrorCode.PathInvalid);
    assert.equal(ws.host.opened.length, 0);
  });

  it('stays available in an untrusted workspace', async () => {
    h.registry.setWorkspaceTrusted(false);
    assert.equal((await h.call('OpenFile', { path: 'docs/readme.md' })).success, true);
  });
});
