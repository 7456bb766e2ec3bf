/**
 * A new user's walk, the rest of issue 29, in a real VS Code (code-server) driven by a real
 * Chromium with the bundled backend's offline demo model: Ask About Selection's attachment stays on
 * the message it was sent with, and there after a window reload; the Tool Groups view speaks plain
 * words, its policy menu marks the current choice, and the agent says which tool the user switched
 * off and where to turn it on; New Chat and History are in one place (the view title); a long paste
 * is a placeholder in the message box (Expand puts it back) and a short bubble once sent (Show all).
 *
 * Screenshots go to test-results/chat-flow-walk-*.png.
 * Run: node esbuild.mjs && npx mocha --no-config --require tsx/cjs --extension ts --timeout 300000 --exit test/e2e/new-user-walk.e2e.test.ts
 */
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import type { Page } from 'playwright-core';
import { ChatDriver, quickOpen, runPaletteCommand, waitForCursor, waitUntil } from './support/chat-driver';

const ROOT = path.resolve(__dirname, '../..');

// Browser globals used inside page callbacks (the root tsconfig has no DOM lib).
declare const DataTransfer: { new (): { setData(type: string, value: string): void } };
declare const ClipboardEvent: { new (type: string, init: { clipboardData: unknown; bubbles: boolean; cancelable: boolean }): unknown };

interface Harness {
  page: Page | null;
  logTail(lines?: number): string;
  stop(): Promise<void>;
}

