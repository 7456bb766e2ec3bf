/**
 * The editor's MCP server in a real VS Code extension host: off by default, not switched on by a
 * workspace setting, on from user settings with a 0600 lock file naming this window's folders,
 * reachable with the official SDK client and the token the lock file and the copied configuration
 * hold, and gone (lock file removed, port closed) when switched off again.
 */
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import * as vscode from 'vscode';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { LOCK_FOLDER, ownLock } from './support/mcpLock';
import { until, useScriptedConnection } from './support/scriptedConnection';

const settings = () => vscode.workspace.getConfiguration('clientTools');

describe('the MCP server in the extension host', function () {
  this.timeout(60_000);
  const connection = useScriptedConnection('mcp-server-token');
  let workspace: string;

  before(() => ({ workspace } = connection()));
  after(async () => {
    await settings().update('mcpServer.enabled', undefined, vscode.ConfigurationTarget.Global);
  });

  it('is off by default, and a workspace setting cannot switch it on', async () => {
    assert.equal(ownLock(), undefined);
    assert.equal(await vscode.commands.executeCommand('clientTools.copyMcpConfig', 'mcpJson'), false);
    // What a cloned repository could carry (VS Code's own API refuses to write this application setting there).
    const folder = path.join(workspace, '.vscode');
    const file = path.join(folder, 'settings.json');
    const before = fs.existsSync(file) ? fs.readFileSync(file, 'utf8') : undefined;
    fs.mkdirSync(folder, { recursive: true });
    // The window-scoped setting beside it shows when VS Code has read the file.
    fs.writeFileSync(file, JSON.stringify({ 'clientTools.mcpServer.enabled': true, 'clientTools.editorContext.enabled': false }));
    try {
      await until('VS Code read the workspace settings', () => (settings().inspect('editorContext.enabled')?.workspaceValue === false ? true : undefined), 20_000);
      await new Promise((r) => setTimeout(r, 1500));
      assert.equal(ownLock(), undefined, 'a workspace turned the MCP server on');
    } finally {
      if (before === undefined) fs.rmSync(file);
      else fs.writeFileSync(file, before);
    }
  });

  it('from user settings: a 0600 lock file with this window\'s folders, the copied configuration, and the SDK client lists and calls tools', async () => {
    await settings().update('mcpServer.enabled', true, vscode.ConfigurationTarget.Global);
    const lock = await until('the lock file', () => ownLock(), 20_000);
    const file = path.join(LOCK_FOLDER, `${lock.port}.lock`);
    assert.equal(fs.statSync(file).mode & 0o777, 0o600);
    assert.ok(lock.workspaceFolders.includes(workspace), JSON.stringify(lock.workspaceFolders));
    assert.match(lock.token, /^[0-9a-f]{64}$/);

    assert.equal(await vscode.commands.executeCommand('clientTools.copyMcpConfig', 'mcpJson'), true);
    const copied = JSON.parse(await vscode.env.clipboard.readText()) as { mcpServers: Record<string, { url: string; headers: Record<string, string> }> };
    assert.deepEqual(copied.mcpServers['client-tools'], { type: 'http', url: lock.url, headers: { Authorization: `Bearer ${lock.token}` } });

    const client = new Client({ name: 'extension-host-test', version: '1.0.0' });
    await client.connect(new StreamableHTTPClientTransport(new URL(lock.url), { requestInit: { headers: copied.mcpServers['client-tools'].headers } }));
    try {
      const names = (await client.listTools()).tools.map((t) => t.name);
      assert.ok(names.includes('OpenFile') && names.includes('GetWorkspaceFolders'), names.join(', '));
    } finally {
      await client.close();
    }
  });

  it('a credential for an agent started outside the editor: in secret storage, good after a restart on the fixed port, revoked on demand', async () => {
    const port = 40000 + Math.floor(Math.random() * 20000);
    await settings().update('mcpServer.port', port, vscode.ConfigurationTarget.Global);
    try {
      await until('the server on the fixed port', () => ownLock()?.port === port || undefined, 20_000);
      assert.equal(await vscode.commands.executeCommand('clientTools.createMcpCredential', 'Claude Code', 'mcpJson'), 'Claude Code');
      const copied = JSON.parse(await vscode.env.clipboard.readText()) as { mcpServers: Record<string, { url: string; headers: Record<string, string> }> };
      const entry = copied.mcpServers['client-tools'];
      assert.equal(entry?.url, `http://127.0.0.1:${port}/mcp`);
      const lock = ownLock();
      assert.notEqual(entry?.headers.Authorization, `Bearer ${lock?.token}`, 'the credential is not the window token');
      const initialize = () => fetch(entry?.url ?? '', { method: 'POST', headers: { ...entry?.headers, 'Content-Type': 'application/json', Accept: 'application/json, text/event-stream' }, body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'outside', version: '1' } } }) });
      assert.equal((await initialize()).status, 200);

      // A restart (the server off and on): a new window token, the same port, the credential still good.
      await settings().update('mcpServer.enabled', false, vscode.ConfigurationTarget.Global);
      await until('the server stopped', () => (ownLock() === undefined ? true : undefined), 20_000);
      await settings().update('mcpServer.enabled', true, vscode.ConfigurationTarget.Global);
      const restarted = await until('the server again', () => ownLock(), 20_000);
      assert.equal(restarted.port, port);
      assert.notEqual(restarted.token, lock?.token);
      assert.equal((await initialize()).status, 200);

      assert.equal(await vscode.commands.executeCommand('clientTools.revokeMcpCredential', 'Claude Code'), true);
      assert.equal((await initialize()).status, 401);
    } finally {
      await settings().update('mcpServer.port', undefined, vscode.ConfigurationTarget.Global);
    }
  });

  it('switched off: the lock file is removed and the port refuses connections', async () => {
    const lock = await until('the lock file', () => ownLock(), 20_000);
    await settings().update('mcpServer.enabled', false, vscode.ConfigurationTarget.Global);
    await until('the lock file removed', () => (fs.existsSync(path.join(LOCK_FOLDER, `${lock.port}.lock`)) ? undefined : true), 20_000);
    await assert.rejects(fetch(lock.url, { method: 'POST', headers: { Authorization: `Bearer ${lock.token}` } }));
  });
});
