/**
 * A rogue backend turns one "allow" into many: a remembered grant must cover what its button said
 * (this tool on this target, or a folder the prompt offered) and nothing else, on any thread and
 * after a new backend session; a workspace's own settings cannot widen it; and a backend that asks
 * again after every Deny cannot keep a modal up for ever.
 *
 * Real ClientCore, real loopback sockets, real temp folders and symlinks. Grant matching, the
 * settings reading and deny-all expiry with injected timers are unit-tested in
 * test/unit/core/consent/permissionGate.grants.test.ts, permissions.barrage.test.ts and
 * test/unit/vscode/settings/userSetting.test.ts.
 */
import * as assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import { symlink, writeFile } from 'node:fs/promises';
import * as path from 'node:path';
import type { Grant, PermissionStore } from '../../src/core';
import { grantKey } from '../../src/core/consent/grants';
import { ErrorCode } from '../../src/protocol';
import { readRememberScope, type InspectableConfiguration } from '../../src/vscode/settings/userSetting';
import { ScriptedBackend } from '../support/scripted-backend';
import { assertRefused, CoreRig, until } from './support/core-rig';

const FILES = {
  'docs/a.txt': 'aa',
  'docs/b.txt': 'bb',
  'docs/sub/c.txt': 'cc',
  'docs-evil/x.txt': 'xx',
  'top.txt': 'top',
};

/** The log lines the dispatcher wrote when a remembered grant let a call through. */
function grantLog(rig: CoreRig): string[] {
  return rig.logger.entries.filter((e) => e.message === 'permission granted' && e.fields?.via === 'remembered').map((e) => String(e.fields?.grant));
}

