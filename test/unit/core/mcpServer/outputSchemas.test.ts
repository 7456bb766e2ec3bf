/**
 * Output schemas (issue 26, item 5): every built-in tool whose result is a JSON object declares one,
 * the editor's MCP server lists it as `outputSchema`, and every result matches it. The checks run in
 * an official SDK client, which refuses a result whose `structuredContent` does not match the
 * schema the server listed (or that lacks one), over the real server, dispatcher and gate.
 */
import * as assert from 'node:assert/strict';
import * as path from 'node:path';
import Ajv2020 from 'ajv/dist/2020';
import { CallToolResultSchema } from '@modelcontextprotocol/sdk/types.js';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import type { GitRepositoryState, SymbolInfo, TextEditSpec } from '../../../../src/core/host';
import { SCHEMA_COMPILER_OPTIONS } from '../../../../src/core/registry';
import { BUILTIN_GROUPS } from '../../../../src/tools';
import { at, type HeldChangeReview } from '../../../support/fake-language';
import { startMcpHarness, type McpHarness } from '../../../support/mcp-harness';

const TEXT_OR_BINARY = ['ReadFile'];
/** Every built-in tool that declares an output schema; each test below calls its share of them. */
const DECLARED = BUILTIN_GROUPS.flatMap((g) => g.tools).map((t) => t.name).filter((n) => !TEXT_OR_BINARY.includes(n)).sort();
const called = new Set<string>();

/** Calls a tool through the SDK client, which checks its structured content against the listed schema; fails on an error result. */
async function callChecked(client: Client, name: string, args: Record<string, unknown>): Promise<Record<string, unknown>> {
  const result = await client.callTool({ name, arguments: args }, CallToolResultSchema);
  assert.notEqual(result.isError, true, `${name}: ${JSON.stringify(result.content)}`);
  assert.equal(typeof result.structuredContent, 'object', name);
  called.add(name);
  return result.structuredContent as Record<string, unknown>;
}

const SAMPLE = 'export function greet(name: string): string {\n  return name;\n}\n';
const MAIN = "import { greet } from './sample';\n\nconst a = greet('a');\n// TODO: more\nconst b = greet('b');\n";
const edit = (line: number, character: number, length: number, newText: string): TextEditSpec => ({ range: { startLine: line, startCharacter: character, endLine: line, endCharacter: character + length }, newText });

