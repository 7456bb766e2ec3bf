/**
 * Consent bound to the object, as a user meets it in a real VS Code (code-server) driven by a real
 * Chromium, with this test process playing the backend: the permission modal for DeleteFile names
 * a file inside the workspace; while it is open, the file (or the folder holding it) is swapped
 * for a symbolic link to a file outside; the user clicks Allow. Nothing outside may be deleted:
 * the backend gets TARGET_CHANGED and the user sees a warning that names the file. The same for
 * an OpenDiff review accepted from the palette after the reviewed file was swapped.
 *
 * Screenshots go to test-results/bound-consent-*.png.
 * Run alone: npm run build && npx mocha --config test/e2e/.mocharc.json test/e2e/bound-consent.e2e.test.ts
 */
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import type { Locator, Page } from 'playwright-core';
import type { ClientToolInvokeResponse } from '../../src/protocol';
import { MODAL_PROMPTS, modalDialog } from './support/chat-driver';
import type { ScriptedBackend } from '../support/scripted-backend';
import { useScriptedVSCode } from './support/scripted-vscode';

const OUTSIDE_TEXT = 'outside the workspace: not for the agent\n';

describe('consent bound to the object in a real VS Code: swaps while the user decides', function () {
  this.timeout(180_000);
  let backend: ScriptedBackend;
  let page: Page;
  let workspace: string;
  let outside: string;
  let screenshot: (label: string) => Promise<Buffer>;
  // The scripted backend calls without a chat run: background calls, which would otherwise ask first.
  const session = useScriptedVSCode({
    name: 'bound-consent',
    allowBackgroundCalls: true,
    settings: MODAL_PROMPTS,
    prepare: (ws) => {
      // Next to the workspace folder, where a redirected delete or write would land.
      outside = path.join(ws, '..', 'outside');
      fs.mkdirSync(outside, { recursive: true });
      fs.mkdirSync(path.join(ws, 'swap'), { recursive: true });
    },
  });

  const dialog = (): Locator => modalDialog(page);
  const toast = (text: string): Locator => page.locator('.notifications-toasts .notification-toast', { hasText: text });
  const file = (rel: string) => path.join(workspace, rel);

  before(() => ({ backend, page, workspace, screenshot } = session()));

  beforeEach(() => {
    fs.rmSync(file('swap'), { recursive: true, force: true });
    fs.rmSync(file('swap.moved-away'), { recursive: true, force: true });
    fs.mkdirSync(file('swap'), { recursive: true });
    fs.writeFileSync(file('swap/victim.txt'), 'delete me\n');
    fs.writeFileSync(path.join(outside, 'victim.txt'), OUTSIDE_TEXT);
  });

  after(() => {
    if (outside) fs.rmSync(outside, { recursive: true, force: true });
  });

  /** Starts DeleteFile on swap/victim.txt, waits for its modal, runs `swap`, clicks Allow; returns the answer. */
  async function allowDeleteAfter(swap: () => void): Promise<ClientToolInvokeResponse> {
    const call = backend.startCall('DeleteFile', { path: 'swap/victim.txt' });
    await backend.waitForProgress(call.requestId, 'awaiting-permission', 20_000);
    await dialog().waitFor({ timeout: 20_000 });
    assert.match((await dialog().locator('.dialog-message-text').textContent()) ?? '', /^Delete swap\/victim\.txt \(\d+ B\)\?$/);
    swap();
    await dialog().getByRole('button', { name: 'Allow', exact: true }).click();
    const response = await call.response;
    await dialog().waitFor({ state: 'hidden', timeout: 10_000 });
    return response;
  }

  /** The warning the user gets names what was not done and the file, and carries no link. */
  async function assertWarned(action: 'delete' | 'write'): Promise<void> {
    const shown = toast(`did not ${action} swap/victim.txt`).last();
    await shown.waitFor({ timeout: 10_000 });
    assert.match((await shown.locator('.notification-list-item-message').textContent()) ?? '', /changed after you approved/);
    assert.equal(await shown.locator('a[href]').count(), 0);
  }

  it('DeleteFile: the file swapped for a link out while the modal is open; Allow deletes nothing outside and answers TARGET_CHANGED', async () => {
    const response = await allowDeleteAfter(() => {
      fs.renameSync(file('swap/victim.txt'), file('swap/victim.txt.moved-away'));
      fs.symlinkSync(path.join(outside, 'victim.txt'), file('swap/victim.txt'));
    });
    assert.equal(response.success, false, 'the delete went ahead on the swapped file');
    assert.equal(response.errorCode, 'TARGET_CHANGED', response.errorMessage);
    assert.equal(fs.readFileSync(path.join(outside, 'victim.txt'), 'utf8'), OUTSIDE_TEXT);
    assert.equal(fs.lstatSync(file('swap/victim.txt')).isSymbolicLink(), true, 'the link was deleted');
    await assertWarned('delete');
    await screenshot('delete-file-swapped');
  });

  it('DeleteFile: the folder holding it swapped for a link out while the modal is open; Allow deletes nothing outside', async () => {
    const response = await allowDeleteAfter(() => {
      fs.renameSync(file('swap'), file('swap.moved-away'));
      fs.symlinkSync(outside, file('swap'));
    });
    assert.equal(response.success, false, 'the delete went ahead through the swapped folder');
    assert.equal(response.errorCode, 'TARGET_CHANGED', response.errorMessage);
    assert.equal(fs.readFileSync(path.join(outside, 'victim.txt'), 'utf8'), OUTSIDE_TEXT, 'the outside file was deleted');
    assert.equal(fs.readFileSync(file('swap.moved-away/victim.txt'), 'utf8'), 'delete me\n');
    await assertWarned('delete');
    fs.unlinkSync(file('swap'));
  });

  it('OpenDiff: the reviewed file swapped for a link out while the review is open; ✓ Accept in the diff title bar writes nothing outside', async () => {
    const call = backend.startCall('OpenDiff', { path: 'swap/victim.txt', newContent: 'written by the agent\n' });
    await page.locator('.editor-instance .monaco-diff-editor').first().waitFor({ timeout: 20_000 });
    fs.renameSync(file('swap/victim.txt'), file('swap/victim.txt.moved-away'));
    fs.symlinkSync(path.join(outside, 'victim.txt'), file('swap/victim.txt'));
    await page.locator('.part.editor .editor-actions').getByRole('button', { name: 'Accept Proposed Changes' }).click({ timeout: 30_000 });
    const response = await call.response;
    assert.equal(response.success, false, 'the accepted change was written through the link');
    assert.equal(response.errorCode, 'TARGET_CHANGED', response.errorMessage);
    assert.equal(fs.readFileSync(path.join(outside, 'victim.txt'), 'utf8'), OUTSIDE_TEXT);
    await assertWarned('write');
    await screenshot('open-diff-swapped');
  });
});
