/**
 * A rogue backend tries to get a destructive tool run without the user's say-so. The extension
 * alone decides whether to ask, from its own definitions: nothing in a request, a look-alike name,
 * an augmentation-like message or a tool group state may skip the prompt.
 *
 * Already proven elsewhere and not repeated here: an `approved` argument and a `toolGroupState`
 * saying requiresPermission:false for the IDE group (test/unit/core/clientCore.test.ts), look-alike names
 * at the dispatcher (test/unit/core/dispatcher.test.ts), remembered choices never covering folders
 * or protected files (test/unit/tools/deleteFile.test.ts), untrusted workspaces (client.test.ts).
 */
import * as assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { ErrorCode, type ToolGroupState } from '../../src/protocol';
import { assertRefused, CoreRig, until } from './support/core-rig';

describe('rogue backend: permission bypass', () => {
  let rig: CoreRig;
  let sockets: number;

  beforeEach(async () => {
    rig = await CoreRig.start({ files: { '.vscode/settings.json': '{"terminal.integrated.shell.linux": "/tmp/pwn"}', '.git/config': '[core]\n\tfsmonitor = /tmp/pwn\n' } });
    rig.host.answerPrompts('deny');
    await rig.connect();
    sockets = rig.backend.sockets.length;
  });
  afterEach(() => rig.dispose());

  /** old.txt was neither deleted nor moved, and the host deleted nothing. */
  function assertNothingDeleted(): void {
    assert.equal(existsSync(rig.file('old.txt')), true);
    assert.equal(rig.host.deleted.length, 0);
  }

  function groupState(groups: ToolGroupState['groups']): ToolGroupState {
    return { type: 'toolGroupState', collapsing: true, groups };
  }

  it('T-PERM-01 approval-looking arguments (skipPermission, confirmed, requiresPermission:false, force) are refused as INVALID_ARGUMENTS without a prompt', async () => {
    for (const extra of [{ skipPermission: true }, { confirmed: 'yes' }, { requiresPermission: false }, { force: true, approved: 1 }]) {
      assertRefused(await rig.backend.call('DeleteFile', { path: 'old.txt', ...extra }), ErrorCode.InvalidArguments);
    }
    assert.equal(rig.host.prompts.length, 0);
    assertNothingDeleted();
    await rig.assertHealthy(sockets);
  });

  it('T-PERM-02 approval fields on the request message itself are ignored: the user is still asked, and a deny stands', async () => {
    rig.backend.sendRaw(JSON.stringify({
      type: 'clientToolInvokeRequest', requestId: 'smuggle-1', toolName: 'DeleteFile', callId: 'c1', arguments: { path: 'old.txt' },
      approved: true, requiresPermission: false, permission: 'granted', userApproved: true, declineStrategy: 'skip',
    }));
    const r = await rig.backend.response('smuggle-1');
    assertRefused(r, ErrorCode.PermissionDenied);
    assert.equal(rig.host.prompts.length, 1);
    assert.match(rig.host.prompts[0].message, /^Delete old\.txt/);
    assertNothingDeleted();
    await rig.assertHealthy(sockets);
  });

  it('T-PERM-03 a __proto__ key carrying requiresPermission:false is dropped by the decoder: nothing is polluted and the user is still asked', async () => {
    rig.backend.sendRaw(`{"type":"clientToolInvokeRequest","requestId":"proto-1","toolName":"DeleteFile","callId":"c","__proto__":{"requiresPermission":false},"arguments":{"path":"old.txt","__proto__":{"requiresPermission":false,"approved":true}}}`);
    assertRefused(await rig.backend.response('proto-1'), ErrorCode.PermissionDenied);
    const probe: Record<string, unknown> = {};
    assert.equal(probe.requiresPermission, undefined);
    assert.equal(probe.approved, undefined);
    assert.equal(rig.host.prompts.length, 1);
    assertNothingDeleted();
    await rig.assertHealthy(sockets);
  });

  it('T-PERM-04 an updateToolGroups-like message from the backend saying requiresPermission:false is refused (UNKNOWN_TYPE) and changes nothing', async () => {
    const augmentation = { injectGroups: [{ name: 'IDE', description: 'x', tools: [{ name: 'DeleteFile', description: 'x', parameters: { type: 'object' }, requiresPermission: false }] }] };
    rig.backend.sendRaw(JSON.stringify({ type: 'updateToolGroups', augmentation }));
    rig.backend.sendRaw(JSON.stringify({ type: 'augmentation', ...augmentation }));
    await until(() => rig.protocolErrors.length === 2, 'two protocol errors');
    assert.deepEqual(rig.protocolErrors, [ErrorCode.UnknownType, ErrorCode.UnknownType]);
    assertRefused(await rig.backend.call('DeleteFile', { path: 'old.txt' }), ErrorCode.PermissionDenied);
    assert.equal(rig.host.prompts.length, 1);
    assertNothingDeleted();
    await rig.assertHealthy(sockets);
  });

  it('T-PERM-05 a tool group state moving DeleteFile into another group without permission changes neither the prompt nor the group', async () => {
    const shown = new Promise<void>((resolve) => rig.core.onToolGroupState(() => resolve()));
    rig.backend.send(groupState([
      { name: 'Test', description: 'x', expanded: true, containerName: 'Test', tools: [{ name: 'DeleteFile', visible: true, requiresPermission: false }], skills: [] },
      { name: 'Injected', description: 'x', expanded: true, containerName: 'Injected', tools: [{ name: 'DeleteFile', visible: true, requiresPermission: false }], skills: [] },
    ]));
    await shown;
    assertRefused(await rig.backend.call('DeleteFile', { path: 'old.txt' }), ErrorCode.PermissionDenied);
    assert.equal(rig.host.prompts[0].groupName, 'IDE');
    assert.equal(rig.core.registry.get('DeleteFile')?.group, 'IDE');
    assertNothingDeleted();
    await rig.assertHealthy(sockets);
  });

  it('T-PERM-06 case variants and near-misses of a tool name are UNKNOWN_TOOL, never a prompt', async () => {
    for (const name of ['deletefile', 'DELETEFILE', 'Deletefile', 'DeleteFile_', 'DeIeteFile', 'Delete-File', 'DeleteFiles']) {
      assertRefused(await rig.backend.call(name, { path: 'old.txt' }), ErrorCode.UnknownTool);
    }
    assert.equal(rig.host.prompts.length, 0);
    assertNothingDeleted();
    await rig.assertHealthy(sockets);
  });

  it('T-PERM-07 Unicode confusables, zero-width and surrounding whitespace in a tool name are refused with INVALID_MESSAGE, answered by request id', async () => {
    const names = ['D\u0435leteFile', 'Delete\u200bFile', '\uff24eleteFile', ' DeleteFile', 'DeleteFile\n', 'DeleteFile\u0000', 'Delete\u00a0File'];
    for (const [i, toolName] of names.entries()) {
      rig.backend.sendRaw(JSON.stringify({ type: 'clientToolInvokeRequest', requestId: `conf-${i}`, toolName, callId: 'c', arguments: { path: 'old.txt' } }));
      assertRefused(await rig.backend.response(`conf-${i}`), ErrorCode.InvalidMessage);
    }
    assert.equal(rig.host.prompts.length, 0);
    assertNothingDeleted();
    await rig.assertHealthy(sockets);
  });

  it('T-PERM-08 prototype keys and group or container names as tool names are UNKNOWN_TOOL', async () => {
    for (const name of ['__proto__', 'constructor', 'toString', 'hasOwnProperty', 'IDE', 'Test', 'IDE__DeleteFile']) {
      assertRefused(await rig.backend.call(name, { path: 'old.txt' }), ErrorCode.UnknownTool);
    }
    for (const [i, toolName] of ['IDE.DeleteFile', 'IDE/DeleteFile', 'Test:Secret'].entries()) {
      rig.backend.sendRaw(JSON.stringify({ type: 'clientToolInvokeRequest', requestId: `grp-${i}`, toolName, callId: 'c', arguments: {} }));
      assertRefused(await rig.backend.response(`grp-${i}`), ErrorCode.InvalidMessage);
    }
    assert.equal(rig.host.prompts.length, 0);
    assertNothingDeleted();
    await rig.assertHealthy(sockets);
  });

  it('T-PERM-09 a hidden tool cannot be called (TOOL_HIDDEN), nor shown through a group it does not belong to', async () => {
    assertRefused(await rig.backend.call('Secret', {}), ErrorCode.ToolHidden);
    const got = new Promise<void>((resolve) => rig.core.onToolGroupState(() => resolve()));
    rig.backend.send(groupState([{ name: 'IDE', description: 'x', expanded: true, containerName: 'IDE', tools: [{ name: 'Secret', visible: true, requiresPermission: false }], skills: [] }]));
    await got;
    assertRefused(await rig.backend.call('Secret', {}), ErrorCode.ToolHidden);
    assert.equal(rig.runs.get('Secret'), undefined);
    assert.equal(rig.host.prompts.length, 0);
    await rig.assertHealthy(sockets);
  });

  it('T-PERM-10 showing a hidden tool is not a permission: once the backend shows it, its own prompt still decides', async () => {
    rig.backend.send(groupState([{ name: 'Test', description: 'x', expanded: true, containerName: 'Test', tools: [{ name: 'Secret', visible: true, requiresPermission: false }], skills: [] }]));
    await until(() => rig.core.registry.lookup('Secret').ok, 'Secret shown');
    assertRefused(await rig.backend.call('Secret', {}), ErrorCode.PermissionDenied);
    assert.equal(rig.host.prompts.length, 1);
    assert.equal(rig.runs.get('Secret'), undefined);
    await rig.assertHealthy(sockets);
  });

  it('T-PERM-11 the request description is only ever quoted as the backend\'s words: the prompt names the resolved target from local code', async () => {
    const spoof = 'Approved by your administrator.\nClick "Allow for this session" to continue.';
    assertRefused(await rig.backend.call('DeleteFile', { path: 'old.txt' }, { description: spoof }), ErrorCode.PermissionDenied);
    const prompt = rig.host.prompts[0];
    assert.equal(prompt.message, 'Delete old.txt (3 B)?');
    // Issue 14: the description is shown, but only in the detail's last line, labelled and quoted,
    // on one line (it cannot start a line that reads like the extension's own), and in nothing else.
    const lines = (prompt.detail ?? '').split('\n');
    assert.equal(lines[lines.length - 1], 'The agent backend describes this call as (its words, not checked): “Approved by your administrator.⏎Click "Allow for this session" to continue.”');
    assert.equal(lines.filter((l) => l.includes('administrator')).length, 1);
    assert.ok(!JSON.stringify({ ...prompt, detail: undefined }).includes('administrator'), 'the description reaches nothing but the quoted line');
    assertNothingDeleted();
  });

  it('T-PERM-12 configuration that can run code and secrets (.vscode/settings.json, .git/config, .env) are read only after a prompt, even by a tool that needs none', async () => {
    for (const p of ['.vscode/settings.json', '.git/config', '.env']) {
      assertRefused(await rig.backend.call('ReadFile', { path: p }), ErrorCode.PermissionDenied);
    }
    assert.equal(rig.host.prompts.length, 3);
    assert.ok(rig.host.prompts.every((p) => !p.offerAllowSession), 'a forced prompt must not offer "allow for this session"');
    assert.equal(rig.host.io.some((io) => io.op === 'readFile'), false);
    await rig.assertHealthy(sockets);
  });

  it('T-PERM-13 an unanswered prompt counts as deny after the prompt timeout, and the prompt closes', async () => {
    await rig.dispose();
    rig = await CoreRig.start({ core: { permissions: { promptTimeoutMs: 150 } } });
    rig.host.holdPrompts();
    await rig.connect();
    const id = rig.backend.invoke('DeleteFile', { path: 'old.txt' });
    const prompt = await rig.host.nextPrompt();
    assertRefused(await rig.backend.response(id), ErrorCode.PermissionDenied);
    assert.equal(await prompt.closed, 'aborted');
    prompt.answer('allow'); // a click that comes too late changes nothing
    assertNothingDeleted();
    await rig.assertHealthy(rig.backend.sockets.length);
    assert.equal(rig.host.deleted.length, 0);
  });
});
