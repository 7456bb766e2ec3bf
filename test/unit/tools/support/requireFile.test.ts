import * as assert from 'node:assert/strict';
import Ajv2020 from 'ajv/dist/2020';
import { CodedError, ErrorCode } from '../../../../src/protocol';
import { resolveWorkspacePath } from '../../../../src/core/paths';
import { NO_PARAMETERS, pathOnlyParameters } from '../../../../src/tools/support/parameters';
import { requireFile } from '../../../../src/tools/support/requireFile';
import { createTempWorkspace, type TempWorkspace } from '../../../support/fake-host';

describe('tool support: requireFile and shared parameters', () => {
  let ws: TempWorkspace;
  beforeEach(async () => {
    ws = await createTempWorkspace(['ws'], { 'src/a.ts': 'export {};\n' });
  });
  afterEach(async () => ws.dispose());

  const target = (p: string) => resolveWorkspacePath(p, ws.folders);
  const refusedWith = (code: string, message: string) => (e: unknown) => {
    assert.ok(e instanceof CodedError, String(e));
    assert.equal(e.code, code);
    assert.equal(e.message, message);
    return true;
  };

  it('answers the stat of an existing file', async () => {
    const stat = await requireFile(ws.host, await target('src/a.ts'), 'X reads files');
    assert.deepEqual(stat, { kind: 'file', size: 11 });
  });

  it('refuses a missing path with NOT_FOUND and a folder with IS_DIRECTORY naming what the tool is for', async () => {
    await assert.rejects(requireFile(ws.host, await target('src/gone.ts'), 'X reads files'), refusedWith(ErrorCode.NotFound, 'src/gone.ts does not exist'));
    await assert.rejects(requireFile(ws.host, await target('src'), 'X reads files'), refusedWith(ErrorCode.IsDirectory, 'src is a folder; X reads files'));
  });

  it('the shared parameter schemas accept what they describe and refuse the rest', () => {
    const ajv = new Ajv2020({ strict: true });
    const pathOnly = ajv.compile(pathOnlyParameters('a file'));
    assert.equal(pathOnly({ path: 'src/a.ts' }), true);
    assert.equal(pathOnly({ path: '' }), false);
    assert.equal(pathOnly({ path: 'x'.repeat(4097) }), false);
    assert.equal(pathOnly({}), false);
    assert.equal(pathOnly({ path: 'a', extra: 1 }), false);
    const none = ajv.compile(NO_PARAMETERS);
    assert.equal(none({}), true);
    assert.equal(none({ anything: true }), false);
  });
});
