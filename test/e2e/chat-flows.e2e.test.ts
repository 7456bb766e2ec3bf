/**
 * The chat's main flows as a user sees them, in a real VS Code (code-server) driven by a real
 * Chromium: the extension under development with default settings, so it starts its bundled
 * backend, which answers with the offline demo model. One VS Code for all cases, on a copy of the
 * fixture workspace; the cases run in order and each starts from where the previous one left off.
 *
 * Screenshots of each state go to test-results/chat-flow-*.png.
 *
 * Run: node esbuild.mjs && npx mocha --no-config --require tsx/cjs --timeout 300000 test/e2e/chat-flows.e2e.test.ts
 */
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import type { Page } from 'playwright-core';
import { activeTab, backgroundColor, ChatDriver, modalDialog, quickOpen, runPaletteCommand, waitForCursor, waitUntil } from './support/chat-driver';

const ROOT = path.resolve(__dirname, '../..');

interface Harness {
  page: Page | null;
  logTail(lines?: number): string;
  stop(): Promise<void>;
}

describe('Chat flows in a real VS Code with the offline demo model', function () {
  this.timeout(300_000);
  let harness: Harness | undefined;
  let cleanupWorkspace: (() => void) | undefined;
  let workspace: string;
  let page: Page;
  let chat: ChatDriver;

  before(async function () {
    for (const built of ['dist/extension.js', 'dist/backend/cli.js', 'media/chat.js']) {
      assert.ok(fs.existsSync(path.join(ROOT, built)), `${built} is missing: run \`node esbuild.mjs\` first`);
    }
    // @ts-expect-error plain ESM script without types
    const { copyFixtureWorkspace } = (await import('../../scripts/test-workspace.mjs')) as {
      copyFixtureWorkspace(): { workspace: string; cleanup: () => void };
    };
    // @ts-expect-error plain ESM script without types
    const { startVSCode } = (await import('../../scripts/vscode-harness.mjs')) as {
      startVSCode(options: { workspace: string }): Promise<Harness>;
    };
    const copy = copyFixtureWorkspace();
    workspace = copy.workspace;
    cleanupWorkspace = copy.cleanup;
    harness = await startVSCode({ workspace });
    assert.ok(harness.page, 'the harness opened no page');
    page = harness.page;
    chat = new ChatDriver(page);
    try {
      await chat.open();
    } catch (e) {
      // Mocha runs no afterEach for a failed `before`: leave the evidence here. An extension that
      // failed to activate says why in the extension host log under harness.tempDir (keep it with
      // CLIENT_TOOLS_KEEP_TEMP=1).
      await chat.screenshot('failed-open').catch(() => undefined);
      throw new Error(`the chat did not connect: ${(e as Error).message}\ncode-server log:\n${harness.logTail(30)}`);
    }
    await chat.frame.getByText('Offline demo model').waitFor({ timeout: 10_000 });
    // The Tool Groups view below the chat starts collapsed (package.json), so the screenshots show
    // the whole conversation; a restored layout may have it open, so collapse it then.
    const expandedToolGroups = page.locator('.pane-header[aria-expanded="true"]', { hasText: 'Tool Groups' });
    if (await expandedToolGroups.count()) await expandedToolGroups.click();
    await page.locator('.pane-header[aria-expanded="false"]', { hasText: 'Tool Groups' }).waitFor({ timeout: 10_000 });
  });

  after(async () => {
    await harness?.stop();
    cleanupWorkspace?.();
  });

  afterEach(async function () {
    if (this.currentTest?.state !== 'failed' || !harness?.page) return;
    await chat.screenshot(`failed-${this.currentTest.title.replace(/\W+/g, '-').slice(0, 60)}`).catch(() => undefined);
    console.error(`code-server log:\n${harness.logTail(30)}`);
  });

  it('opens notes.md when asked in the chat: streamed answer, OpenFile card succeeded, notes.md the active tab', async () => {
    const turn = await chat.send('open notes.md', ['OpenFile']);

    assert.match(await chat.waitForCardStatus(turn.card('OpenFile'), 'succeeded'), /Succeeded/);
    assert.match(await turn.card('OpenFile').locator('.tool-args').innerText(), /notes\.md/);
    const answer = await chat.waitForAnswer(turn.answer());
    assert.match(answer, /I opened notes\.md in the editor\./);
    // The demo label is in the header once (issue 16), not under every answer.
    assert.doesNotMatch(answer, /offline demo model/i);
    await activeTab(page, 'notes.md').waitFor({ timeout: 10_000 });
    await chat.waitForIdle();
    await chat.screenshot('1-answer-succeeded');

    // The card opens on a click and shows what was sent and what came back.
    const card = turn.card('OpenFile');
    await card.locator('summary').click();
    const body = card.locator('.card-body');
    await body.waitFor({ state: 'visible', timeout: 10_000 });
    const shown = await body.innerText();
    assert.match(shown, /Arguments[\s\S]*"path": "notes\.md"/i);
    assert.match(shown, /Result[\s\S]*"language": "markdown"/i);
    // VS Code's own webview styles paint every <code>; a block must not get a stripe behind each line.
    assert.equal(await backgroundColor(body.locator('pre code').first()), 'rgba(0, 0, 0, 0)');
    await chat.screenshot('1b-card-opened');
  });

  it('answers "Ask About Selection" from the palette (the selection attached as a chip) with the text selected in the editor', async () => {
    await quickOpen(page, 'hello.txt');
    // Line 2 is "Second line."; Ctrl+Shift+Right selects its first word.
    await page.keyboard.press('Control+Home');
    await page.keyboard.press('ArrowDown');
    await waitForCursor(page, 'Ln 2, Col 1');
    await page.keyboard.press('Control+Shift+ArrowRight');
    await waitForCursor(page, 'Ln 2, Col 7 (6 selected)');

    const turn = await chat.beginTurn(['GetSelection']);
    await runPaletteCommand(page, 'Client Tools: Ask About Selection');
    // The selection is attached to the chat's message box as a chip, and the keyboard is there.
    await chat.frame.locator('.attachment-chip', { hasText: 'hello.txt:2' }).waitFor({ timeout: 10_000 });
    await page.keyboard.type('what did I select?');
    await page.keyboard.press('Enter');
    await chat.frame.locator('.attachment-chip').waitFor({ state: 'detached', timeout: 10_000 });

    await chat.frame.locator('.msg.user', { hasText: 'what did I select?' }).waitFor({ timeout: 10_000 });
    await chat.waitForCardStatus(turn.card('GetSelection'), 'succeeded');
    const answer = await chat.waitForAnswer(turn.answer());
    assert.match(answer, /You selected 6 characters in hello\.txt from line 2/);
    assert.match(answer, /Second/);
    await chat.waitForIdle();
    await chat.screenshot('2-selection-answer');
  });

  it('asks in the chat before deleting hello.txt: Deny keeps the file, Allow deletes it; no modal', async () => {
    const file = path.join(workspace, 'hello.txt');
    assert.ok(fs.existsSync(file));

    const denied = await chat.send('delete hello.txt', ['DeleteFile']);
    await chat.approval.waitFor({ state: 'visible', timeout: 30_000 });
    assert.match(await chat.approval.locator('.approval-message').innerText(), /^Delete hello\.txt \(\d+ B\)\?$/);
    assert.match(await chat.approval.innerText(), /DeleteFile asks for your permission/);
    assert.match(await chat.waitForCardStatus(denied.card('DeleteFile'), 'awaiting-permission'), /Awaiting permission/);
    assert.equal(await chat.runState.innerText(), 'Awaiting your input');
    // During a run the box stays open for steering, a prompt waiting too: Enter only queues (issue 30).
    assert.equal(await chat.input.isDisabled(), false, 'the chat input is disabled during the run while the permission prompt is open');
    // The prompt in the chat is the notice: no banner sending the user elsewhere, and no dialog.
    assert.equal(await chat.banner.isVisible(), false);
    assert.equal(await modalDialog(page).count(), 0, 'a modal dialog opened although prompts are in the chat');
    await chat.screenshot('3-awaiting-permission');

    await chat.approvalButton('Deny').click();
    await chat.approval.waitFor({ state: 'hidden', timeout: 10_000 });
    assert.match(await chat.waitForCardStatus(denied.card('DeleteFile'), 'denied'), /Denied/);
    assert.match(await chat.waitForAnswer(denied.answer()), /You declined, so hello\.txt was not deleted\./);
    await chat.waitForIdle();
    assert.equal(await chat.input.isDisabled(), false);
    assert.ok(fs.existsSync(file), 'hello.txt was deleted although the user clicked Deny');
    await chat.screenshot('4-denied');

    const allowed = await chat.send('delete hello.txt', ['DeleteFile']);
    await chat.approval.waitFor({ state: 'visible', timeout: 30_000 });
    assert.match(await chat.approval.locator('.approval-message').innerText(), /Delete hello\.txt/);
    await chat.approvalButton('Allow').click();
    await chat.approval.waitFor({ state: 'hidden', timeout: 10_000 });
    assert.match(await chat.waitForCardStatus(allowed.card('DeleteFile'), 'succeeded'), /Succeeded/);
    assert.match(await chat.waitForAnswer(allowed.answer()), /I deleted hello\.txt\./);
    await waitUntil(() => !fs.existsSync(file), { timeoutMs: 10_000, describe: () => 'hello.txt is still on disk after Allow' });
    await chat.waitForIdle();
    await chat.screenshot('5-allowed');
  });

  it('Stop ends a run that waits for the user: the card shows cancelled and the chat is usable again', async () => {
    // A ShowMessage question (with buttons) waits for the user's answer: a run that waits without a modal.
    const turn = await chat.send('ask me whether to continue', ['ShowMessage']);
    const toast = page.locator('.notification-toast', { has: page.locator('.notification-list-item-message', { hasText: /^Should I continue\?$/ }) });
    await toast.waitFor({ state: 'visible', timeout: 30_000 });
    await chat.waitForCardStatus(turn.card('ShowMessage'), 'running');
    const noticesBefore = await chat.notices().count();

    await chat.stopButton.click();
    assert.match(await chat.waitForCardStatus(turn.card('ShowMessage'), 'cancelled'), /Cancelled/);
    await chat.waitForIdle();
    assert.equal(await chat.notices().nth(noticesBefore).innerText(), 'Stopped.');
    assert.equal(await chat.input.isDisabled(), false);
    await chat.screenshot('6-cancelled');

    // VS Code's API cannot take a notification back; closing it now must not revive the run.
    await toast.hover();
    await toast.locator('.codicon-notifications-clear').click();
    await toast.waitFor({ state: 'hidden', timeout: 10_000 });
    const next = await chat.send('open notes.md', ['OpenFile']);
    await chat.waitForCardStatus(next.card('OpenFile'), 'succeeded');
    assert.match(await chat.waitForAnswer(next.answer()), /I opened notes\.md/);
    await chat.waitForIdle();
    assert.match(await turn.card('ShowMessage').innerText(), /Cancelled/);
  });

  it('Stop while the prompt waits in the chat cancels the call and closes the prompt; nothing is deleted', async () => {
    const file = path.join(workspace, 'notes.md');
    const turn = await chat.send('delete notes.md', ['DeleteFile', 'ReadFile']);
    await chat.approval.waitFor({ state: 'visible', timeout: 30_000 });
    assert.match(await chat.approval.locator('.approval-message').innerText(), /Delete notes\.md/);
    await chat.waitForCardStatus(turn.card('DeleteFile'), 'awaiting-permission');
    await chat.approvalButton('Allow').waitFor({ state: 'visible' });

    // Unlike the modal, nothing blocks the chat: the user clicks Stop itself.
    await chat.stopButton.click();
    assert.match(await chat.waitForCardStatus(turn.card('DeleteFile'), 'cancelled'), /Cancelled/);
    await chat.approval.waitFor({ state: 'hidden', timeout: 10_000 });
    await chat.waitForIdle();
    assert.equal(await chat.input.isDisabled(), false);
    assert.equal(await chat.approvalButton('Allow').count(), 0, 'the cancelled prompt left an Allow button');
    await chat.screenshot('7-cancelled-prompt-closed');

    // A round trip through the same extension host: by the time ReadFile answers, a deletion
    // the cancelled prompt had let through would have happened.
    const check = await chat.send('read notes.md', ['DeleteFile', 'ReadFile']);
    await chat.waitForCardStatus(check.card('ReadFile'), 'succeeded');
    assert.match(await chat.waitForAnswer(check.answer()), /notes\.md has \d+ lines/);
    await chat.waitForIdle();
    assert.ok(fs.existsSync(file), 'notes.md was deleted after the run was stopped');
    assert.equal(await check.card('DeleteFile').count(), 0, 'a new DeleteFile call started');
    assert.match(await turn.card('DeleteFile').innerText(), /Cancelled/);
  });
});
