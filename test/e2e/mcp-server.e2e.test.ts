/**
 * The editor as an MCP server, in a real VS Code (code-server) driven by a real Chromium: with
 * `clientTools.mcpServer.enabled` in the user's settings the extension writes its lock file; this
 * test process reads it and connects with the official MCP SDK client over Streamable HTTP. It
 * calls OpenFile, ReadFile of a PNG (image content), DeleteFile with Deny and with Allow clicked on
 * the real permission dialog, and GetDiagnostics; each call shows in the chat as a card marked with
 * the client's name. Then the official MCP conformance suite runs against the same server (baseline
 * in test/fixtures; its fixture tools registered through the API by the test-only extension
 * test/fixtures/mcp-conformance-extension), and requests without the token, with an Origin or with a foreign Host are
 * refused. Background calls are allowed here, so only DeleteFile asks (the `ask` default is covered
 * by test/unit/core/mcpServer/mcpServer.test.ts).
 *
 * Screenshots go to test-results/mcp-server-*.png.
 * Run: npm run build && npx mocha --no-config --require tsx/cjs --extension ts --timeout 300000 --exit test/e2e/mcp-server.e2e.test.ts
 */
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import type { Locator, Page } from 'playwright-core';
import type { McpLockInfo } from '../../src/vscode/mcpServer/mcpLockFile';
import { node22, runConformance } from '../support/mcp-conformance';
import { makePng } from '../support/png';
import { ChatDriver, MODAL_PROMPTS, modalDialog } from './support/chat-driver';
import { RESULTS, useScriptedVSCode } from './support/scripted-vscode';

const ROOT = path.resolve(__dirname, '..', '..');
const CLIENT_NAME = 'e2e-agent';
const PNG = makePng(3, 3, [10, 200, 30]);

function text(result: CallToolResult): string {
  return result.content.map((c) => (c.type === 'text' ? c.text : `[${c.type}]`)).join('\n');
}

async function until<T>(what: string, probe: () => T | undefined | Promise<T | undefined>, timeoutMs = 60_000): Promise<T> {
  const start = Date.now();
  for (;;) {
    const value = await probe();
    if (value !== undefined && value !== false) return value;
    if (Date.now() - start > timeoutMs) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 250));
  }
}

function post(port: number, headers: Record<string, string>): Promise<number> {
  return new Promise((resolve, reject) => {
    const body = JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'rogue', version: '1' } } });
    const req = http.request({ host: '127.0.0.1', port, path: '/mcp', method: 'POST', headers: { 'Content-Type': 'application/json', Accept: 'application/json, text/event-stream', ...headers } }, (res) => {
      res.resume();
      resolve(res.statusCode ?? 0);
    });
    req.on('error', reject);
    req.end(body);
  });
}

