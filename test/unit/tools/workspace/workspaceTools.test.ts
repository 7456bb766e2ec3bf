import * as assert from 'node:assert/strict';
import * as path from 'node:path';
import { ErrorCode, type ClientToolInvokeResponse } from '../../../../src/protocol';
import { WORKSPACE_GROUP, WORKSPACE_TOOLS } from '../../../../src/tools/workspace/group';
import { DispatchHarness } from '../../../support/dispatch-harness';
import { createTempWorkspace, type TempWorkspace } from '../../../support/fake-host';

function json<T = Record<string, unknown>>(r: ClientToolInvokeResponse): T {
  assert.equal(r.success, true, r.errorMessage);
  const item = r.content[0];
  assert.ok(item && item.type === 'json');
  return item.value as T;
}

describe('Workspace group', () => {
  let ws: TempWorkspace;
  let h: DispatchHarness;
  beforeEach(async () => {
    ws = await createTempWorkspace(['ws'], {
      'src/a.ts': 'a',
      'src/b.ts': 'b',
      'src/deep/c.ts': 'c',
      'README.md': '# hi',
      'dist/out.js': 'x',
      'logs/app.log': 'x',
      'keep.log': 'x',
      '.gitignore': 'dist/\n*.log\n!keep.log\n',
      '.git/HEAD': 'ref',
    });
    h = new DispatchHarness({ host: ws.host, group: WORKSPACE_GROUP, tools: WORKSPACE_TOOLS });
  });
  afterEach(async () => {
    h.dispose();
    await ws.dispose();
  });

  it('GetWorkspaceFolders lists the folders and the trust state', async () => {
    const v = json<{ folders: { name: string; path: string }[]; trusted: boolean; multiRoot: boolean }>(await h.call('GetWorkspaceFolders', {}));
    assert.deepEqual(v.folders, [{ name: 'ws', path: ws.folders[0].path }]);
    assert.equal(v.trusted, true);
    assert.equal(v.multiRoot, false);
  });

  describe('FindFiles', () => {
    it('returns sorted workspace-relative paths without what .gitignore ignores', async () => {
      const v = json<{ files: string[]; truncated: boolean; ignoredByGitignore: number }>(await h.call('FindFiles', { pattern: '**/*' }));
      assert.deepEqual(v.files, ['.gitignore', 'README.md', 'keep.log', 'src/a.ts', 'src/b.ts', 'src/deep/c.ts']);
      assert.equal(v.truncated, false);
      assert.equal(v.ignoredByGitignore, 2);
    });

    it('matches the glob and caps at maxResults, saying more matched', async () => {
      assert.deepEqual(json<{ files: string[] }>(await h.call('FindFiles', { pattern: 'src/*.ts' })).files, ['src/a.ts', 'src/b.ts']);
      const v = json<{ files: string[]; count: number; truncated: boolean }>(await h.call('FindFiles', { pattern: '**/*.ts', maxResults: 2 }));
      assert.equal(v.files.length, 2);
      assert.equal(v.count, 2);
      assert.equal(v.truncated, true);
    });

    it('asks the host for more than maxResults, so .gitignore filtering still fills the answer', async () => {
      await h.call('FindFiles', { pattern: '**/*', maxResults: 10 });
      assert.equal(ws.host.catalog.searches[0].options.maxResults, 41);
    });

    it('refuses absolute patterns and .. segments before searching', async () => {
      for (const pattern of ['/etc/*', '../**', 'src/../../x', 'C:/x/*']) {
        const r = await h.call('FindFiles', { pattern });
        assert.equal(r.errorCode, ErrorCode.InvalidArguments, pattern);
      }
      assert.equal(ws.host.catalog.searches.length, 0);
    });

    it('is off in restricted mode', async () => {
      h.registry.setWorkspaceTrusted(false);
      assert.equal((await h.call('FindFiles', { pattern: '**/*' })).errorCode, ErrorCode.WorkspaceUntrusted);
      assert.equal((await h.call('GetWorkspaceFolders', {})).success, true);
    });

    it('names the folder first in a multi-root workspace and reads each folder\'s .gitignore', async () => {
      const multi = await createTempWorkspace(['api', 'web']);
      try {
        const { writeFile, mkdir } = await import('node:fs/promises');
        await mkdir(path.join(multi.folders[1].path, 'gen'), { recursive: true });
        await writeFile(path.join(multi.folders[0].path, 'main.go'), '');
        await writeFile(path.join(multi.folders[1].path, 'app.ts'), '');
        await writeFile(path.join(multi.folders[1].path, 'gen', 'x.ts'), '');
        await writeFile(path.join(multi.folders[1].path, '.gitignore'), 'gen/\n');
        const hm = new DispatchHarness({ host: multi.host, group: WORKSPACE_GROUP, tools: WORKSPACE_TOOLS });
        const v = json<{ files: string[] }>(await hm.call('FindFiles', { pattern: '**/*.{go,ts}' }));
        assert.deepEqual(v.files, ['api/main.go', 'web/app.ts']);
        hm.dispose();
      } finally {
        await multi.dispose();
      }
    });
  });

  it('GetOpenEditors reports tabs with workspace-relative paths, and only a label for files outside', async () => {
    ws.host.catalog.editors = [
      { path: ws.file('src/a.ts'), uri: 'file:///x', label: 'a.ts', active: true, dirty: true, language: 'typescript', kind: 'text', group: 1, preview: false },
      { path: path.join(ws.root, 'elsewhere.txt'), label: 'elsewhere.txt', active: false, dirty: false, kind: 'text', group: 1, preview: true },
      { label: 'Settings', active: false, dirty: false, kind: 'other', group: 2, preview: false },
    ];
    const v = json<{ editors: Record<string, unknown>[]; count: number }>(await h.call('GetOpenEditors', {}));
    assert.equal(v.count, 3);
    assert.deepEqual(v.editors[0], { path: 'src/a.ts', label: 'a.ts', active: true, dirty: true, language: 'typescript', kind: 'text', group: 1 });
    assert.deepEqual(v.editors[1], { label: 'elsewhere.txt', outsideWorkspace: true, active: false, dirty: false, kind: 'text', group: 1, preview: true });
    assert.equal(JSON.stringify(v).includes(ws.root), false, 'no absolute path leaks');
  });

  describe('GetDiagnostics', () => {
    beforeEach(() => {
      const d = (severity: 'error' | 'warning' | 'hint', line: number, message: string) => ({
        severity, message, source: 'ts', code: '2322',
        range: { startLine: line, startCharacter: 4, endLine: line, endCharacter: 9 },
      });
      ws.host.catalog.diagnosticsList = [
        { path: ws.file('src/b.ts'), diagnostics: [d('warning', 0, 'unused'), d('error', 2, 'type mismatch')] },
        { path: ws.file('src/a.ts'), diagnostics: [d('hint', 1, 'could be const')] },
        { path: path.join(ws.root, 'outside.ts'), diagnostics: [d('error', 0, 'elsewhere')] },
      ];
    });

    it('lists workspace diagnostics with 1-based ranges, errors first', async () => {
      const v = json<{ diagnostics: Record<string, unknown>[]; total: number; counts: Record<string, number> }>(await h.call('GetDiagnostics', {}));
      assert.equal(v.total, 3);
      assert.deepEqual(v.counts, { error: 1, warning: 1, information: 0, hint: 1 });
      assert.deepEqual(v.diagnostics[0], {
        path: 'src/b.ts', severity: 'error', message: 'type mismatch', source: 'ts', code: '2322',
        range: { startLine: 3, startColumn: 5, endLine: 3, endColumn: 10 },
      });
      assert.ok(!JSON.stringify(v).includes('elsewhere'), 'files outside the workspace are left out');
    });

    it('filters by file and by minimum severity, and caps the count', async () => {
      const one = json<{ diagnostics: { path: string }[] }>(await h.call('GetDiagnostics', { path: 'src/a.ts' }));
      assert.deepEqual(one.diagnostics.map((d) => d.path), ['src/a.ts']);
      const warnings = json<{ diagnostics: { severity: string }[] }>(await h.call('GetDiagnostics', { minSeverity: 'warning' }));
      assert.deepEqual(warnings.diagnostics.map((d) => d.severity), ['error', 'warning']);
      const capped = json<{ diagnostics: unknown[]; truncated: boolean }>(await h.call('GetDiagnostics', { maxResults: 1 }));
      assert.equal(capped.diagnostics.length, 1);
      assert.equal(capped.truncated, true);
    });

    it('refuses a path outside the workspace', async () => {
      assert.equal((await h.call('GetDiagnostics', { path: '../outside.ts' })).errorCode, ErrorCode.PathOutsideWorkspace);
    });
  });
});