describe('output schemas of the built-in tools, through the editor MCP server', function () {
  this.timeout(60_000);
  let h: McpHarness;
  afterEach(async () => h?.close());

  it('every built-in tool whose result is a JSON object declares an output schema that passes the 2020-12 meta-schema and compiles strictly', () => {
    const ajv = new Ajv2020(SCHEMA_COMPILER_OPTIONS);
    const meta = new Ajv2020({ strict: true, strictTypes: false, strictTuples: false, logger: false });
    const tools = BUILTIN_GROUPS.flatMap((g) => g.tools);
    assert.deepEqual(tools.filter((t) => t.outputSchema === undefined).map((t) => t.name), TEXT_OR_BINARY);
    for (const t of tools) {
      if (!t.outputSchema) continue;
      assert.ok(meta.validateSchema(t.outputSchema), `${t.name}: ${meta.errorsText(meta.errors)}`);
      assert.doesNotThrow(() => ajv.compile(t.outputSchema!), t.name);
      assert.equal(t.outputSchema.type, 'object', t.name);
    }
  });

  it('each one\'s real result matches the schema the server lists, checked by the SDK client', async () => {
    h = await startMcpHarness({ backgroundCalls: 'allow', files: { 'a.ts': 'const a = 1;\nconst b = 2;\n', 'gone.txt': 'x', 'notes.md': '# notes\n' } });
    const root = h.ws.host.folders[0].path;
    const file = (rel: string) => path.join(root, rel);
    h.ws.host.selection = { path: file('a.ts'), uri: `file://${file('a.ts')}`, language: 'typescript', selection: { startLine: 0, startCharacter: 0, endLine: 0, endCharacter: 5 }, text: 'const', isEmpty: false };
    h.ws.host.catalog.editors = [{ path: file('a.ts'), label: 'a.ts', active: true, dirty: false, language: 'typescript', kind: 'text', group: 1, preview: false }];
    h.ws.host.catalog.diagnosticsList = [{ path: file('a.ts'), diagnostics: [{ severity: 'error', message: 'boom', range: { startLine: 0, startCharacter: 0, endLine: 0, endCharacter: 1 }, source: 'ts', code: '2304' }] }];
    await h.ws.host.catalog.open(file('notes.md'));
    void h.ws.host.catalog.nextDiff().then((d) => d.accept());

    const client = await h.connect();
    const listed = await client.listTools();
    const calls: [string, Record<string, unknown>][] = [
      ['GetWorkspaceFolders', {}],
      ['FindFiles', { pattern: '**/*.ts' }],
      ['GetOpenEditors', {}],
      ['GetDiagnostics', {}],
      ['GetSelection', {}],
      ['OpenFile', { path: 'a.ts' }],
      ['CloseTab', { path: 'a.ts' }],
      ['ShowMessage', { message: 'hello' }],
      ['ApplyEdit', { path: 'a.ts', edits: [{ startLine: 1, startColumn: 1, endLine: 1, endColumn: 6, newText: 'let' }] }],
      ['SaveDocument', { path: 'notes.md' }],
      ['OpenDiff', { path: 'a.ts', newContent: 'const a = 10;\nconst b = 2;\n' }],
      ['RunInTerminal', { command: 'ls' }],
      ['DeleteFile', { path: 'gone.txt' }],
    ];
    const declared = listed.tools.filter((t) => t.outputSchema !== undefined).map((t) => t.name).sort();
    assert.deepEqual(declared, DECLARED, 'the server lists an output schema for exactly these');
    for (const [name, args] of calls) await callChecked(client, name, args);
  });

  it('the Search, Language, SourceControl and Tasks tools\' results, in each of their branches, match the schema the server lists, checked by the SDK client', async () => {
    h = await startMcpHarness({ backgroundCalls: 'allow', files: { 'src/sample.ts': SAMPLE, 'src/main.ts': MAIN, 'sub/x.txt': 'x\n', 'notes.md': '# notes\n', '.env': 'KEY=1\n' } });
    const { host } = h.ws;
    const lang = host.language;
    const sample = h.ws.file('src/sample.ts');
    const main = h.ws.file('src/main.ts');
    const env = h.ws.file('.env');
    const outside = '/opt/lib/outside.d.ts';
    const greet: SymbolInfo = { name: 'greet', kind: 'Function', detail: '(name: string): string', location: at(sample, 0, 16, 5), depth: 0 };
    lang.locationsOf = (query) => (query === 'typeDefinition' ? [] : [at(sample, 0, 16, 5), at(main, 2, 10, 5), at(main, 4, 10, 5), at(outside, 3, 2), at(env, 0, 0)]);
    lang.outline.set(sample, [greet, { name: 'name', kind: 'Variable', location: at(sample, 0, 22, 4), depth: 1 }]);
    lang.workspaceSymbolList = [
      { ...greet, name: 'greet()', container: 'sample' },
      { name: 'greet', kind: 'Variable', location: at(main, 0, 9, 5) },
      { name: 'greet', kind: 'Function', location: at(outside, 1, 0) },
      { name: 'KEY', kind: 'Variable', location: at(env, 0, 0) },
    ];
    lang.rename = (_p, _pos, newName) => ({ files: [{ path: sample, uri: '', edits: [edit(0, 16, 5, newName)] }, { path: main, uri: '', edits: [edit(2, 10, 5, newName), edit(4, 10, 5, newName)] }], fileOperations: 0 });
    lang.actions = [
      { title: 'Fix it', kind: 'quickfix', isPreferred: true, runsCommand: true, change: { files: [{ path: sample, uri: '', edits: [edit(1, 9, 4, 'name.trim()')] }], fileOperations: 0 } },
      { title: 'Not now', kind: 'refactor', disabled: 'select an expression', runsCommand: false },
      { title: 'Only a command', runsCommand: true },
    ];
    const review = (decide: (r: HeldChangeReview) => void) => () => void lang.nextReview().then(decide);
    const repo: GitRepositoryState = {
      root: h.ws.folders[0].path,
      branch: 'main',
      commit: '0123456789abcdef0123',
      upstream: 'origin/main',
      ahead: 2,
      behind: 1,
      staged: [],
      unstaged: [{ path: main, status: 'modified' }, { path: env, status: 'modified' }, { path: sample, status: 'renamed', originalPath: h.ws.file('src/old.ts') }, { path: path.join(h.ws.root, 'elsewhere.txt'), status: 'modified' }],
      untracked: [{ path: h.ws.file('notes.md'), status: 'untracked' }],
      conflicts: [],
    };
    host.git.repositories = [repo, { root: h.ws.file('sub'), staged: [], unstaged: [], untracked: [], conflicts: [] }];
    host.git.diffs.set(main, { working: `diff --git a/src/main.ts b/src/main.ts\n${'+x\n'.repeat(60)}` });
    host.git.diffs.set(sample, { working: 'diff --git a/src/sample.ts b/src/sample.ts\n+y\n' });
    host.git.diffs.set(env, { working: '-KEY=0\n+KEY=1\n' });
    host.git.commits = [{ hash: '0123456789abcdef0123', message: 'first\n', authorName: 'A', authorDate: '2026-01-02T03:04:05Z' }, { hash: 'fedcba9876543210', message: 'second' }];
    const folder = h.ws.folders[0].path;
    host.taskList.tasks = [
      { name: 'build', source: 'Workspace', folder, group: 'build', detail: 'make everything', execution: { kind: 'shell', commandLine: 'make all' } },
      { name: 'watch', source: 'typescript', folder, execution: { kind: 'custom' } },
    ];

    const client = await h.connect();
    await client.listTools();
    const calls: [string, Record<string, unknown>, (() => void)?][] = [
      ['SearchText', { query: 'greet', contextLines: 1, maxResults: 1 }],
      ['SearchText', { query: 'n[o]thing-here', isRegex: true }],
      ['ListDirectory', { depth: 2, exclude: ['**/*.md'], maxEntries: 3 }],
      ['ListDirectory', { path: 'sub' }],
      ['GoToDefinition', { path: 'src/main.ts', line: 3, column: 11 }],
      ['GoToDefinition', { path: 'src/main.ts', line: 3, column: 11, includeOutsideText: true }],
      ['GoToTypeDefinition', { path: 'src/main.ts', symbol: 'greet', line: 3 }],
      ['FindImplementations', { symbol: 'greet' }],
      ['FindReferences', { path: 'src/sample.ts', symbol: 'greet', maxResults: 2 }],
      ['GetHover', { path: 'src/sample.ts', line: 1, column: 17 }, () => (lang.hoverTexts = ['```ts\nfunction greet(name: string): string\n```'])],
      ['GetHover', { path: 'src/sample.ts', line: 2 }, () => (lang.hoverTexts = [])],
      ['GetDocumentSymbols', { path: 'src/sample.ts', maxResults: 1 }],
      ['GetDocumentSymbols', { path: 'src/main.ts' }],
      ['SearchWorkspaceSymbols', { query: 'greet', maxResults: 3 }],
      ['SearchWorkspaceSymbols', { query: 'KEY' }],
      ['GetCallHierarchy', { path: 'src/sample.ts', symbol: 'greet' }],
      ['GetCallHierarchy', { path: 'src/sample.ts', symbol: 'greet', direction: 'outgoing' }, () => (lang.calls = { symbol: greet, calls: [{ symbol: { name: 'main', kind: 'Function', location: at(main, 2, 0) }, callSites: [at(main, 2, 10, 5).range] }, { symbol: { name: 'trim', kind: 'Method', location: at(outside, 9, 2) }, callSites: [] }] })],
      ['GetCodeActions', { path: 'src/sample.ts', startLine: 2 }],
      ['GetCodeActions', { path: 'src/sample.ts', startLine: 2, kind: 'source' }, () => (lang.actions = [])],
      ['RenameSymbol', { path: 'src/sample.ts', line: 1, column: 17, newName: 'salute' }, review((r) => r.accept([r.request.files[0].proposed, r.request.files[1].current.replace("const a = greet('a')", "const a = salute('a')")], 'keep b'))],
      ['RenameSymbol', { path: 'src/sample.ts', line: 1, column: 17, newName: 'hail' }, review((r) => r.reject('no'))],
      ['RenameSymbol', { path: 'src/sample.ts', line: 1, column: 17, newName: 'salute' }, review((r) => r.accept(r.request.files.map((f) => f.current)))],
      ['RenameSymbol', { path: 'src/main.ts', line: 3, column: 11, newName: 'salute' }, () => (lang.rename = () => ({ files: [{ path: main, uri: '', edits: [edit(2, 10, 6, 'salute')] }], fileOperations: 0 }))],
      ['ApplyCodeAction', { path: 'src/sample.ts', startLine: 2, title: 'Fix it' }, () => { lang.actions = [{ title: 'Fix it', kind: 'quickfix', runsCommand: true, change: { files: [{ path: sample, uri: '', edits: [edit(1, 9, 4, 'name.trim()')] }], fileOperations: 0 } }]; review((r) => r.accept())(); }],
      ['GitStatus', {}],
      ['GitStatus', { path: 'sub' }],
      ['GitDiff', { maxChars: 100 }],
      ['GitDiff', { staged: true }],
      ['GitLog', { path: 'src/main.ts' }],
      ['GitLog', { path: 'sub' }],
      ['ListTasks', {}],
      ['ListTasks', {}, () => (host.taskList.tasks = [])],
      ['RunTask', { name: 'build' }, () => (host.taskList.tasks = [{ name: 'build', source: 'Workspace', folder, execution: { kind: 'shell', commandLine: 'make all' } }])],
      ['RunTask', { name: 'build', timeoutSeconds: 1 }, () => (host.catalog.commandHandler = async () => ({ output: 'partial\n', truncated: true, timedOut: true, stopped: true, via: 'process' }))],
    ];
    const results = new Map<string, Record<string, unknown>[]>();
    for (const [name, args, before] of calls) {
      before?.();
      const value = await callChecked(client, name, args);
      results.set(name, [...(results.get(name) ?? []), value]);
    }
    // The branches the calls were meant to reach, so a change to the fakes cannot quietly leave one out.
    const keys = (name: string) => new Set(results.get(name)!.flatMap((v) => Object.keys(v)));
    for (const [name, fields] of Object.entries({
      SearchText: ['more', 'message', 'complete'],
      ListDirectory: ['truncated', 'excluded'],
      GoToDefinition: ['note'],
      GoToTypeDefinition: ['message'],
      FindImplementations: ['alsoNamed'],
      FindReferences: ['more'],
      GetHover: ['message'],
      GetDocumentSymbols: ['more', 'message'],
      SearchWorkspaceSymbols: ['more'],
      GetCallHierarchy: ['symbol', 'direction', 'message'],
      GetCodeActions: ['message'],
      RenameSymbol: ['files', 'reason', 'unchanged'],
      ApplyCodeAction: ['note', 'files'],
      GitStatus: ['upstream', 'detached', 'outsideWorkspace', 'message'],
      GitDiff: ['notShown', 'withheld', 'message'],
      GitLog: ['path'],
      ListTasks: ['message'],
      RunTask: ['stopped', 'outputTruncated', 'message'],
    })) {
      for (const f of fields) assert.ok(keys(name).has(f), `${name} never answered with ${f}: ${JSON.stringify(results.get(name))}`);
    }
    assert.deepEqual(results.get('RenameSymbol')!.map((v) => v.decision), ['partial', 'rejected', 'rejected', 'rejected']);
    assert.deepEqual((results.get('ListTasks')![0].tasks as Record<string, unknown>[]).map((t) => Object.keys(t).includes('cannotRun')), [false, true]);
    assert.equal(results.get('RunTask')![1].exitCode, null);
    assert.equal(results.get('GitLog')![1].branch, null);
  });

  it('every tool that declares an output schema was called above', () => {
    assert.deepEqual([...called].sort(), DECLARED);
  });
});