describe('the editor as an MCP server in a real VS Code', function () {
  this.timeout(180_000);
  const session = useScriptedVSCode({
    name: 'mcp-server',
    allowBackgroundCalls: true,
    settings: { ...MODAL_PROMPTS, 'clientTools.mcpServer.enabled': true },
    extensions: [path.join(ROOT, 'test', 'fixtures', 'mcp-conformance-extension')],
    prepare: (workspace) => {
      fs.writeFileSync(path.join(workspace, 'green.png'), PNG);
      fs.writeFileSync(path.join(workspace, 'keep.txt'), 'keep me\n');
      fs.writeFileSync(path.join(workspace, 'doomed.txt'), 'delete me\n');
      fs.writeFileSync(path.join(workspace, 'orphan.txt'), 'the client that asked is gone\n');
      fs.writeFileSync(path.join(workspace, 'broken.json'), '{ "a": 1,,, }\n');
    },
  });
  let page: Page;
  let chat: ChatDriver;
  let lock: McpLockInfo;
  let client: Client;
  let workspace: string;
  let screenshot: (label: string) => Promise<Buffer>;

  const cards = (): Locator => chat.frame.locator('.tool-card');
  const call = async (name: string, args: Record<string, unknown>) => (await client.callTool({ name, arguments: args })) as CallToolResult;

  before(async () => {
    const s = session();
    ({ page, screenshot, workspace } = s);
    chat = new ChatDriver(page);
    await chat.open();
    const folder = path.join(s.vscode.tempDir, 'home', '.client-tools', 'mcp');
    lock = await until('the MCP lock file', () => {
      const files = fs.existsSync(folder) ? fs.readdirSync(folder).filter((f) => f.endsWith('.lock')) : [];
      const infos = files.map((f) => JSON.parse(fs.readFileSync(path.join(folder, f), 'utf8')) as McpLockInfo);
      return infos.find((i) => i.workspaceFolders.includes(workspace));
    });
    const file = path.join(folder, `${lock.port}.lock`);
    assert.equal(fs.statSync(file).mode & 0o777, 0o600);
    assert.equal(fs.statSync(folder).mode & 0o777, 0o700);
    client = new Client({ name: CLIENT_NAME, version: '1.0.0' });
    await client.connect(new StreamableHTTPClientTransport(new URL(lock.url), { requestInit: { headers: { Authorization: `Bearer ${lock.token}` } } }));
  });

  after(async () => {
    await client?.close().catch(() => undefined);
  });

  it('lists the built-in tools with their hints', async () => {
    const { tools } = await client.listTools();
    const names = tools.map((t) => t.name);
    for (const n of ['OpenFile', 'ReadFile', 'DeleteFile', 'GetDiagnostics']) assert.ok(names.includes(n), n);
    assert.equal(tools.find((t) => t.name === 'DeleteFile')?.annotations?.destructiveHint, true);
  });

  it('OpenFile opens the file in the editor, and the chat shows the call marked with the client name', async () => {
    const result = await call('OpenFile', { path: 'broken.json' });
    assert.notEqual(result.isError, true, text(result));
    await page.locator('.tab', { hasText: 'broken.json' }).first().waitFor({ timeout: 30_000 });
    const card = cards().first();
    await chat.waitForCardStatus(card, 'succeeded', 30_000);
    assert.equal(await card.locator('.tool-name').textContent(), 'OpenFile');
    assert.equal(await card.locator('.caller-badge').textContent(), `MCP: ${CLIENT_NAME}`);
    assert.equal(await card.locator('.caller-badge').isVisible(), true);
  });

  it('GetDiagnostics reports the JSON errors of the opened file', async () => {
    const found = await until('diagnostics for broken.json', async () => {
      const result = await call('GetDiagnostics', { path: 'broken.json' });
      assert.notEqual(result.isError, true, text(result));
      const value = result.structuredContent as { diagnostics: { path: string; message: string }[] };
      return value.diagnostics.length > 0 ? value.diagnostics : undefined;
    });
    assert.equal(found[0].path, 'broken.json');
  });

  it('ReadFile of a PNG returns MCP image content with the file bytes', async () => {
    const result = await call('ReadFile', { path: 'green.png' });
    const image = result.content.find((c) => c.type === 'image');
    assert.ok(image && image.type === 'image', text(result));
    assert.equal(image.mimeType, 'image/png');
    assert.equal(image.data, PNG.toString('base64'));
  });

  it('DeleteFile asks in the real dialog: Deny keeps the file and answers isError PERMISSION_DENIED', async () => {
    const pending = call('DeleteFile', { path: 'keep.txt' });
    const dialog = modalDialog(page);
    await dialog.waitFor({ timeout: 30_000 });
    assert.match((await dialog.locator('.dialog-message-text').textContent()) ?? '', /keep\.txt/);
    assert.match((await dialog.locator('.dialog-message-detail').textContent()) ?? '', /through the editor's MCP server by MCP: e2e-agent/);
    await screenshot('delete-prompt');
    await dialog.getByRole('button', { name: 'Deny', exact: true }).click();
    const result = await pending;
    assert.equal(result.isError, true);
    assert.match(text(result), /^PERMISSION_DENIED: /);
    assert.ok(fs.existsSync(path.join(workspace, 'keep.txt')));
  });

  it('DeleteFile with Allow clicked deletes the file; its card says it succeeded, marked with the client', async () => {
    const pending = call('DeleteFile', { path: 'doomed.txt' });
    const dialog = modalDialog(page);
    await dialog.waitFor({ timeout: 30_000 });
    await dialog.getByRole('button', { name: 'Allow', exact: true }).click();
    const result = await pending;
    assert.notEqual(result.isError, true, text(result));
    assert.equal(fs.existsSync(path.join(workspace, 'doomed.txt')), false);
    const card = cards().filter({ hasText: 'DeleteFile' }).last();
    await chat.waitForCardStatus(card, 'succeeded', 30_000);
    assert.equal(await card.locator('.caller-badge').textContent(), `MCP: ${CLIENT_NAME}`);
    await screenshot('cards');
    await page.locator('.part.sidebar').screenshot({ path: path.join(RESULTS, 'mcp-server-cards.chat.png') });
  });

  it('T-GONE-05: a real MCP client process killed while its DeleteFile dialog is open: Allow clicked afterwards deletes nothing, the card says cancelled', async () => {
    const child = spawn(process.execPath, [path.join(ROOT, 'test', 'fixtures', 'mcp-clients', 'call-tool.mjs'), lock.url, lock.token, 'DeleteFile', JSON.stringify({ path: 'orphan.txt' })], { stdio: 'ignore' });
    try {
      const dialog = modalDialog(page);
      await dialog.waitFor({ timeout: 30_000 });
      assert.match((await dialog.locator('.dialog-message-text').textContent()) ?? '', /orphan\.txt/);
      child.kill('SIGKILL');
      const card = cards().filter({ hasText: 'DeleteFile' }).filter({ hasText: 'killed-client' }).last();
      // VS Code cannot close a modal from code: the card says cancelled first, then the user clicks.
      await chat.waitForCardStatus(card, 'cancelled', 30_000);
      await dialog.getByRole('button', { name: 'Allow', exact: true }).click();
      await new Promise((r) => setTimeout(r, 1000));
      assert.ok(fs.existsSync(path.join(workspace, 'orphan.txt')), 'Allow deleted the file for a client that was gone');
      await chat.waitForCardStatus(card, 'cancelled', 5_000);
      await screenshot('gone-client');
    } finally {
      child.kill('SIGKILL');
    }
  });

  it('refuses a request without the token, with an Origin, or with a foreign Host', async () => {
    assert.equal(await post(lock.port, {}), 401);
    assert.equal(await post(lock.port, { Authorization: `Bearer ${lock.token}`, Origin: 'https://evil.example' }), 403);
    assert.equal(await post(lock.port, { Authorization: `Bearer ${lock.token}`, Host: 'evil.example' }), 403);
  });

  it('writes the token nowhere but the lock file (no log of VS Code, the extension or code-server holds it)', () => {
    const found: string[] = [];
    const extensionLogs: string[] = [];
    const walk = (dir: string): void => {
      for (const entry of fs.readdirSync(dir, { withFileTypes: true })) {
        const full = path.join(dir, entry.name);
        if (entry.isDirectory()) walk(full);
        else if (entry.isFile() && fs.statSync(full).size < 20 * 1024 * 1024) {
          const bytes = fs.readFileSync(full);
          if (bytes.includes(lock.token)) found.push(full);
          if (bytes.includes(`MCP server listening on ${lock.url}`)) extensionLogs.push(full);
        }
      }
    };
    const s = session();
    walk(s.vscode.tempDir);
    assert.deepEqual(found, [path.join(s.vscode.tempDir, 'home', '.client-tools', 'mcp', `${lock.port}.lock`)]);
    assert.ok(extensionLogs.length > 0, 'the extension\'s log was not among the files searched');
  });

  it('passes the official MCP conformance suite (server mode) except the baseline entries', async function () {
    this.timeout(240_000);
    const out = fs.mkdtempSync(path.join(os.tmpdir(), 'mcp-conformance-'));
    try {
      const run = await runConformance(ROOT, node22(ROOT), lock.port, lock.token, out);
      assert.equal(run.exitCode, 0, run.output.slice(-4000));
      for (const scenario of ['tools-list', 'logging-set-level', 'tools-call-simple-text', 'tools-call-image', 'tools-call-audio', 'tools-call-embedded-resource', 'tools-call-mixed-content', 'tools-call-with-logging', 'tools-call-with-progress', 'tools-call-error']) {
        assert.match(run.output, new RegExp(`✓ ${scenario}: \\d+ passed, 0 failed`), scenario);
      }
      assert.match(run.output, /Baseline check passed/);
    } finally {
      fs.rmSync(out, { recursive: true, force: true });
    }
  });
});