describe('rogue backend: remembered grants and prompt barrages', () => {
  let rig: CoreRig;
  afterEach(() => rig.dispose());

  describe('grants cover what their button said', () => {
    beforeEach(async () => {
      rig = await CoreRig.start({ files: FILES });
      await rig.connect();
    });

    it('T-GRANT-01 "allow" remembered for docs/a.txt does not let DeleteFile of docs/b.txt through, on another thread or after a new backend session', async () => {
      rig.host.answerPrompts('allowSession');
      const first = await rig.backend.call('DeleteFile', { path: 'docs/a.txt' }, { threadId: 'thread-1' });
      assert.equal(first.success, true, first.errorMessage);
      const label = 'Allow DeleteFile of docs/a.txt until this window closes';
      assert.deepEqual(rig.host.prompts[0].choices.map((c) => c.label), [label, 'Allow DeleteFile in docs/ until this window closes']);

      rig.host.answerPrompts('deny');
      assertRefused(await rig.backend.call('DeleteFile', { path: 'docs/b.txt' }, { threadId: 'thread-2' }), ErrorCode.PermissionDenied);
      assert.equal(rig.host.prompts.length, 2, 'b.txt asked the user');
      assert.match(rig.host.prompts[1].message, /^Delete docs\/b\.txt/);

      // A new backend session (the backend restarted and forgot the old one): the grant is per
      // window, as its button said, and still bound to a.txt.
      const session = rig.sessionId;
      const port = rig.backend.port;
      await rig.backend.close();
      rig.backend = await ScriptedBackend.start({ port });
      await rig.stateOf('connected', (s) => s.kind === 'connected' && s.sessionId !== session, 10_000);
      assertRefused(await rig.backend.call('DeleteFile', { path: 'docs/b.txt' }, { threadId: 'thread-3' }), ErrorCode.PermissionDenied);
      assert.equal(rig.host.prompts.length, 3);
      await writeFile(rig.file('docs/a.txt'), 'again');
      const again = await rig.backend.call('DeleteFile', { path: 'docs/a.txt' }, { threadId: 'thread-3' });
      assert.equal(again.success, true, again.errorMessage);
      assert.equal(rig.host.prompts.length, 3, 'the grant for docs/a.txt answered without a prompt');
      assert.deepEqual(grantLog(rig), [label], 'the log names the grant that let the call through');
      assert.equal(existsSync(rig.file('docs/b.txt')), true);
      assert.equal(rig.host.deleted.length, 2);
    });

    it('T-GRANT-02 the grant is matched against the target the extension resolved, not the request: a symlink to b.txt or a path that only starts like a.txt asks again', async () => {
      await symlink(rig.file('docs/b.txt'), rig.file('docs/a-link.txt'));
      rig.host.answerPrompts('allowSession');
      assert.equal((await rig.backend.call('DeleteFile', { path: 'docs/a.txt' })).success, true);
      await writeFile(rig.file('docs/a.txt'), 'back');

      rig.host.answerPrompts('deny');
      for (const p of ['docs/a-link.txt', 'docs/a.txt/../b.txt', 'docs/./b.txt', 'docs/a.txt.bak']) {
        if (p.endsWith('.bak')) await writeFile(rig.file(p), 'bak');
        assertRefused(await rig.backend.call('DeleteFile', { path: p }), ErrorCode.PermissionDenied);
      }
      assert.equal(rig.host.prompts.length, 5, 'each other target asked');
      // The same target however it is written is the same grant.
      const same = await rig.backend.call('DeleteFile', { path: './docs/sub/../a.txt' });
      assert.equal(same.success, true, same.errorMessage);
      assert.equal(rig.host.prompts.length, 5);
      assert.equal(existsSync(rig.file('docs/b.txt')), true);
    });

    it('T-GRANT-03 "Allow DeleteFile in docs/" covers files below docs/ only: not docs-evil/, not the workspace root, and a top-level file is never offered a folder grant', async () => {
      rig.host.answerPrompts('allowFolder');
      assert.equal((await rig.backend.call('DeleteFile', { path: 'docs/a.txt' })).success, true);
      assert.equal((await rig.backend.call('DeleteFile', { path: 'docs/sub/c.txt' })).success, true);
      assert.equal(rig.host.prompts.length, 1);

      rig.host.answerPrompts('deny');
      assertRefused(await rig.backend.call('DeleteFile', { path: 'docs-evil/x.txt' }), ErrorCode.PermissionDenied);
      assertRefused(await rig.backend.call('DeleteFile', { path: 'top.txt' }), ErrorCode.PermissionDenied);
      assert.equal(rig.host.prompts.length, 3);
      assert.deepEqual(rig.host.prompts[2].choices.map((c) => c.answer), ['allowSession'], 'no folder grant for the workspace folder itself');
      // A folder delete is forced to ask, even inside the granted folder.
      assertRefused(await rig.backend.call('DeleteFile', { path: 'docs/sub', recursive: true }), ErrorCode.PermissionDenied);
      assert.deepEqual(rig.host.prompts[3].choices, []);
      assert.equal(existsSync(rig.file('docs-evil/x.txt')), true);
      assert.equal(existsSync(rig.file('top.txt')), true);
    });
  });

  describe('settings', () => {
    it('T-GRANT-04 a workspace .vscode/settings.json saying rememberScope "workspace" cannot widen a grant: the button says "until this window closes" and nothing is stored', async () => {
      const stored: Grant[] = [];
      const store: PermissionStore = {
        list: () => stored,
        add: (g) => void stored.push(g),
        remove: (key) => void stored.splice(0, stored.length, ...stored.filter((g) => grantKey(g) !== key)),
        clear: () => void stored.splice(0),
      };
      rig = await CoreRig.start({
        files: { ...FILES, '.vscode/settings.json': '{ "clientTools.permissions.rememberScope": "workspace" }' },
        core: { permissions: { store } },
      });
      const pkg = JSON.parse(readFileSync(path.join(__dirname, '../../package.json'), 'utf8')) as {
        contributes: { configuration: { properties: Record<string, { scope?: string; default?: unknown }> } };
      };
      const declared = (key: string) => pkg.contributes.configuration.properties[`clientTools.${key}`];
      assert.equal(declared('permissions.rememberScope').scope, 'application', 'VS Code itself ignores workspace values of application settings');

      // VS Code's layers as it builds them: the default, no user value, the workspace file's value.
      const workspace = JSON.parse(readFileSync(rig.file('.vscode/settings.json'), 'utf8')) as Record<string, unknown>;
      const config: InspectableConfiguration & { get(key: string): unknown } = {
        inspect: <T>(key: string) => ({ defaultValue: declared(key)?.default as T, workspaceValue: workspace[`clientTools.${key}`] as T }),
        get: (key: string) => workspace[`clientTools.${key}`] ?? declared(key)?.default,
      };
      assert.equal(config.get('permissions.rememberScope'), 'workspace', 'a plain get would take the workspace value');
      // What the extension does at start and on every settings change (src/vscode/context.ts).
      rig.core.permissions.setRememberScope(readRememberScope(config));

      await rig.connect();
      rig.host.answerPrompts('allowSession');
      assert.equal((await rig.backend.call('DeleteFile', { path: 'docs/a.txt' })).success, true);
      assert.deepEqual(rig.host.prompts[0].choices.map((c) => c.label), [
        'Allow DeleteFile of docs/a.txt until this window closes',
        'Allow DeleteFile in docs/ until this window closes',
      ]);
      assert.deepEqual(stored, [], 'nothing was written to the workspace store');
      assert.deepEqual(rig.core.permissions.remembered().map((g) => g.scope), ['session']);
    });
  });

  describe('prompt barrage', () => {
    beforeEach(async () => {
      rig = await CoreRig.start({ files: FILES });
      await rig.connect();
    });

    it('T-GRANT-05 300 prompts re-sent after each Deny stop after 20: the rest are refused at once with PROMPT_RATE_LIMITED and nothing is shown or deleted', async () => {
      rig.host.answerPrompts('deny');
      const codes: string[] = [];
      for (let i = 0; i < 300; i++) {
        const r = await rig.backend.call('DeleteFile', { path: 'docs/a.txt' });
        codes.push(r.errorCode ?? 'ok');
      }
      assert.equal(rig.host.prompts.length, 20, 'prompts shown');
      assert.deepEqual(codes.slice(0, 20), Array(20).fill(ErrorCode.PermissionDenied));
      assert.deepEqual(codes.slice(20), Array(280).fill(ErrorCode.PromptRateLimited));
      const refusal = await rig.backend.call('DeleteFile', { path: 'docs/b.txt' });
      assertRefused(refusal, ErrorCode.PromptRateLimited);
      assert.match(refusal.errorMessage ?? '', /more than 20 permission prompts in a minute/);
      // From the fourth prompt on, the user was offered the way out.
      assert.deepEqual(rig.host.prompts[2].choices.map((c) => c.answer), ['allowSession', 'allowFolder']);
      assert.deepEqual(rig.host.prompts[3].choices.map((c) => c.label).slice(2), ['Deny All from This Backend for 10 Minutes', 'Disconnect']);
      assert.equal(rig.host.deleted.length, 0);
      assert.equal(rig.core.state.kind, 'connected', 'the connection and other tools still work');
      assert.equal((await rig.backend.call('Echo', { n: 1 })).success, true);
    });

    it('T-GRANT-06 "Deny All from This Backend" refuses every later call that needs permission without a prompt, remembered grants included, until Forget all', async () => {
      rig.host.answerPrompts('allowSession');
      assert.equal((await rig.backend.call('DeleteFile', { path: 'docs/sub/c.txt' })).success, true);
      rig.host.answerPrompts('deny');
      for (let i = 0; i < 3; i++) assertRefused(await rig.backend.call('DeleteFile', { path: 'docs/a.txt' }), ErrorCode.PermissionDenied);
      rig.host.answerPrompts('denyAll');
      assertRefused(await rig.backend.call('DeleteFile', { path: 'docs/a.txt' }), ErrorCode.PermissionDenied);
      assert.equal(rig.host.prompts.length, 5);

      await writeFile(rig.file('docs/sub/c.txt'), 'again');
      rig.host.answerPrompts('allow');
      for (const p of ['docs/b.txt', 'docs/sub/c.txt', 'top.txt']) {
        const r = await rig.backend.call('DeleteFile', { path: p });
        assertRefused(r, ErrorCode.PromptRateLimited);
        assert.match(r.errorMessage ?? '', /denies every permission request from this backend for 10 more minutes/);
      }
      assert.equal(rig.host.prompts.length, 5, 'nothing more was shown');
      assert.equal(rig.host.deleted.length, 1);

      await rig.core.permissions.forget();
      assert.equal((await rig.backend.call('DeleteFile', { path: 'docs/b.txt' })).success, true);
      assert.equal(rig.host.prompts.length, 6);
    });

    it('T-GRANT-07 "Disconnect" on a prompt answers the call PERMISSION_DENIED, then closes the connection and does not reconnect', async () => {
      rig.host.answerPrompts('deny');
      for (let i = 0; i < 3; i++) assertRefused(await rig.backend.call('DeleteFile', { path: 'docs/a.txt' }), ErrorCode.PermissionDenied);
      rig.host.answerPrompts('disconnect');
      const sockets = rig.backend.sockets.length;
      assertRefused(await rig.backend.call('DeleteFile', { path: 'docs/a.txt' }), ErrorCode.PermissionDenied);
      assert.deepEqual(rig.host.prompts[3].choices.map((c) => c.answer), ['allowSession', 'allowFolder', 'denyAll', 'disconnect']);
      await until(() => rig.core.state.kind !== 'connected', 'the client disconnected');
      await new Promise((r) => setTimeout(r, 300));
      assert.notEqual(rig.core.state.kind, 'connected');
      assert.equal(rig.backend.sockets.length, sockets, 'no reconnect');
      assert.equal(existsSync(rig.file('docs/a.txt')), true);
    });
  });
});
