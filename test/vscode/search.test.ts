/**
 * The Search group in a real VS Code: SearchText runs the ripgrep VS Code ships (found under
 * `vscode.env.appRoot`) with the user's files.exclude, search.exclude and .gitignore, the caller's
 * globs, and a pathological regular expression that must come back complete (linear engine);
 * ListDirectory lists what the explorer would.
 */
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import * as vscode from 'vscode';
import type { ClientToolInvokeResponse } from '../../src/protocol';
import type { ScriptedBackend } from '../support/scripted-backend';
import { useScriptedConnection } from './support/scriptedConnection';

const TOKEN = 'search-test-token';
const NEEDLE = 'NEEDLE-7f3a';

function json<T = Record<string, unknown>>(res: ClientToolInvokeResponse): T {
  assert.equal(res.success, true, `${res.errorCode}: ${res.errorMessage}`);
  const item = res.content[0];
  assert.ok(item && item.type === 'json', `expected JSON content, got ${JSON.stringify(res.content)}`);
  return item.value as T;
}

describe('the Search group in a real VS Code', function () {
  this.timeout(60_000);
  const connection = useScriptedConnection(TOKEN);
  let backend: ScriptedBackend;
  let workspace: string;
  const file = (rel: string) => path.join(workspace, rel);
  const invoke = async (tool: string, args: Record<string, unknown>) => {
    const id = backend.invoke(tool, args);
    return backend.first('clientToolInvokeResponse', (m) => m.requestId === id, 30_000);
  };

  before(() => {
    ({ backend, workspace } = connection());
    const files: Record<string, string> = {
      'search-fixture/kept.ts': `export const found = '${NEEDLE}';\n`,
      'search-fixture/by-files/x.ts': `${NEEDLE}\n`,
      'search-fixture/by-search/y.ts': `${NEEDLE}\n`,
      'search-fixture/ignored-dir/z.ts': `${NEEDLE}\n`,
      'search-fixture/by-model/w.ts': `${NEEDLE}\n`,
      'search-fixture/.gitignore': 'ignored-dir/\n',
      'search-fixture/.env': `SECRET=${NEEDLE}\n`,
      'search-fixture/pathological.txt': `${'a'.repeat(100_000)}!\n`,
    };
    for (const [rel, text] of Object.entries(files)) {
      fs.mkdirSync(path.dirname(file(rel)), { recursive: true });
      fs.writeFileSync(file(rel), text);
    }
  });

  after(() => fs.rmSync(file('search-fixture'), { recursive: true, force: true }));

  it('SearchText finds a symbol\'s uses as path:line:column with the line\'s text', async () => {
    const v = json<{ matches: { location: string; text: string }[]; complete: boolean }>(await invoke('SearchText', { query: 'greet(', include: ['**/*.ts'] }));
    assert.equal(v.complete, true);
    assert.deepEqual(v.matches.map((m) => m.location), ['app/main.ts:8:10', 'app/main.ts:14:13', 'src/sample.ts:6:17']);
    assert.equal(v.matches[0].text, '  return greet(guest);');
  });

  it('SearchText leaves out files.exclude, search.exclude, .gitignore, the caller\'s excludes and protected files', async () => {
    const files0 = vscode.workspace.getConfiguration('files');
    const search0 = vscode.workspace.getConfiguration('search');
    await files0.update('exclude', { '**/.git': true, '**/by-files': true }, vscode.ConfigurationTarget.Global);
    await search0.update('exclude', { '**/by-search': true }, vscode.ConfigurationTarget.Global);
    try {
      const v = json<{ matches: { location: string }[]; matchingLines: number }>(await invoke('SearchText', { query: NEEDLE, caseSensitive: true, exclude: ['**/by-model/**'], path: 'search-fixture' }));
      assert.deepEqual(v.matches.map((m) => m.location), ['search-fixture/kept.ts:1:23']);
      const all = json<{ matches: { location: string }[] }>(await invoke('SearchText', { query: NEEDLE, useExcludeSettings: false, useIgnoreFiles: false, path: 'search-fixture' }));
      assert.deepEqual(all.matches.map((m) => m.location.split(':')[0]).sort(), [
        'search-fixture/by-files/x.ts', 'search-fixture/by-model/w.ts', 'search-fixture/by-search/y.ts', 'search-fixture/ignored-dir/z.ts', 'search-fixture/kept.ts',
      ]);
    } finally {
      await files0.update('exclude', undefined, vscode.ConfigurationTarget.Global);
      await search0.update('exclude', undefined, vscode.ConfigurationTarget.Global);
    }
  });

  it('a pathological regular expression returns promptly and complete; lookaround is refused with its reason', async () => {
    const started = Date.now();
    const v = json<{ matches: { location: string }[]; complete: boolean }>(await invoke('SearchText', { query: '^(a|aa)+$', isRegex: true, path: 'search-fixture' }));
    assert.equal(v.complete, true, 'the search was stopped by its time limit');
    assert.deepEqual(v.matches, []);
    // Generous: a backtracking engine would not finish this in the lifetime of the machine.
    assert.ok(Date.now() - started < 10_000, `took ${Date.now() - started} ms`);
    const refused = await invoke('SearchText', { query: '(?=a)a', isRegex: true });
    assert.equal(refused.errorCode, 'INVALID_ARGUMENTS');
  });

  it('ListDirectory lists a folder with sizes, leaving out files.exclude', async () => {
    const files0 = vscode.workspace.getConfiguration('files');
    await files0.update('exclude', { '**/by-files': true }, vscode.ConfigurationTarget.Global);
    try {
      const v = json<{ entries: { path: string; size?: number }[]; excluded?: number }>(await invoke('ListDirectory', { path: 'search-fixture' }));
      assert.deepEqual(v.entries.map((e) => e.path), [
        'search-fixture/.env', 'search-fixture/.gitignore', 'search-fixture/by-model/', 'search-fixture/by-search/', 'search-fixture/ignored-dir/', 'search-fixture/kept.ts', 'search-fixture/pathological.txt',
      ]);
      assert.equal(v.entries.find((e) => e.path === 'search-fixture/kept.ts')?.size, fs.statSync(file('search-fixture/kept.ts')).size);
      assert.equal(v.excluded, 1);
    } finally {
      await files0.update('exclude', undefined, vscode.ConfigurationTarget.Global);
    }
  });
});
