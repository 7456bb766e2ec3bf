/**
 * Tool policies from the Tool Groups view (Allow / Ask / Deny in a tool's context menu), against the
 * real VS Code API with a scripted backend: the commands the menu runs, with the node the tree
 * passes, change what the permission gate does, and Deny (Off) takes the tool out of what the backend
 * is offered; the view title's refresh redraws the tree without reconnecting.
 */
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import * as vscode from 'vscode';
import type { ClientToolsApi } from '../../src/vscode/context';
import type { ScriptedBackend } from '../support/scripted-backend';
import { EXTENSION_ID, until, useScriptedConnection } from './support/scriptedConnection';

const DELETE_FILE = { kind: 'tool', group: 'IDE', name: 'DeleteFile' };

describe('tool policies from the Tool Groups view', function () {
  this.timeout(60_000);
  const connection = useScriptedConnection('tool-policies-token');
  let api: ClientToolsApi;
  let backend: ScriptedBackend;
  let workspace: string;

  before(() => ({ api, backend, workspace } = connection()));
  after(() => vscode.commands.executeCommand('clientTools.askTool', DELETE_FILE));

  const policyShown = () => api.toolGroups().find((g) => g.name === 'IDE')?.tools.find((t) => t.name === 'DeleteFile')?.policy;
  const askedFor = (requestId: string) => backend.received.some((m) => m.type === 'clientToolProgress' && m.requestId === requestId && m.status === 'awaiting-permission');
  const updates = () => backend.received.filter((m) => m.type === 'updateToolGroups');
  const offered = (update: (typeof backend.received)[number], tool: string) =>
    JSON.stringify((update as { augmentation?: unknown }).augmentation ?? {}).includes(`"name":"${tool}"`);
  const deleteFile = async (rel: string) => {
    const id = backend.invoke('DeleteFile', { path: rel });
    return { id, response: await backend.first('clientToolInvokeResponse', (m) => m.requestId === id, 15_000) };
  };

  it('Deny refuses DeleteFile without asking, Allow runs it without asking, Ask asks again', async () => {
    const victim = path.join(workspace, 'policy-victim.txt');
    fs.writeFileSync(victim, 'delete me\n');

    const updatesBefore = updates().length;
    await vscode.commands.executeCommand('clientTools.denyTool', DELETE_FILE);
    assert.equal(policyShown(), 'deny');
    // Off: the backend is told at once, and the tree still lists the tool (to switch it on again).
    await until('an update without DeleteFile', () => updates().slice(updatesBefore).some((u) => !offered(u, 'DeleteFile') && offered(u, 'OpenFile')));
    assert.equal(api.toolGroups().find((g) => g.name === 'IDE')?.tools.find((t) => t.name === 'DeleteFile')?.status, 'switched off');
    const denied = await deleteFile('policy-victim.txt');
    assert.equal(denied.response.errorCode, 'TOOL_DISABLED');
    assert.match(denied.response.errorMessage ?? '', /DeleteFile is switched off in the Tool Groups view/);
    assert.equal(askedFor(denied.id), false, 'the user was asked although the policy is Deny');
    assert.ok(fs.existsSync(victim));

    const offAt = updates().length;
    await vscode.commands.executeCommand('clientTools.allowTool', DELETE_FILE);
    assert.equal(policyShown(), 'allow');
    await until('an update offering DeleteFile again', () => updates().slice(offAt).some((u) => offered(u, 'DeleteFile')));
    const allowed = await deleteFile('policy-victim.txt');
    assert.equal(allowed.response.success, true, `${allowed.response.errorCode}: ${allowed.response.errorMessage}`);
    assert.equal(askedFor(allowed.id), false, 'the user was asked although the policy is Allow');
    assert.equal(fs.existsSync(victim), false);

    await vscode.commands.executeCommand('clientTools.askTool', DELETE_FILE);
    assert.equal(policyShown(), 'ask');
    const id = backend.invoke('DeleteFile', { path: 'hello.txt' });
    await until('the prompt', () => askedFor(id));
    backend.send({ type: 'clientToolCancel', requestId: id, reason: 'test' });
    assert.equal((await backend.first('clientToolInvokeResponse', (m) => m.requestId === id)).errorCode, 'CANCELLED');
    assert.ok(fs.existsSync(path.join(workspace, 'hello.txt')));
  });

  it('a policy is offered only for tools that ask permission: the menu command ignores others', async () => {
    await vscode.commands.executeCommand('clientTools.denyTool', { kind: 'tool', group: 'IDE', name: 'OpenFile' });
    assert.equal(api.toolGroups().find((g) => g.name === 'IDE')?.tools.find((t) => t.name === 'OpenFile')?.policy, 'ask');
    const id = backend.invoke('OpenFile', { path: 'notes.md' });
    assert.equal((await backend.first('clientToolInvokeResponse', (m) => m.requestId === id)).success, true);
  });

  it("the view title's refresh redraws the tree and does not reconnect", async () => {
    const hellos = () => backend.received.filter((m) => m.type === 'hello').length;
    const before = hellos();
    await vscode.commands.executeCommand('clientTools.refreshToolGroups');
    // A round trip after the refresh: a reconnect would have sent a new hello before this answer.
    const id = backend.invoke('GetWorkspaceFolders', {});
    assert.equal((await backend.first('clientToolInvokeResponse', (m) => m.requestId === id)).success, true);
    assert.equal(hellos(), before, 'the refresh reconnected');
    assert.equal(api.connectionState(), 'connected');
    const pkg = vscode.extensions.getExtension(EXTENSION_ID)!.packageJSON as { contributes: { menus: Record<string, { command: string; when?: string }[]> } };
    const titleCommands = pkg.contributes.menus['view/title'].filter((m) => m.when === 'view == clientTools.toolGroups').map((m) => m.command);
    assert.deepEqual(titleCommands, ['clientTools.refreshToolGroups']);
  });
});
