/**
 * The Search, Language, SourceControl and Tasks tools reached through the editor's MCP server by
 * the official MCP SDK client, as Claude Code, Gemini CLI or any MCP client reaches them: listed
 * with read-only hints, called behind the same rules (these reads need no prompt; the calls are
 * background calls, which this suite allows), answering with structured content that the SDK client
 * checks against each tool's listed output schema.
 */
import * as assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import * as vscode from 'vscode';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { ownLock } from './support/mcpLock';
import { until, useScriptedConnection } from './support/scriptedConnection';

const settings = () => vscode.workspace.getConfiguration('clientTools');

describe('the IDE intelligence tools through the editor\'s MCP server (official SDK client)', function () {
  this.timeout(120_000);
  const connection = useScriptedConnection('ide-tools-mcp-token');
  let client: Client;
  let workspace: string;
  let repo: string;

  /** Calls a tool and returns its structured content, failing on an error result. */
  async function call<T = Record<string, unknown>>(name: string, args: Record<string, unknown>): Promise<T> {
    const result = await client.callTool({ name, arguments: args });
    assert.notEqual(result.isError, true, JSON.stringify(result.content));
    assert.ok(result.structuredContent, `no structured content from ${name}`);
    return result.structuredContent as T;
  }

  before(async () => {
    ({ workspace } = connection());
    repo = path.join(workspace, 'mcp-git');
    fs.mkdirSync(repo, { recursive: true });
    const git = (...args: string[]) => execFileSync('git', ['-c', 'user.name=Test', '-c', 'user.email=test@example.invalid', '-c', 'commit.gpgsign=false', ...args], { cwd: repo });
    git('init', '-q', '-b', 'main');
    fs.writeFileSync(path.join(repo, 'x.txt'), 'x\n');
    git('add', '.');
    git('commit', '-q', '-m', 'x');
    fs.writeFileSync(path.join(repo, 'x.txt'), 'y\n');
    const gitApi = (await vscode.extensions.getExtension<{ getAPI(v: 1): { repositories: { rootUri: vscode.Uri }[]; openRepository(u: vscode.Uri): Promise<unknown> } }>('vscode.git')!.activate()).getAPI(1);
    const real = fs.realpathSync(repo);
    if (!gitApi.repositories.some((r) => r.rootUri.fsPath === real)) await gitApi.openRepository(vscode.Uri.file(real));

    await settings().update('mcpServer.enabled', true, vscode.ConfigurationTarget.Global);
    const lock = await until('the MCP lock file', () => ownLock(), 20_000);
    client = new Client({ name: 'ide-tools-test', version: '1.0.0' });
    await client.connect(new StreamableHTTPClientTransport(new URL(lock.url), { requestInit: { headers: { Authorization: `Bearer ${lock.token}` } } }));
    await vscode.workspace.openTextDocument(vscode.Uri.file(path.join(workspace, 'app', 'main.ts')));
  });

  after(async () => {
    await client?.close();
    await settings().update('mcpServer.enabled', undefined, vscode.ConfigurationTarget.Global);
    fs.rmSync(repo, { recursive: true, force: true });
  });

  it('lists the new tools, the reads marked read-only and RenameSymbol and RunTask not', async () => {
    const tools = new Map((await client.listTools()).tools.map((t) => [t.name, t]));
    for (const name of ['SearchText', 'ListDirectory', 'GoToDefinition', 'FindReferences', 'GetHover', 'GetDocumentSymbols', 'GitStatus', 'GitDiff', 'GitLog', 'ListTasks']) {
      assert.equal(tools.get(name)?.annotations?.readOnlyHint, true, name);
    }
    for (const name of ['RenameSymbol', 'ApplyCodeAction', 'RunTask']) assert.equal(tools.get(name)?.annotations?.readOnlyHint, false, name);
    assert.equal(tools.get('RunTask')?.annotations?.openWorldHint, true, 'a task runs a command');
    assert.equal(tools.get('SearchText')?.annotations?.openWorldHint, false);
  });

  it('SearchText, FindReferences and GetDocumentSymbols answer as they do for the backend', async () => {
    const found = await call<{ matches: { location: string }[] }>('SearchText', { query: 'TODO', include: ['app/**'] });
    assert.deepEqual(found.matches.map((m) => m.location), ['app/main.ts:11:4']);
    const refs = await call<{ locations: { location: string }[] }>('FindReferences', { path: 'src/sample.ts', symbol: 'greet' });
    assert.deepEqual(refs.locations.map((l) => l.location), ['app/main.ts:1:10', 'app/main.ts:8:10', 'app/main.ts:14:13', 'src/sample.ts:6:17']);
    const outline = await call<{ symbols: { name: string }[] }>('GetDocumentSymbols', { path: 'src/sample.ts' });
    assert.ok(outline.symbols.some((s) => s.name === 'greet'), JSON.stringify(outline.symbols));
  });

  it('GitStatus and GitDiff read a real repository; a path outside the workspace is refused with its code', async () => {
    let unstaged: string[] = [];
    for (const end = Date.now() + 30_000; Date.now() < end; await new Promise((r) => setTimeout(r, 300))) {
      const result = await client.callTool({ name: 'GitStatus', arguments: { path: 'mcp-git' } });
      if (result.isError) continue;
      unstaged = (result.structuredContent as { unstaged: string[] }).unstaged;
      break;
    }
    assert.deepEqual(unstaged, ['mcp-git/x.txt (modified)']);
    const diff = await call<{ diff: string }>('GitDiff', { path: 'mcp-git/x.txt' });
    assert.match(diff.diff, /^-x$/m);
    const outside = await client.callTool({ name: 'ListDirectory', arguments: { path: '../' } });
    assert.equal(outside.isError, true);
    assert.match(JSON.stringify(outside.content), /PATH_OUTSIDE_WORKSPACE/);
  });

  it('every other read of the new groups answers with structured content that matches its listed output schema (the SDK client checks it)', async () => {
    const tools = new Map((await client.listTools()).tools.map((t) => [t.name, t]));
    const reads: [string, Record<string, unknown>][] = [
      ['ListDirectory', { depth: 2 }],
      ['GoToDefinition', { path: 'app/main.ts', line: 8, symbol: 'greet' }],
      ['GoToTypeDefinition', { path: 'app/main.ts', line: 8, symbol: 'guest' }],
      ['FindImplementations', { path: 'src/sample.ts', symbol: 'Greeting' }],
      ['GetHover', { path: 'app/main.ts', line: 8, symbol: 'greet' }],
      ['SearchWorkspaceSymbols', { query: 'Guest' }],
      ['GetCallHierarchy', { path: 'src/sample.ts', symbol: 'greet' }],
      ['GetCodeActions', { path: 'app/main.ts', startLine: 8 }],
      ['GitLog', { path: 'mcp-git' }],
      ['ListTasks', {}],
    ];
    for (const [name, args] of reads) {
      assert.ok(tools.get(name)?.outputSchema, `${name} lists no output schema`);
      await call(name, args);
    }
    const log = await call<{ commits: { message: string }[] }>('GitLog', { path: 'mcp-git' });
    assert.deepEqual(log.commits.map((c) => c.message), ['x']);
  });
});
