/**
 * OpenDiff as a user meets it, in a real VS Code (code-server) driven by a real Chromium: the
 * extension with default settings starts its bundled backend with the offline demo model, the user
 * asks in the chat for a change to hello.txt, VS Code's diff editor opens with the file on the left
 * and the proposal on the right, its breadcrumb naming the file, and a notification names the file and
 * says how to decide. Accepting (the ✓ in the diff editor's title bar) writes the proposal to disk;
 * rejecting (the ✗ there, or the notification's Cancel) leaves the file as it was. However the review
 * ends, its notification is gone with it. One VS Code for all cases, on a copy of the fixture
 * workspace; they run in order.
 *
 * Screenshots go to test-results/open-diff-*.png.
 *
 * Run alone: npm run build && npx mocha --no-config --require tsx/cjs --timeout 300000 test/e2e/open-diff.e2e.test.ts
 * (with --config test/e2e/.mocharc.json, mocha adds the file to the config's spec and runs every UI test).
 */
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import type { Locator, Page } from 'playwright-core';
import { waitUntil, type ChatDriver } from './support/chat-driver';
import { useDemoChatSession } from './support/demo-session';
/** What the fixture's hello.txt holds (test/fixtures/workspace/hello.txt). */
const ORIGINAL = 'Hello from the Client Tools fixture workspace.\nSecond line.\n';

