/**
 * Backend text in VS Code's notifications renders no link, in a real VS Code (code-server 4.100.3)
 * driven by a real Chromium. VS Code turns `[label](command:…)` in a notification into an anchor
 * that runs the command when clicked; a backend chose the text of two notifications: the OpenDiff
 * review notification names the request's path, and the "disconnected" notification shows the
 * backend's handshake error. Both go through the UI door (src/core/uiText.ts, src/vscode/ui.ts):
 * the toast shows the text, with the link syntax visibly broken, and holds no anchor at all. The
 * permission dialog naming the same path is checked the same way, and ApplyEdit's dialog shows a
 * change at the size limit whole, unclipped.
 * Screenshots go to test-results/ui-text-*.png.
 *
 * Run alone: npm run build && npx mocha --no-config --require tsx/cjs --timeout 300000 test/e2e/ui-text.e2e.test.ts
 */
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import type { Locator, Page } from 'playwright-core';
import { describeWholeChange, MAX_PREVIEW_ROWS, previewRows } from '../../src/tools/support/editPreview';
import type { ScriptedBackend } from '../support/scripted-backend';
import { useScriptedVSCode } from './support/scripted-vscode';
import { MODAL_PROMPTS } from './support/chat-driver';
import { waitUntil } from './support/vscode';

/** A file name that is a notification link to a command if shown verbatim. */
const ROGUE_NAME = 'a[Accept](command:workbench.action.terminal.new).txt';
const ROGUE_REASON = 'Session expired. [Retry](command:workbench.action.terminal.new) or <command:workbench.action.terminal.new>';

