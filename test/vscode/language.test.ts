/**
 * The Language group in a real VS Code on the sample workspace's small TypeScript project
 * (tsconfig.json, src/sample.ts, app/main.ts), answered by VS Code's built-in TypeScript language
 * features: definition, type definition, implementations, references, hover, symbols, calls, a
 * library location without its text, a rename across two files reviewed hunk by hunk with one hunk
 * rejected, and diagnostics asked for right after a file was opened (the settled state).
 */
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import * as vscode from 'vscode';
import type { ClientToolInvokeResponse } from '../../src/protocol';
import type { ScriptedBackend } from '../support/scripted-backend';
import { until, useScriptedConnection } from './support/scriptedConnection';

const TOKEN = 'language-test-token';
const CHANGES_SCHEME = 'client-tools-changes';

function json<T = Record<string, unknown>>(res: ClientToolInvokeResponse): T {
  assert.equal(res.success, true, `${res.errorCode}: ${res.errorMessage}`);
  const item = res.content[0];
  assert.ok(item && item.type === 'json', `expected JSON content, got ${JSON.stringify(res.content)}`);
  return item.value as T;
}

interface Located {
  at: string;
  locations: { location: string; text?: string; outsideWorkspace?: true }[];
}

describe('the Language group in a real VS Code (TypeScript)', function () {
  this.timeout(120_000);
  const connection = useScriptedConnection(TOKEN);
  let backend: ScriptedBackend;
  let workspace: string;
  const file = (rel: string) => path.join(workspace, rel);
  let calls = 0;
  /** Sends a call and returns its answer; a cold TypeScript server may take longer than the scripted backend's default wait. */
  const invoke = (tool: string, args: Record<string, unknown>) => {
    const requestId = `language-${++calls}`;
    return backend.sendRequest({ type: 'clientToolInvokeRequest', requestId, toolName: tool, callId: `call-${requestId}`, arguments: args }, 60_000);
  };
  const locations = (v: Located) => v.locations.map((l) => l.location);

  before(async () => {
    ({ backend, workspace } = connection());
    // Warm the TypeScript server on the project (a cold one takes seconds to load it).
    await vscode.workspace.openTextDocument(vscode.Uri.file(file('app/main.ts')));
  });

  it('GoToDefinition by symbol name on a line: the definition in the other file, with its line', async () => {
    const v = json<Located>(await invoke('GoToDefinition', { path: 'app/main.ts', line: 8, symbol: 'greet' }));
    assert.equal(v.at, 'app/main.ts:8:10');
    assert.deepEqual(v.locations, [{ location: 'src/sample.ts:6:17', text: 'export function greet({ name, excited }: Greeting): string {' }]);
  });

  it('FindReferences by name alone: the declaration and every use, ordered by path and line', async () => {
    const v = json<Located>(await invoke('FindReferences', { symbol: 'greet' }));
    assert.deepEqual(locations(v), ['app/main.ts:1:10', 'app/main.ts:8:10', 'app/main.ts:14:13', 'src/sample.ts:6:17']);
    assert.equal(v.locations[1].text, 'return greet(guest);');
  });

  it('GetHover shows the signature; GoToTypeDefinition and FindImplementations follow the interface', async () => {
    const hover = json<{ hover: string }>(await invoke('GetHover', { path: 'app/main.ts', line: 8, symbol: 'greet' }));
    assert.match(hover.hover, /greet\(\{ name, excited \}: Greeting\): string/);
    const type = json<Located>(await invoke('GoToTypeDefinition', { path: 'app/main.ts', line: 8, symbol: 'guest' }));
    assert.deepEqual(locations(type), ['src/sample.ts:1:18']);
    const impl = json<Located>(await invoke('FindImplementations', { path: 'src/sample.ts', symbol: 'Greeting' }));
    assert.deepEqual(locations(impl), ['app/main.ts:3:14']);
  });

  it('GetDocumentSymbols outlines a file; SearchWorkspaceSymbols finds a class; GetCallHierarchy names the callers', async () => {
    const outline = json<{ symbols: { name: string; kind: string; location: string; depth: number }[] }>(await invoke('GetDocumentSymbols', { path: 'app/main.ts' }));
    const top = outline.symbols.filter((s) => s.depth === 0).map((s) => `${s.kind} ${s.name} ${s.location}`);
    assert.deepEqual(top, ['Class Guest app/main.ts:3:14', 'Function welcome app/main.ts:7:17', 'Function farewell app/main.ts:12:17']);
    const found = json<{ symbols: { name: string; location: string }[] }>(await invoke('SearchWorkspaceSymbols', { query: 'Guest' }));
    assert.deepEqual(found.symbols[0], { name: 'Guest', kind: 'Class', location: 'app/main.ts:3:1' });
    const calls = json<{ calls: { name: string; callSites: string[] }[] }>(await invoke('GetCallHierarchy', { path: 'src/sample.ts', symbol: 'greet' }));
    assert.deepEqual(calls.calls.map((c) => [c.name, c.callSites]).sort(), [['farewell', ['app/main.ts:14:13']], ['welcome', ['app/main.ts:8:10']]]);
  });

  it('a definition in the standard library (outside the workspace) is a location without its text', async () => {
    const v = json<Located & { note?: string }>(await invoke('GoToDefinition', { path: 'app/main.ts', line: 14, symbol: 'trim' }));
    assert.ok(v.locations.length > 0);
    for (const l of v.locations) {
      assert.equal(l.outsideWorkspace, true, l.location);
      assert.equal(l.text, undefined, `the text of ${l.location} was returned`);
      assert.match(l.location, /lib\.es5\.d\.ts:\d+:\d+$/);
    }
    assert.match(v.note ?? '', /outside the workspace/);
  });

  it('RenameSymbol across two files: one review, one hunk rejected, the rest written', async () => {
    const sample = fs.readFileSync(file('src/sample.ts'), 'utf8');
    const main = fs.readFileSync(file('app/main.ts'), 'utf8');
    try {
      const renamed = invoke('RenameSymbol', { path: 'src/sample.ts', symbol: 'greet', newName: 'salute' });
      const proposedMain = await until('the proposed app/main.ts', () => vscode.workspace.textDocuments.find((d) => d.uri.scheme === CHANGES_SCHEME && d.uri.path === '/app/main.ts'), 30_000);
      assert.ok(vscode.workspace.textDocuments.some((d) => d.uri.scheme === CHANGES_SCHEME && d.uri.authority === proposedMain.uri.authority && d.uri.path === '/src/sample.ts'), 'both files are in one review');
      assert.equal(fs.readFileSync(file('app/main.ts'), 'utf8'), main, 'written before the review was decided');
      // Reject the third hunk of app/main.ts (farewell's call) the way the diff editor's revert arrow does: by editing the proposal.
      const line = proposedMain.lineAt(13);
      assert.match(line.text, /salute\(guest\)/);
      const revert = new vscode.WorkspaceEdit();
      revert.replace(proposedMain.uri, line.range, line.text.replace('salute(guest)', 'greet(guest)'));
      assert.equal(await vscode.workspace.applyEdit(revert), true);
      assert.equal(await vscode.commands.executeCommand('clientTools.acceptDiff'), true);
      const v = json<{ decision: string; files: { path: string; decision: string; keptHunks: number[]; rejectedHunks: number[] }[] }>(await renamed);
      assert.equal(v.decision, 'partial');
      const byPath = Object.fromEntries(v.files.map((f) => [f.path, [f.decision, f.keptHunks, f.rejectedHunks]]));
      assert.deepEqual(byPath, { 'src/sample.ts': ['accepted', [1], []], 'app/main.ts': ['partial', [1, 2], [3]] });
      assert.equal(fs.readFileSync(file('src/sample.ts'), 'utf8'), sample.replace('function greet(', 'function salute('));
      const written = fs.readFileSync(file('app/main.ts'), 'utf8').split('\n');
      assert.match(written[0], /import \{ salute, type Greeting \}/);
      assert.equal(written[7], '  return salute(guest);');
      assert.equal(written[13], '  return `${greet(guest)} Goodbye.`.trim();');
    } finally {
      fs.writeFileSync(file('src/sample.ts'), sample);
      fs.writeFileSync(file('app/main.ts'), main);
      await vscode.commands.executeCommand('workbench.action.closeAllEditors');
    }
  });

  it('GetDiagnostics right after OpenFile waits for the language server: both errors of a new file', async () => {
    fs.writeFileSync(file('app/broken.ts'), "export const n: number = 'one';\nexport const s: string = 2;\n");
    try {
      json(await invoke('OpenFile', { path: 'app/broken.ts' }));
      const v = json<{ diagnostics: { path: string; severity: string; range: { startLine: number } }[]; total: number }>(await invoke('GetDiagnostics', { path: 'app/broken.ts' }));
      assert.deepEqual(v.diagnostics.map((d) => [d.severity, d.range.startLine]), [['error', 1], ['error', 2]]);
    } finally {
      await vscode.commands.executeCommand('workbench.action.closeAllEditors');
      fs.rmSync(file('app/broken.ts'), { force: true });
    }
  });
});
