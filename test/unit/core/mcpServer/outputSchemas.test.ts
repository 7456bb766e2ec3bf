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
import { SCHEMA_COMPILER_OPTIONS } from '../../../../src/core/registry';
import { BUILTIN_GROUPS } from '../../../../src/tools';
import { startMcpHarness, type McpHarness } from '../../../support/mcp-harness';

const TEXT_OR_BINARY = ['ReadFile'];

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
    assert.deepEqual(declared, calls.map(([name]) => name).sort(), 'the server lists an output schema for exactly these');
    for (const [name, args] of calls) {
      const result = await client.callTool({ name, arguments: args }, CallToolResultSchema);
      assert.notEqual(result.isError, true, `${name}: ${JSON.stringify(result.content)}`);
      assert.equal(typeof result.structuredContent, 'object', name);
    }
  });
});