describe("A new user's walk in a real VS Code with the offline demo model", function () {
  this.timeout(300_000);
  let harness: Harness | undefined;
  let cleanupWorkspace: (() => void) | undefined;
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
    cleanupWorkspace = copy.cleanup;
    harness = await startVSCode({ workspace: copy.workspace });
    assert.ok(harness.page, 'the harness opened no page');
    page = harness.page;
    chat = new ChatDriver(page);
    try {
      await chat.open();
    } catch (e) {
      await chat.screenshot('walk-failed-open').catch(() => undefined);
      throw new Error(`the chat did not connect: ${(e as Error).message}\ncode-server log:\n${harness.logTail(30)}`);
    }
  });

  after(async () => {
    await harness?.stop();
    cleanupWorkspace?.();
  });

  afterEach(async function () {
    if (this.currentTest?.state !== 'failed' || !harness?.page) return;
    await chat.screenshot(`walk-failed-${this.currentTest.title.replace(/\W+/g, '-').slice(0, 60)}`).catch(() => undefined);
    console.error(`code-server log:\n${harness.logTail(30)}`);
  });

  const sentWith = (text: string) => chat.frame.locator('.msg.user', { hasText: text }).locator('.sent-attachment');

  it('Ask About Selection: the selection stays named on the message sent with it, and after a window reload', async () => {
    await quickOpen(page, 'hello.txt');
    await page.keyboard.press('Control+Home');
    await page.keyboard.press('ArrowDown');
    await waitForCursor(page, 'Ln 2, Col 1');
    await page.keyboard.press('Control+Shift+ArrowRight');
    await waitForCursor(page, 'Ln 2, Col 7 (6 selected)');
    await runPaletteCommand(page, 'Client Tools: Ask About Selection');
    await chat.frame.locator('.attachment-chip', { hasText: 'hello.txt:2' }).waitFor({ timeout: 10_000 });
    const turn = await chat.beginTurn([]);
    await page.keyboard.type('what did I select?');
    await page.keyboard.press('Enter');
    await chat.frame.locator('.attachment-chip').waitFor({ state: 'detached', timeout: 10_000 });
    await sentWith('what did I select?').waitFor({ timeout: 10_000 });
    assert.equal(await sentWith('what did I select?').textContent(), 'Selection hello.txt:2');
    assert.equal(await sentWith('what did I select?').getAttribute('title'), 'Sent with the editor selection hello.txt:2');
    await chat.waitForAnswer(turn.answer(), 60_000);
    await chat.waitForIdle();
    await chat.screenshot('walk-selection-sent');

    await page.reload();
    await page.locator('.monaco-workbench').waitFor({ timeout: 60_000 });
    await chat.frame.locator('.conn-dot.conn-connected').waitFor({ timeout: 60_000 });
    await waitUntil(async () => (await sentWith('what did I select?').count()) === 1, {
      timeoutMs: 20_000,
      describe: async () => `after the reload the transcript shows ${JSON.stringify(await chat.frame.locator('.msg.user').allInnerTexts())}`,
    });
    assert.equal(await sentWith('what did I select?').textContent(), 'Selection hello.txt:2');
  });

  it('Tool Groups: plain words, the current policy checked in the menu, and the agent names the switched-off tool', async () => {
    const header = (title: string, expanded: boolean) => page.locator(`.part.sidebar .pane-header[aria-expanded="${expanded}"]`, { hasText: title });
    const row = (name: string) => page.locator('.part.sidebar .monaco-list-row', { has: page.locator('.label-name', { hasText: new RegExp(`^${name}$`) }) });
    /** Picks a menu entry: the pointer on it, then Enter (a click alone was once lost while the menu drew). */
    const pick = async (label: RegExp): Promise<void> => {
      await page.locator('.monaco-menu .action-label', { hasText: label }).hover();
      await page.locator('.monaco-menu .action-item.focused', { hasText: label }).waitFor({ timeout: 5_000 });
      await page.keyboard.press('Enter');
      await page.locator('.monaco-menu').waitFor({ state: 'detached', timeout: 10_000 });
    };
    const menuItems = async (): Promise<string[]> => {
      const menu = page.locator('.monaco-menu .action-label');
      await menu.first().waitFor({ timeout: 10_000 });
      return (await menu.allInnerTexts()).map((t) => t.trim()).filter(Boolean);
    };
    // The Tool Groups view gets the side bar to itself (the chat pane folded) so its rows are drawn.
    if (await header('Tool Groups', false).count()) await header('Tool Groups', false).click();
    await header('Chat', true).click();
    await row('IDE').waitFor({ timeout: 30_000 });
    assert.match(await row('IDE').innerText(), /the agent (opens it when needed|has its tools)/);
    assert.doesNotMatch(await row('IDE').innerText(), /\b(expanded|collapsed)\b/);
    await row('IDE').click();
    await row('DeleteFile').waitFor({ timeout: 10_000 });
    assert.match(await row('DeleteFile').innerText(), /asks you first/);
    assert.doesNotMatch(await row('DeleteFile').innerText(), /visible|in collapsed group|backend/);

    await row('DeleteFile').click({ button: 'right' });
    assert.deepEqual(await menuItems(), ['Allow Without Asking', '✓ Ask Every Time', 'Deny (Off)']);
    await pick(/^Deny \(Off\)$/);
    await waitUntil(async () => /off \(your choice\)/.test(await row('DeleteFile').innerText()), {
      timeoutMs: 10_000,
      describe: async () => `the DeleteFile row reads "${await row('DeleteFile').innerText()}"`,
    });
    await row('DeleteFile').click({ button: 'right' });
    assert.deepEqual(await menuItems(), ['Allow Without Asking', 'Ask Every Time', '✓ Deny (Off)']);
    await page.keyboard.press('Escape');
    await page.locator('.monaco-menu').waitFor({ state: 'detached', timeout: 10_000 });
    await chat.screenshot('walk-tool-groups-off');

    await header('Tool Groups', true).click();
    await header('Chat', false).click();
    await chat.frame.locator('.conn-dot.conn-connected').waitFor({ timeout: 30_000 });
    const turn = await chat.send('delete hello.txt', []);
    const answer = await chat.waitForAnswer(turn.answer(), 60_000);
    assert.equal(answer, 'I could not do it: DeleteFile is switched off in your Tool Groups view. To use it, right-click DeleteFile there and choose Ask Every Time or Allow Without Asking.');
    await chat.waitForIdle();

    // Back to Ask Every Time for what follows.
    if (await header('Tool Groups', false).count()) await header('Tool Groups', false).click();
    await header('Chat', true).click();
    await row('DeleteFile').click({ button: 'right' });
    await pick(/^Ask Every Time$/);
    await waitUntil(async () => /asks you first/.test(await row('DeleteFile').innerText()), { timeoutMs: 10_000, describe: async () => await row('DeleteFile').innerText() });
    await header('Tool Groups', true).click();
    await header('Chat', false).click();
    await chat.frame.locator('.conn-dot.conn-connected').waitFor({ timeout: 30_000 });
  });

  it('New Chat and History in one place, the view title: the composer has neither', async () => {
    assert.deepEqual(await chat.frame.locator('form.composer button').allInnerTexts().then((t) => t.filter((x) => /New Chat|History/.test(x))), []);
    await chat.openHistory();
    await chat.frame.locator('section.history').waitFor({ state: 'visible', timeout: 10_000 });
    await chat.frame.locator('section.history button.history-close').click();
    await chat.newChat();
    await waitUntil(async () => (await chat.frame.locator('.msg.user').count()) === 0, { timeoutMs: 10_000, describe: async () => 'New Chat left the transcript' });
  });

  it('a 12,000-character paste: a placeholder in the message box (Expand puts it back), sent whole, shown as a short bubble with Show all', async () => {
    const log = Array.from({ length: 300 }, (_, i) => `log line ${String(i + 1).padStart(3, '0')}: ${'x'.repeat(25)}`).join('\n');
    const paste = (text: string) => chat.input.evaluate((el, value) => {
      const data = new DataTransfer();
      data.setData('text/plain', value);
      const input = el as unknown as { focus(): void; dispatchEvent(event: unknown): boolean };
      input.focus();
      input.dispatchEvent(new ClipboardEvent('paste', { clipboardData: data, bubbles: true, cancelable: true }));
    }, text);
    await chat.input.fill('Expand me: ');
    await chat.input.press('End');
    await paste(log);
    assert.equal(await chat.input.inputValue(), 'Expand me: [Pasted text #1 +300 lines]');
    const chip = chat.frame.locator('.paste-chip');
    assert.equal(await chip.locator('.paste-label').innerText(), 'Pasted text #1 +300 lines');
    await chip.getByRole('button', { name: /Put the whole Pasted text #1/ }).click();
    assert.equal(await chat.input.inputValue(), `Expand me: ${log}`);
    assert.equal(await chip.count(), 0);

    await chat.input.fill('Summarise this log: ');
    await chat.input.press('End');
    await paste(log);
    assert.equal(await chat.input.inputValue(), 'Summarise this log: [Pasted text #2 +300 lines]');
    await chat.screenshot('walk-long-paste-composer');
    const turn = await chat.beginTurn([]);
    await chat.input.press('Enter');
    const bubble = chat.frame.locator('.msg.user', { hasText: 'Summarise this log:' });
    await bubble.waitFor({ timeout: 10_000 });
    await chat.waitForAnswer(turn.answer(), 60_000);
    await chat.waitForIdle();
    const toggle = bubble.locator('button.user-text-toggle');
    assert.equal(await toggle.innerText(), 'Show all 300 lines (12,019 characters)');
    assert.doesNotMatch(await bubble.locator('.user-text').innerText(), /log line 300/);
    const collapsed = (await bubble.boundingBox())?.height ?? 0;
    assert.ok(collapsed > 0 && collapsed < 300, `the collapsed bubble is ${collapsed} px high`);
    await bubble.scrollIntoViewIfNeeded();
    await chat.screenshot('walk-long-paste-sent');
    await toggle.click();
    // The echo is what the extension sent: the whole paste, not the placeholder.
    assert.equal(await bubble.locator('.user-text').innerText(), `Summarise this log: ${log}`);
    assert.equal(await toggle.innerText(), 'Show less');
    assert.ok(((await bubble.boundingBox())?.height ?? 0) > 2_000, 'Show all shows every line');
    await toggle.click();
  });
});
