import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import * as vscode from 'vscode';
import type { ClientToServer } from '../../src/protocol';
import type { ClientToolsApi } from '../../src/vscode/context';
import type { ScriptedBackend } from '../support/scripted-backend';
import { EXTENSION_ID, until, useScriptedConnection } from './support/scriptedConnection';

const TOKEN = 'extension-host-test-token';

describe('the extension against a scripted backend', function () {
  this.timeout(60_000);
  const connection = useScriptedConnection(TOKEN);
  let api: ClientToolsApi;
  let backend: ScriptedBackend;
  let workspace: string;

  const invoke = (toolName: string, args: Record<string, unknown>) => backend.call(toolName, args);

  before(() => ({ api, backend, workspace } = connection()));

  it('registers the IDE group in hello, with DeleteFile behind a permission prompt', async () => {
    const hello = await backend.first('hello');
    const ide = hello.toolGroups.find((g) => g.name === 'IDE');
    assert.ok(ide, 'IDE group missing from hello');
    assert.deepEqual(ide.tools.map((t) => t.name).sort(), ['DeleteFile', 'GetSelection', 'OpenFile', 'ReadFile', 'ShowMessage']);
    assert.equal(ide.tools.find((t) => t.name === 'DeleteFile')?.requiresPermission, true);
    assert.equal(hello.workspace.trusted, true);
  });

  it('declares every palette command under the Client Tools category and registers it', async () => {
    const ext = vscode.extensions.getExtension(EXTENSION_ID)!;
    const declared = (ext.packageJSON as { contributes: { commands: { command: string; category: string }[] } }).contributes.commands;
    const registered = new Set(await vscode.commands.getCommands(true));
    for (const c of declared) {
      assert.equal(c.category, 'Client Tools', `${c.command} has no category`);
      assert.ok(registered.has(c.command), `${c.command} is declared but not registered`);
    }
    assert.ok(declared.length >= 12);
  });

  it('OpenFile opens the file in an editor with the range selected', async () => {
    const res = await invoke('OpenFile', { path: 'notes.md', startLine: 1, startColumn: 1, endLine: 1, endColumn: 5 });
    assert.equal(res.success, true, res.errorMessage);
    const value = (res.content[0] as { type: 'json'; value: { path: string; language: string; lineCount: number } }).value;
    assert.equal(value.path, 'notes.md');
    assert.equal(value.language, 'markdown');
    const editor = vscode.window.activeTextEditor;
    assert.ok(editor);
    assert.equal(path.basename(editor.document.uri.fsPath), 'notes.md');
    assert.equal(value.lineCount, editor.document.lineCount);
    assert.deepEqual([editor.selection.start.line, editor.selection.start.character, editor.selection.end.character], [0, 0, 4]);
  });

  it('GetSelection returns the selection the test made', async () => {
    const doc = await vscode.workspace.openTextDocument(vscode.Uri.file(path.join(workspace, 'src', 'sample.ts')));
    const editor = await vscode.window.showTextDocument(doc);
    const line = doc.lineAt(0);
    editor.selection = new vscode.Selection(line.range.start, line.range.end);
    const res = await invoke('GetSelection', {});
    assert.equal(res.success, true, res.errorMessage);
    const value = (res.content[0] as { type: 'json'; value: Record<string, unknown> }).value;
    assert.equal(value.text, line.text);
    assert.equal(value.isEmpty, false);
    assert.equal(value.language, 'typescript');
    assert.match(String(value.file), /sample\.ts$/);
  });

  it('ReadFile returns an image as binary content with its MIME type', async () => {
    const res = await invoke('ReadFile', { path: 'logo.png' });
    assert.equal(res.success, true, res.errorMessage);
    const item = res.content.find((c) => c.type === 'binary');
    assert.ok(item && item.type === 'binary', 'no binary content');
    assert.equal(item.mimeType, 'image/png');
    assert.deepEqual(Buffer.from(item.bytes), fs.readFileSync(path.join(workspace, 'logo.png')));
  });

  it('refuses a path that escapes the workspace before touching it', async () => {
    const res = await invoke('ReadFile', { path: '../../etc/passwd' });
    assert.equal(res.success, false);
    assert.equal(res.errorCode, 'PATH_OUTSIDE_WORKSPACE');
  });

  it('the tool tree shows what the model sees and updates live', async () => {
    const group = (expanded: boolean) => ({
      type: 'toolGroupState' as const, collapsing: true,
      groups: [{
        name: 'IDE', description: 'IDE tools', expanded, containerName: 'IDE',
        tools: ['OpenFile', 'GetSelection', 'ShowMessage', 'ReadFile', 'DeleteFile'].map((name) => ({ name, visible: expanded, requiresPermission: name === 'DeleteFile' })),
        skills: [],
      }],
    });
    backend.send(group(false));
    await until('collapsed IDE in the tree', () => api.toolGroups().find((g) => g.name === 'IDE')?.status === 'collapsed');
    backend.send(group(true));
    const ide = await until('expanded IDE in the tree', () => {
      const g = api.toolGroups().find((x) => x.name === 'IDE');
      return g?.status === 'expanded' ? g : undefined;
    });
    assert.equal(ide.tools.find((t) => t.name === 'DeleteFile')?.permission, true);
    assert.equal(ide.tools.find((t) => t.name === 'OpenFile')?.status, 'visible');
  });

  it('Ask About Selection sends the question with the selected text', async () => {
    const doc = await vscode.workspace.openTextDocument(vscode.Uri.file(path.join(workspace, 'hello.txt')));
    const editor = await vscode.window.showTextDocument(doc);
    editor.selection = new vscode.Selection(0, 0, 0, 5);
    await vscode.commands.executeCommand('clientTools.askAboutSelection', 'What is this word?');
    const msg = await backend.first('userMessage', (m) => m.text === 'What is this word?');
    assert.equal(msg.context?.selectedText, doc.getText(editor.selection));
    assert.equal(msg.context?.file, 'hello.txt');
  });

  it('New Chat starts a new thread and keeps the old one: later messages carry a new thread id, no resetThread is sent', async () => {
    const doc = await vscode.workspace.openTextDocument(vscode.Uri.file(path.join(workspace, 'hello.txt')));
    const editor = await vscode.window.showTextDocument(doc);
    editor.selection = new vscode.Selection(0, 0, 0, 5);
    await vscode.commands.executeCommand('clientTools.askAboutSelection', 'Before New Chat?');
    const before = await backend.first('userMessage', (m) => m.text === 'Before New Chat?');
    const resets = backend.received.filter((m) => m.type === 'resetThread').length;
    await vscode.commands.executeCommand('clientTools.newChat');
    await vscode.commands.executeCommand('clientTools.askAboutSelection', 'After New Chat?');
    const after = await backend.first('userMessage', (m) => m.text === 'After New Chat?');
    assert.notEqual(after.threadId, before.threadId);
    assert.equal(backend.received.filter((m) => m.type === 'resetThread').length, resets, 'the old thread stays in the history list and in the backend');
  });

  it('Disconnect and Reconnect change the connection and the status bar', async () => {
    await vscode.commands.executeCommand('clientTools.disconnect');
    await until('disconnected state', () => api.connectionState() !== 'connected');
    const hellos = backend.received.filter((m: ClientToServer) => m.type === 'hello').length;
    await vscode.commands.executeCommand('clientTools.reconnect');
    await until('a new hello', () => backend.received.filter((m) => m.type === 'hello').length > hellos);
    await until('connected again', () => api.connectionState() === 'connected');
    assert.match(api.statusText(), /Client Tools/);
    assert.doesNotMatch(api.statusText(), /reconnecting|disconnected/);
  });

  it('applies a changed in-flight limit without a reload, held to its minimum of 1', async () => {
    const config = vscode.workspace.getConfiguration('clientTools');
    const hellos = () => backend.received.filter((m) => m.type === 'hello').length;
    const before = hellos();
    await config.update('limits.maxInFlight', 0, vscode.ConfigurationTarget.Global);
    try {
      await until('reconnected with the new limit', () => hellos() > before && api.connectionState() === 'connected');
      // A ShowMessage with buttons waits for a click that never comes: it holds the one slot.
      const waitingId = backend.invoke('ShowMessage', { message: 'Hold the slot', buttons: ['OK'] });
      await backend.first('clientToolProgress', (m) => m.requestId === waitingId && m.status === 'running');
      const refused = await invoke('GetSelection', {});
      assert.equal(refused.success, false);
      assert.equal(refused.errorCode, 'TOO_MANY_IN_FLIGHT');
      backend.send({ type: 'clientToolCancel', requestId: waitingId, reason: 'test done' });
      const cancelled = await backend.first('clientToolInvokeResponse', (m) => m.requestId === waitingId);
      assert.equal(cancelled.errorCode, 'CANCELLED');
    } finally {
      await config.update('limits.maxInFlight', undefined, vscode.ConfigurationTarget.Global);
    }
    await until('connected', () => api.connectionState() === 'connected');
    const ok = await invoke('GetSelection', {});
    assert.equal(ok.success, true, ok.errorMessage);
  });

  it('the status bar shows a dropped backend as reconnecting', async () => {
    backend.dropClients();
    await until('reconnecting in the status bar', () => /reconnecting|connecting/.test(api.statusText()), 15_000);
    await until('connected again', () => api.connectionState() === 'connected', 15_000);
  });
});
