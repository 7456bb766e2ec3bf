import * as assert from 'node:assert/strict';
import { mkdir, symlink, writeFile } from 'node:fs/promises';
import * as path from 'node:path';
import { ErrorCode, type ClientToolInvokeResponse } from '../../../../src/protocol';
import { SEARCH_GROUP, SEARCH_TOOLS } from '../../../../src/tools/search/group';
import { DispatchHarness } from '../../../support/dispatch-harness';
import { createTempWorkspace, type TempWorkspace } from '../../../support/fake-host';

interface Listing {
  path: string;
  entries: { path: string; size?: number; link?: true }[];
  excluded?: number;
  truncated?: boolean;
}

function json<T>(r: ClientToolInvokeResponse): T {
  assert.equal(r.success, true, `${r.errorCode}: ${r.errorMessage}`);
  const item = r.content[0];
  assert.ok(item && item.type === 'json');
  return item.value as T;
}

describe('ListDirectory', () => {
  let ws: TempWorkspace;
  let h: DispatchHarness;
  const list = async (args: Record<string, unknown>) => json<Listing>(await h.call('ListDirectory', args));

  beforeEach(async () => {
    ws = await createTempWorkspace(['ws'], {
      'README.md': '12345',
      'src/a.ts': 'a',
      'src/deep/b.ts': 'bb',
      'src/deep/deeper/c.ts': 'ccc',
      'dist/out.js': 'x',
      'tmp/x.log': 'x',
      '.gitignore': 'dist/\n',
      '.git/HEAD': 'ref',
    });
    h = new DispatchHarness({ host: ws.host, group: SEARCH_GROUP, tools: SEARCH_TOOLS });
  });
  afterEach(async () => {
    h.dispose();
    await ws.dispose();
  });

  it('lists one level with sizes, folders ending in "/", and says what files.exclude and .gitignore left out', async () => {
    const v = await list({});
    assert.deepEqual(v.entries, [{ path: '.gitignore', size: 6 }, { path: 'README.md', size: 5 }, { path: 'src/' }, { path: 'tmp/' }]);
    assert.equal(v.excluded, 2, '.git (files.exclude) and dist (.gitignore)');
    assert.equal(v.path, '.');
  });

  it('goes as deep as asked, breadth first, from a subfolder, with the caller\'s excludes', async () => {
    assert.deepEqual((await list({ path: 'src', depth: 3 })).entries.map((e) => e.path), ['src/a.ts', 'src/deep/', 'src/deep/b.ts', 'src/deep/deeper/', 'src/deep/deeper/c.ts']);
    assert.deepEqual((await list({ path: 'src', depth: 3, exclude: ['**/deeper'] })).entries.map((e) => e.path), ['src/a.ts', 'src/deep/', 'src/deep/b.ts']);
    const all = await list({ useExcludeSettings: false, useIgnoreFiles: false });
    assert.deepEqual(all.entries.map((e) => e.path), ['.git/', '.gitignore', 'README.md', 'dist/', 'src/', 'tmp/']);
  });

  it('caps the entries and says so', async () => {
    const v = await list({ depth: 3, maxEntries: 3 });
    assert.equal(v.entries.length, 3);
    assert.equal(v.truncated, true);
  });

  it('marks a link and does not follow it, even to a folder', async () => {
    const outside = path.join(ws.root, 'outside');
    await mkdir(outside);
    await writeFile(path.join(outside, 'secret.txt'), 'secret');
    await symlink(outside, ws.file('src/out'));
    const v = await list({ path: 'src', depth: 3 });
    assert.deepEqual(v.entries.find((e) => e.path === 'src/out'), { path: 'src/out', link: true });
    assert.ok(!v.entries.some((e) => e.path.includes('secret')), JSON.stringify(v.entries));
  });

  it('a file or a missing path is refused with its code', async () => {
    assert.equal((await h.call('ListDirectory', { path: 'README.md' })).errorCode, ErrorCode.InvalidArguments);
    assert.equal((await h.call('ListDirectory', { path: 'nope' })).errorCode, ErrorCode.NotFound);
    assert.equal((await h.call('ListDirectory', { path: '../' })).errorCode, ErrorCode.PathOutsideWorkspace);
  });
});