describe('backend text in notifications renders no link (real VS Code)', function () {
  this.timeout(240_000);
  // The scripted backend calls without a chat run: background calls, which would otherwise ask first.
  const session = useScriptedVSCode({ name: 'ui-text', allowBackgroundCalls: true, settings: MODAL_PROMPTS, prepare: (ws) => fs.writeFileSync(path.join(ws, ROGUE_NAME), 'original\n') });
  let backend: ScriptedBackend;
  let page: Page;
  let workspace: string;
  let screenshot: (label: string) => Promise<Buffer>;

  const toast = (text: string): Locator => page.locator('.notifications-toasts .notification-toast', { hasText: text });

  /** Every anchor in the toast's message, with its href: VS Code renders notification links as <a> there (buttons are anchors too, outside it). */
  async function anchors(t: Locator): Promise<string[]> {
    return t.locator('.notification-list-item-message a').evaluateAll((as) => as.map((a) => `${a.textContent ?? ''} → ${a.getAttribute('href') ?? ''}`));
  }

  before(() => ({ backend, page, workspace, screenshot } = session()));

  it('the OpenDiff review notification names a path holding [Accept](command:…) as text, with no anchor', async () => {
    const call = backend.startCall('OpenDiff', { path: ROGUE_NAME, newContent: 'proposed\n' });
    const review = toast('The agent proposes changes to');
    // The review's own Reject (it was a progress notification's Cancel before issue 16).
    const cancel = review.getByRole('button', { name: 'Reject', exact: true });
    await cancel.waitFor({ state: 'visible', timeout: 60_000 });
    // Before the fix VS Code rendered "Accept" here as a link running the command ("aAccept.txt" on screen).
    assert.deepEqual(await anchors(review), [], 'the toast renders a link');
    // The whole name is there for the user to read, with the link syntax broken by a thin space
    // (read from the message element itself, so the anchor check above looked where VS Code puts links).
    const text = await review.locator('.notification-list-item-message').innerText();
    assert.ok(text.includes('a[Accept]\u2009(command\u2009:workbench.action.terminal.new).txt'), `the toast says ${JSON.stringify(text)}`);
    await screenshot('1-opendiff-review');

    await cancel.click();
    const answer = await call.response;
    assert.equal(answer.success, true, answer.errorMessage);
    assert.equal(fs.readFileSync(path.join(workspace, ROGUE_NAME), 'utf8'), 'original\n');
  });

  it('the permission dialog for DeleteFile names the same path as text, with no anchor; Deny deletes nothing', async () => {
    const call = backend.startCall('DeleteFile', { path: ROGUE_NAME });
    const dialog = page.locator('.monaco-dialog-box');
    const deny = dialog.getByRole('button', { name: 'Deny', exact: true });
    await deny.waitFor({ state: 'visible', timeout: 60_000 });
    const container = dialog.locator('.dialog-message-container');
    const text = await container.innerText();
    // A dialog renders plain text: the door leaves link syntax as sent there (verbatim), so what the
    // user approves reads exactly as the request named it; this proves no VS Code we run makes it a link.
    assert.ok(text.includes('a[Accept](command:workbench.action.terminal.new).txt'), `the dialog says ${JSON.stringify(text)}`);
    const links = await container.locator('a').evaluateAll((as) => as.map((a) => `${a.textContent ?? ''} → ${a.getAttribute('href') ?? ''}`));
    assert.deepEqual(links, [], 'the dialog renders a link');
    await screenshot('2-delete-dialog');
    await deny.click();
    const answer = await call.response;
    assert.equal(answer.errorCode, 'PERMISSION_DENIED');
    assert.equal(fs.existsSync(path.join(workspace, ROGUE_NAME)), true);
  });

  it('the ApplyEdit dialog shows a change at the size limit whole: every edit, complete, nothing clipped; Deny changes nothing', async () => {
    const hello = path.join(workspace, 'hello.txt');
    const before = fs.readFileSync(hello, 'utf8');
    // A change at the limit: ten short edits and one long one that wraps, 16 rows in all.
    const edits = [
      ...Array.from({ length: 10 }, (_, i) => ({ startLine: 1, startColumn: i + 1, endLine: 1, endColumn: i + 1, newText: `edit ${String(i + 1).padStart(2, '0')} ${'x'.repeat(10)}` })),
      { startLine: 2, startColumn: 1, endLine: 2, endColumn: 1, newText: `long ${'y'.repeat(255)}` },
    ];
    const preview = describeWholeChange(edits);
    assert.equal(previewRows(preview), MAX_PREVIEW_ROWS, 'the change is at the limit');
    const call = backend.startCall('ApplyEdit', { path: 'hello.txt', edits, save: true });
    const dialog = page.locator('.monaco-dialog-box');
    const deny = dialog.getByRole('button', { name: 'Deny', exact: true });
    await deny.waitFor({ state: 'visible', timeout: 60_000 });
    const container = dialog.locator('.dialog-message-container');
    const text = await container.innerText();
    for (const line of preview.split('\n')) assert.ok(text.includes(line), `the dialog lacks ${JSON.stringify(line)}`);
    // Nothing is cut off: the text fits its box, and the dialog with its buttons fits the window.
    const clipped = await container.evaluate((el) => el.scrollHeight > el.clientHeight + 1);
    assert.equal(clipped, false, 'the dialog clips its text');
    const box = await dialog.boundingBox();
    const viewport = page.viewportSize()!;
    assert.ok(box && box.y >= 0 && box.y + box.height <= viewport.height, `the dialog (${JSON.stringify(box)}) does not fit the window (${JSON.stringify(viewport)})`);
    console.log(`      ApplyEdit dialog at the limit: ${Math.round(box!.height)} px tall in a ${viewport.height} px window`);
    await screenshot('3-applyedit-dialog');
    await deny.click();
    assert.equal((await call.response).errorCode, 'PERMISSION_DENIED');
    assert.equal(fs.readFileSync(hello, 'utf8'), before);
  });

  it('the "disconnected" notification shows the backend\'s handshake error as text, with no anchor', async () => {
    // The backend turns rogue: it drops the connection and refuses the next hello with a FORBIDDEN
    // error whose text holds links (a refused hello is final, so the extension stops and says why).
    backend.refuseHellos({ type: 'error', code: 'FORBIDDEN', message: ROGUE_REASON });
    backend.dropClients();

    const disconnected = toast('disconnected from the agent backend');
    await disconnected.waitFor({ state: 'visible', timeout: 60_000 });
    await waitUntil('the toast to show its buttons', async () => (await disconnected.getByRole('button', { name: 'Retry', exact: true }).count()) > 0, 30_000);
    // Before the fix "Retry" in the message was a link running the command.
    assert.deepEqual(await anchors(disconnected), [], 'the toast renders a link');
    const text = await disconnected.locator('.notification-list-item-message').innerText();
    assert.ok(text.includes('Session expired. [Retry]\u2009(command\u2009:workbench.action.terminal.new) or <command\u2009:workbench.action.terminal.new>'), `the toast says ${JSON.stringify(text)}`);
    await screenshot('4-disconnected');
  });
});
