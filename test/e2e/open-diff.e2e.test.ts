/**
 * OpenDiff as a user meets it, in a real VS Code (code-server) driven by a real Chromium: the
 * extension with default settings starts its bundled backend with the offline demo model, the user
 * asks in the chat for a change to hello.txt, VS Code's diff editor opens with the file on the left
 * and the proposal on the right, its breadcrumb naming the file; a notification names the file with
 * labelled Accept and Reject, the diff editor's title bar has them as words (not bare icons), and the
 * call's card in the chat lists the hunks with Keep/Reject for each, a reason field, Accept and Reject.
 * The card ends as "Accepted", "Partly accepted" or "Rejected" (never a green "Succeeded" for a
 * rejection), and the model's result names the hunks kept and the user's reason. A new file opens
 * as a new file (a plain editor), not as a diff against an empty line. One VS Code for all cases,
 * on a copy of the fixture workspace; they run in order.
 *
 * Screenshots go to test-results/open-diff-*.png (the chat alone: open-diff-*.chat.png).
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

  const titleBarButton = (name: 'Accept Proposed Changes' | 'Reject Proposed Changes'): Locator =>
    page.locator('.part.editor .editor-actions').getByRole('button', { name });

  /** The review's toast, on screen, whole, naming the file, with labelled Accept and Reject and no Cancel. */
  async function waitForReviewNotification(text: string): Promise<Locator> {
    const toast = page.locator('.notification-toast', { hasText: text });
    const reject = toast.getByRole('button', { name: 'Reject', exact: true });
    await reject.waitFor({ state: 'visible', timeout: 30_000 });
    // A toast slides in from the bottom: wait until it has stopped moving with its button inside the window.
    await waitUntil(async () => {
      const before = await toast.boundingBox();
      await new Promise((r) => setTimeout(r, 150));
      const box = await reject.boundingBox();
      const after = await toast.boundingBox();
      return box !== null && before !== null && after !== null && before.y === after.y && box.y + box.height <= page.viewportSize()!.height;
    }, { timeoutMs: 30_000, describe: async () => `the toast is at ${JSON.stringify(await toast.boundingBox())}, its Reject button at ${JSON.stringify(await reject.boundingBox())}` });
    await toast.getByRole('button', { name: 'Accept', exact: true }).waitFor({ state: 'visible', timeout: 5_000 });
    assert.equal(await toast.getByRole('button', { name: 'Cancel', exact: true }).count(), 0, 'the review notification offers Cancel');
    assert.match(await toast.innerText(), /Accept or Reject it here, in the editor's title bar, or in the chat(, where you can also keep or reject each hunk)?\./);
    return toast;
  }

  /** The review part of a card in the chat. */
  const reviewOf = (card: Locator): Locator => card.locator('section.review');
  /** The card's status label (the summary line's right end). */
  const statusLabel = async (card: Locator): Promise<string> => (await card.locator('.tool-status').innerText()).trim();

  async function waitForLabel(card: Locator, label: string): Promise<void> {
    await waitUntil(async () => (await statusLabel(card)) === label, {
      timeoutMs: 30_000,
      describe: async () => `the card says ${JSON.stringify(await statusLabel(card))}, not ${JSON.stringify(label)}: ${await card.innerText()}`,
    });
  }

  /** The diff editor's breadcrumb names the file by its workspace path, not by the review's id. */
  async function assertBreadcrumbIsTheFile(): Promise<void> {
    const crumbs = page.locator('.part.editor .breadcrumbs-control .monaco-breadcrumb-item');
    await crumbs.first().waitFor({ timeout: 30_000 });
    const texts = (await crumbs.allInnerTexts()).map((t) => t.trim()).filter((t) => t !== '');
    assert.deepEqual(texts, ['hello.txt'], `the breadcrumb shows ${JSON.stringify(texts)}`);
  }

  /** Waits until the diff for hello.txt is open, with `current` on its left and `proposed` on its right, marked as a change (with deleted lines unless told). */
  async function waitForDiff(current: string, proposed: string, { deletes = true } = {}): Promise<void> {
    await diffTab('hello.txt').waitFor({ timeout: 60_000 });
    const editor = diffEditor();
    await editor.waitFor({ state: 'visible', timeout: 30_000 });
    // Both sides rendered, and the diff computed: the changed lines carry VS Code's insert/delete decorations.
    await editor.locator('.editor.original .view-lines', { hasText: current }).waitFor({ timeout: 30_000 });
    await editor.locator('.editor.modified .view-lines', { hasText: proposed }).waitFor({ timeout: 30_000 });
    await editor.locator('.editor.modified .line-insert').first().waitFor({ timeout: 30_000 });
    if (deletes) await editor.locator('.editor.original .line-delete').first().waitFor({ timeout: 30_000 });
  }

  before(() => {
    page = session.page;
    chat = session.chat;
    helloFile = path.join(session.workspace, 'hello.txt');
    assert.equal(readHello(), ORIGINAL, 'the fixture hello.txt changed; update ORIGINAL');
  });

  it('accepted with the labelled Accept in the diff editor\'s title bar: hello.txt gets the new text, the card says Accepted', async () => {
    const proposed = 'Hello from the accepted proposal.';
    const turn = await chat.send(`propose changing hello.txt to ${proposed}`, ['OpenDiff']);

    await waitForDiff('Hello from the Client Tools fixture workspace.', proposed);
    // The call waits for the user while the diff is open, and its card says so.
    const card = turn.card('OpenDiff');
    await chat.waitForCardStatus(card, 'running', 30_000);
    await waitForLabel(card, 'Awaiting your review');
    await waitForReviewNotification('The agent proposes changes to hello.txt (1 hunk).');
    await assertBreadcrumbIsTheFile();
    // Words, not bare ✓/✗ icons.
    assert.equal((await titleBarButton('Accept Proposed Changes').innerText()).trim(), 'Accept Proposed Changes');
    assert.equal((await titleBarButton('Reject Proposed Changes').innerText()).trim(), 'Reject Proposed Changes');
    await screenshot('1-diff-open');
    await chat.screenshot('open-diff-1-card-open');
    assert.equal(readHello(), ORIGINAL, 'hello.txt changed before the user decided');

    await titleBarButton('Accept Proposed Changes').click({ timeout: 30_000 });

    await waitUntil(() => readHello() === `${proposed}\n`, {
      timeoutMs: 30_000,
      describe: () => `hello.txt on disk is ${JSON.stringify(readHello())}`,
    });
    await chat.waitForCardStatus(card, 'succeeded');
    await waitForLabel(card, 'Accepted');
    assert.equal(await reviewOf(card).count(), 0, 'the ended review still offers its choices');
    assert.match(await chat.waitForAnswer(turn.answer()), /You accepted the change to hello\.txt, and it is saved\./);
    await diffTab('hello.txt').waitFor({ state: 'detached', timeout: 30_000 });
    await chat.waitForIdle();
    await screenshot('2-accepted');
  });

  it('rejected with the notification\'s Reject: the diff closes, hello.txt stays as it was, the card says Rejected (not Succeeded)', async () => {
    const onDisk = readHello();
    const proposed = 'This proposal will be rejected.';
    const turn = await chat.send(`propose changing hello.txt to ${proposed}`, ['OpenDiff']);

    await waitForDiff(onDisk.trim(), proposed);
    const card = turn.card('OpenDiff');
    await waitForLabel(card, 'Awaiting your review');
    const toast = await waitForReviewNotification('The agent proposes changes to hello.txt (1 hunk).');
    await screenshot('3-notification');
    await toast.getByRole('button', { name: 'Reject', exact: true }).click();

    await chat.waitForCardStatus(card, 'succeeded');
    await waitForLabel(card, 'Rejected');
    assert.ok((await card.getAttribute('class'))?.split(/\s+/).includes('review-rejected'), 'the rejected card is not marked as rejected');
    assert.match(await chat.waitForAnswer(turn.answer()), /You rejected the change to hello\.txt, so it is unchanged\./);
    await diffTab('hello.txt').waitFor({ state: 'detached', timeout: 30_000 });
    await chat.waitForIdle();
    assert.equal(readHello(), onDisk, 'hello.txt changed although the user rejected the proposal');
    await toast.waitFor({ state: 'detached', timeout: 10_000 });
    await chat.screenshot('open-diff-4-rejected');
  });

  it('per hunk in the chat: one hunk rejected, the other kept, with a reason; the file gets the kept hunk and the result names it', async () => {
    const onDisk = readHello();
    const middle = onDisk.trim();
    const turn = await chat.send(`propose changing hello.txt to First added line.\n${middle}\nLast added line.`, ['OpenDiff']);

    // Two insertions, nothing deleted.
    await waitForDiff(middle, 'Last added line.', { deletes: false });
    const card = turn.card('OpenDiff');
    const review = reviewOf(card);
    await review.waitFor({ timeout: 30_000 });
    assert.equal(await review.locator('li.hunk').count(), 2, await review.innerText());
    assert.match(await review.locator('.review-title').innerText(), /Proposed changes to hello\.txt: 2 hunks, 2 kept\./);
    assert.match(await review.locator('li.hunk').nth(0).innerText(), /\+ First added line\./);
    await screenshot('5-two-hunks');
    await chat.screenshot('open-diff-5-two-hunks');

    await review.getByRole('button', { name: 'Reject hunk 1', exact: true }).click();
    // The card and the diff editor both show the hunk taken back.
    await review.locator('li.hunk-rejected').waitFor({ timeout: 30_000 });
    await review.getByRole('button', { name: 'Keep hunk 1', exact: true }).waitFor({ timeout: 30_000 });
    await waitUntil(async () => !(await diffEditor().locator('.editor.modified .view-lines').innerText()).includes('First added line.'), {
      timeoutMs: 30_000,
      describe: async () => `the proposed side still shows hunk 1: ${await diffEditor().locator('.editor.modified .view-lines').innerText()}`,
    });
    await review.locator('input.review-reason').fill('keep the greeting as the first line');
    await screenshot('6-hunk-rejected');
    await chat.screenshot('open-diff-6-hunk-rejected');
    await review.getByRole('button', { name: 'Accept', exact: true }).click();

    await waitUntil(() => readHello() === `${middle}\nLast added line.\n`, {
      timeoutMs: 30_000,
      describe: () => `hello.txt on disk is ${JSON.stringify(readHello())}`,
    });
    await chat.waitForCardStatus(card, 'succeeded');
    await waitForLabel(card, 'Partly accepted');
    // The decided card shows the kept change as a diff (issue 29), not the result's JSON.
    const shown = await card.innerText();
    assert.match(shown, /Changed hello\.txt: kept 1 of 2 hunks/);
    assert.match(shown, /Hunk 2\s+\+ Last added line\./);
    assert.doesNotMatch(shown, /"decision"/);
    assert.match(await chat.waitForAnswer(turn.answer()), /You accepted part of the change to hello\.txt \(kept hunks: 2; rejected: 1\), and it is saved\./);
    await diffTab('hello.txt').waitFor({ state: 'detached', timeout: 30_000 });
    await chat.waitForIdle();
    await chat.screenshot('open-diff-7-partly-accepted');
  });

  it('rejected on the card with a reason: nothing written, the reason reaches the model\'s result', async () => {
    const onDisk = readHello();
    const turn = await chat.send('propose changing hello.txt to Not this one.', ['OpenDiff']);
    await waitForDiff(onDisk.split('\n')[0], 'Not this one.');
    const card = turn.card('OpenDiff');
    const review = reviewOf(card);
    await review.waitFor({ timeout: 30_000 });
    await review.locator('input.review-reason').fill('wrong greeting');
    await review.getByRole('button', { name: 'Reject', exact: true }).click();

    await waitForLabel(card, 'Rejected');
    assert.match(await card.innerText(), /"reason": "wrong greeting"/);
    await diffTab('hello.txt').waitFor({ state: 'detached', timeout: 30_000 });
    await chat.waitForIdle();
    assert.equal(readHello(), onDisk, 'hello.txt changed although the user rejected the proposal on the card');
  });

  it('a new file opens as a new file, not a diff against an empty line; Accept on the card creates it', async () => {
    const newFile = path.join(session.workspace, 'brand-new.txt');
    assert.equal(fs.existsSync(newFile), false);
    const turn = await chat.send('propose changing brand-new.txt to Fresh content.', ['OpenDiff']);

    const tab = page.locator('.tabs-container div.tab.active', { hasText: 'brand-new.txt' });
    await tab.waitFor({ timeout: 60_000 });
    await page.locator('.part.editor .editor-container .view-lines', { hasText: 'Fresh content.' }).waitFor({ timeout: 30_000 });
    assert.equal(await diffEditor().count(), 0, 'the new file opened as a diff');
    const card = turn.card('OpenDiff');
    const review = reviewOf(card);
    await review.waitFor({ timeout: 30_000 });
    assert.match(await review.locator('.review-title').innerText(), /New file brand-new\.txt: it is created only if you accept\./);
    await waitForReviewNotification('The agent proposes a new file brand-new.txt.');
    await screenshot('8-new-file');
    await chat.screenshot('open-diff-8-new-file');
    await review.getByRole('button', { name: 'Accept (create the file)', exact: true }).click();

    await waitUntil(() => fs.existsSync(newFile) && fs.readFileSync(newFile, 'utf8') === 'Fresh content.\n', {
      timeoutMs: 30_000,
      describe: () => `brand-new.txt: ${fs.existsSync(newFile) ? JSON.stringify(fs.readFileSync(newFile, 'utf8')) : 'missing'}`,
    });
    await waitForLabel(card, 'Accepted');
    assert.match(await card.innerText(), /Created brand-new\.txt\s+Hunk 1\s+\+ Fresh content\./);
    await chat.waitForIdle();
  });
});