describe('OpenDiff through the real diff editor, asked for in the chat (offline demo model)', function () {
  this.timeout(300_000);
  const session = useDemoChatSession('open-diff');
  let page: Page;
  let chat: ChatDriver;
  let helloFile: string;

  const screenshot = (name: string) => session.screenshot(name);
  const readHello = () => fs.readFileSync(helloFile, 'utf8');

  /** The diff editor showing a proposal for `fileName`: its tab is active and both sides are rendered. */
  const diffEditor = (): Locator => page.locator('.part.editor .monaco-diff-editor');
  const diffTab = (fileName: string): Locator =>
    page.locator('.tabs-container div.tab.active', { hasText: `${fileName} ↔ Proposed changes` });

  /** The review's notification, as a toast or in the notification center. */
  const reviewNotification = (): Locator => page.locator('.notification-list-item', { hasText: 'The agent proposes changes to hello.txt' });
  const titleBarButton = (name: 'Accept Proposed Changes' | 'Reject Proposed Changes'): Locator =>
    page.locator('.part.editor .editor-actions').getByRole('button', { name });

  /** The review's notification is on screen, whole, naming the file and how to decide. */
  async function waitForReviewNotification(): Promise<Locator> {
    const toast = page.locator('.notification-toast', { hasText: 'The agent proposes changes to hello.txt' });
    const cancel = toast.getByRole('button', { name: 'Cancel', exact: true });
    await cancel.waitFor({ state: 'visible', timeout: 30_000 });
    // A toast slides in from the bottom: wait until it has stopped moving with its button inside the window.
    await waitUntil(async () => {
      const before = await toast.boundingBox();
      await new Promise((r) => setTimeout(r, 150));
      const box = await cancel.boundingBox();
      const after = await toast.boundingBox();
      return box !== null && before !== null && after !== null && before.y === after.y && box.y + box.height <= page.viewportSize()!.height;
    }, { timeoutMs: 30_000, describe: async () => `the toast is at ${JSON.stringify(await toast.boundingBox())}, its Cancel button at ${JSON.stringify(await cancel.boundingBox())}` });
    assert.match(await toast.innerText(), /✓ Accept or ✗ Reject it in the diff editor's title bar or the palette; Cancel rejects\./);
    return toast;
  }

  /** Once the review has ended its notification is nowhere in the workbench, neither a toast nor in the center. */
  async function assertReviewNotificationGone(): Promise<void> {
    await waitUntil(async () => (await reviewNotification().count()) === 0, {
      timeoutMs: 10_000,
      describe: async () => `the review notification is still there: ${JSON.stringify(await reviewNotification().allInnerTexts())}`,
    });
  }

  /** The diff editor's breadcrumb names the file by its workspace path, not by the review's id. */
  async function assertBreadcrumbIsTheFile(): Promise<void> {
    const crumbs = page.locator('.part.editor .breadcrumbs-control .monaco-breadcrumb-item');
    await crumbs.first().waitFor({ timeout: 30_000 });
    const texts = (await crumbs.allInnerTexts()).map((t) => t.trim()).filter((t) => t !== '');
    assert.deepEqual(texts, ['hello.txt'], `the breadcrumb shows ${JSON.stringify(texts)}`);
  }

  /** Waits until the diff for hello.txt is open, with `current` on its left and `proposed` on its right, marked as a change. */
  async function waitForDiff(current: string, proposed: string): Promise<void> {
    await diffTab('hello.txt').waitFor({ timeout: 60_000 });
    const editor = diffEditor();
    await editor.waitFor({ state: 'visible', timeout: 30_000 });
    // Both sides rendered, and the diff computed: the changed lines carry VS Code's insert/delete decorations.
    await editor.locator('.editor.original .view-lines', { hasText: current }).waitFor({ timeout: 30_000 });
    await editor.locator('.editor.modified .view-lines', { hasText: proposed }).waitFor({ timeout: 30_000 });
    await editor.locator('.editor.modified .line-insert').first().waitFor({ timeout: 30_000 });
    await editor.locator('.editor.original .line-delete').first().waitFor({ timeout: 30_000 });
  }

  before(() => {
    page = session.page;
    chat = session.chat;
    helloFile = path.join(session.workspace, 'hello.txt');
    assert.equal(readHello(), ORIGINAL, 'the fixture hello.txt changed; update ORIGINAL');
  });

  it('accepted with the ✓ in the diff editor\'s title bar: hello.txt gets the new text, the chat says accepted, the notification is gone', async () => {
    const proposed = 'Hello from the accepted proposal.';
    const turn = await chat.send(`propose changing hello.txt to ${proposed}`, ['OpenDiff']);

    await waitForDiff('Hello from the Client Tools fixture workspace.', proposed);
    // The call waits for the user while the diff is open.
    await chat.waitForCardStatus(turn.card('OpenDiff'), 'running', 30_000);
    await waitForReviewNotification();
    await assertBreadcrumbIsTheFile();
    await screenshot('1-diff-open');
    assert.equal(readHello(), ORIGINAL, 'hello.txt changed before the user decided');

    await titleBarButton('Accept Proposed Changes').click({ timeout: 30_000 });

    await waitUntil(() => readHello() === `${proposed}\n`, {
      timeoutMs: 30_000,
      describe: () => `hello.txt on disk is ${JSON.stringify(readHello())}`,
    });
    assert.match(await chat.waitForCardStatus(turn.card('OpenDiff'), 'succeeded'), /Succeeded/);
    assert.match(await chat.waitForAnswer(turn.answer()), /You accepted the change to hello\.txt, and it is saved\./);
    await diffTab('hello.txt').waitFor({ state: 'detached', timeout: 30_000 });
    await assertReviewNotificationGone();
    await chat.waitForIdle();
    await screenshot('2-accepted');
  });

  it('rejected with the ✗ in the diff editor\'s title bar: hello.txt stays as it was, the chat says rejected, the notification is gone', async () => {
    const onDisk = readHello();
    const proposed = 'This proposal will be rejected.';
    const turn = await chat.send(`propose changing hello.txt to ${proposed}`, ['OpenDiff']);

    await waitForDiff(onDisk.trim(), proposed);
    await chat.waitForCardStatus(turn.card('OpenDiff'), 'running', 30_000);
    await waitForReviewNotification();
    await assertBreadcrumbIsTheFile();
    await screenshot('3-diff-open-again');
    await titleBarButton('Reject Proposed Changes').click({ timeout: 30_000 });

    assert.match(await chat.waitForCardStatus(turn.card('OpenDiff'), 'succeeded'), /Succeeded/);
    assert.match(await chat.waitForAnswer(turn.answer()), /You rejected the change to hello\.txt, so it is unchanged\./);
    await diffTab('hello.txt').waitFor({ state: 'detached', timeout: 30_000 });
    await chat.waitForIdle();
    assert.equal(readHello(), onDisk, 'hello.txt changed although the user rejected the proposal');
    await assertReviewNotificationGone();
    await screenshot('4-rejected');
  });

  it('rejected with the notification\'s Cancel: the diff closes, hello.txt stays as it was, the chat says rejected', async () => {
    const onDisk = readHello();
    const proposed = 'This proposal will be cancelled.';
    const turn = await chat.send(`propose changing hello.txt to ${proposed}`, ['OpenDiff']);

    await waitForDiff(onDisk.trim(), proposed);
    await chat.waitForCardStatus(turn.card('OpenDiff'), 'running', 30_000);
    const toast = await waitForReviewNotification();
    await toast.getByRole('button', { name: 'Cancel', exact: true }).click();

    assert.match(await chat.waitForCardStatus(turn.card('OpenDiff'), 'succeeded'), /Succeeded/);
    assert.match(await chat.waitForAnswer(turn.answer()), /You rejected the change to hello\.txt, so it is unchanged\./);
    await diffTab('hello.txt').waitFor({ state: 'detached', timeout: 30_000 });
    await assertReviewNotificationGone();
    await chat.waitForIdle();
    assert.equal(readHello(), onDisk, 'hello.txt changed although the user cancelled the review');
    await screenshot('5-cancelled');
  });
});
