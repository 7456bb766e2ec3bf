/**
 * The chat's history list as a user drives it, in a real VS Code (code-server) and a real Chromium,
 * with the bundled backend's offline demo model: two threads, both listed with their titles and
 * dates, switch back and see the first transcript, rename, delete with confirmation, and a window
 * reload that keeps the list and the transcript shown. Screenshots of the list in the default theme
 * and the other of light/dark go to test-results/chat-flow-threads-list-*.png.
 *
 * Run: node esbuild.mjs && npx mocha --no-config --require tsx/cjs --timeout 300000 test/e2e/threads.e2e.test.ts
 */
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import type { Locator, Page } from 'playwright-core';
import { ChatDriver, runPaletteCommand, waitUntil } from './support/chat-driver';

const ROOT = path.resolve(__dirname, '../..');

interface Harness {
  page: Page | null;
  logTail(lines?: number): string;
  stop(): Promise<void>;
}

describe('Chat history list in a real VS Code', function () {
  this.timeout(300_000);
  let harness: Harness | undefined;
  let cleanupWorkspace: (() => void) | undefined;
  let page: Page;
  let chat: ChatDriver;

  const history = () => chat.frame.locator('section.history');
  const rows = () => history().locator('.thread-row');
  const row = (title: string | RegExp): Locator => rows().filter({ has: chat.frame.locator('.thread-title', { hasText: title }) });
  const titles = async (): Promise<string[]> => rows().locator('.thread-title').allInnerTexts();
  const userMessages = async (): Promise<string[]> => chat.frame.locator('.msg.user .user-text').allInnerTexts();

  async function openHistory(): Promise<void> {
    if (await history().isVisible()) return;
    await chat.openHistory();
    await history().waitFor({ state: 'visible', timeout: 10_000 });
  }

  /** The palette's F1 reaches the workbench, not the chat's frame: put the keyboard in the editor area first. */
  async function palette(title: string): Promise<void> {
    await page.locator('.part.editor').click({ position: { x: 300, y: 300 } });
    await runPaletteCommand(page, title);
  }

  /** 'light', 'dark' or 'hc' as the workbench is painted now. */
  async function theme(): Promise<string> {
    const cls = (await page.locator('.monaco-workbench').first().getAttribute('class')) ?? '';
    return /\bvs-dark\b/.test(cls) ? 'dark' : /\bvs\b/.test(cls) ? 'light' : 'hc';
  }

  async function ask(text: string): Promise<void> {
    const turn = await chat.send(text, []);
    await chat.waitForAnswer(turn.answer(), 60_000);
    await chat.waitForIdle();
  }

  async function waitForTitles(expected: string[]): Promise<void> {
    await waitUntil(async () => JSON.stringify(await titles()) === JSON.stringify(expected), {
      timeoutMs: 15_000,
      describe: async () => `the list shows ${JSON.stringify(await titles())}, expected ${JSON.stringify(expected)}`,
    });
  }

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
    if (process.env.DEBUG_THREADS) page.on('console', (m) => console.log('console:', m.type(), m.text().slice(0, 500)));
    try {
      await chat.open();
    } catch (e) {
      await chat.screenshot('threads-failed-open').catch(() => undefined);
      throw new Error(`the chat did not connect: ${(e as Error).message}\ncode-server log:\n${harness.logTail(30)}`);
    }
    const expandedToolGroups = page.locator('.pane-header[aria-expanded="true"]', { hasText: 'Tool Groups' });
    if (await expandedToolGroups.count()) await expandedToolGroups.click();
  });

  after(async () => {
    await harness?.stop();
    cleanupWorkspace?.();
  });

  afterEach(async function () {
    if (this.currentTest?.state !== 'failed' || !harness?.page) return;
    await chat.screenshot(`threads-failed-${this.currentTest.title.replace(/\W+/g, '-').slice(0, 60)}`).catch(() => undefined);
    console.error(`code-server log:\n${harness.logTail(30)}`);
  });

  it('New Chat keeps the first thread: both are listed with titles and dates, newest first', async () => {
    await ask('open notes.md');
    await chat.newChat();
    await waitUntil(async () => (await userMessages()).length === 0, { describe: async () => `still shows ${JSON.stringify(await userMessages())}` });
    await ask('list the files');
    assert.deepEqual(await userMessages(), ['list the files']);

    await openHistory();
    await waitForTitles(['list the files', 'open notes.md']);
    const dates = await rows().locator('.thread-date').allInnerTexts();
    assert.equal(dates.length, 2);
    for (const d of dates) assert.match(d, /^(\d\d:\d\d|Yesterday \d\d:\d\d)$/, 'threads made just now show the time');
    assert.equal(await row('list the files').locator('.thread-open').getAttribute('aria-current'), 'true');
    await chat.screenshot(`threads-list-${await theme()}`);
  });

  it('switching back shows the first transcript; the search filters by title', async () => {
    await openHistory();
    const search = history().locator('input.history-search');
    await search.fill('NOTES');
    await waitForTitles(['open notes.md']);
    await search.fill('');
    await waitForTitles(['list the files', 'open notes.md']);

    await row('open notes.md').locator('.thread-open').click();
    await history().waitFor({ state: 'hidden', timeout: 10_000 });
    await waitUntil(async () => JSON.stringify(await userMessages()) === JSON.stringify(['open notes.md']), {
      describe: async () => `the transcript shows ${JSON.stringify(await userMessages())}`,
    });
    assert.match(await chat.answers().first().innerText(), /notes\.md/);
    // The thread continues: a new message lands in it, after the restored turn.
    await ask('list the files again');
    assert.deepEqual(await userMessages(), ['open notes.md', 'list the files again']);
  });

  it('renames a thread from the keyboard', async () => {
    await openHistory();
    // Rename and Delete show on the row under the pointer (or holding the keyboard), as a user finds them.
    await row('list the files').hover();
    await row('list the files').locator('.thread-rename').click();
    const input = history().locator('input.thread-title-input');
    await input.waitFor({ timeout: 10_000 });
    await input.fill('Files overview');
    await input.press('Enter');
    await waitForTitles(['open notes.md', 'Files overview']);
    // Focus is back on the row's Rename button, so the list stays usable from the keyboard.
    assert.equal(await row('Files overview').locator('.thread-rename').evaluate((el) => el.ownerDocument.activeElement === el), true);
  });

  it('deletes a thread only after the confirmation', async () => {
    await openHistory();
    await row('Files overview').hover();
    await row('Files overview').locator('.thread-delete').click();
    const confirming = history().locator('.thread-row.confirming');
    await confirming.waitFor({ timeout: 10_000 });
    assert.match(await confirming.innerText(), /Delete “Files overview”\?/);
    await chat.screenshot(`threads-confirm-delete-${await theme()}`);
    await confirming.locator('.thread-delete-cancel').click();
    await waitForTitles(['open notes.md', 'Files overview']);

    await row('Files overview').hover();
    await row('Files overview').locator('.thread-delete').click();
    await history().locator('.thread-row.confirming .thread-delete-confirm').click();
    await waitForTitles(['open notes.md']);
  });

  it('a window reload keeps the list and the transcript shown', async () => {
    if (await history().isVisible()) await history().locator('button.history-close').click();
    await history().waitFor({ state: 'hidden', timeout: 10_000 });
    await page.reload();
    await page.locator('.monaco-workbench').waitFor({ timeout: 60_000 });
    // The side bar comes back with the chat; once it is connected the extension host is up and the
    // palette lists the extension's commands (on a loaded machine that took over 10 s).
    await chat.frame.locator('.conn-dot.conn-connected').waitFor({ timeout: 60_000 });
    await palette('Client Tools: Show Chat History');
    await history().waitFor({ state: 'visible', timeout: 30_000 });
    await waitForTitles(['open notes.md']);
    await history().locator('button.history-close').click();
    await waitUntil(async () => JSON.stringify(await userMessages()) === JSON.stringify(['open notes.md', 'list the files again']), {
      describe: async () => `after the reload the transcript shows ${JSON.stringify(await userMessages())}`,
    });
  });

  it('the list in the other theme (dark after light, or light after dark)', async () => {
    const before = await theme();
    const target = before === 'light' ? 'Dark Modern' : 'Light Modern';
    await page.locator('.part.editor').click({ position: { x: 300, y: 300 } });
    await page.keyboard.press('Control+K');
    await page.keyboard.press('Control+T');
    const widget = page.locator('.quick-input-widget');
    await widget.waitFor({ state: 'visible', timeout: 10_000 });
    await page.keyboard.type(target);
    await widget.locator('.monaco-list-row.focused', { hasText: target }).first().waitFor({ timeout: 10_000 });
    await page.keyboard.press('Enter');
    await waitUntil(async () => (await theme()) !== before, { timeoutMs: 10_000, describe: () => `the theme is still ${before}` });
    await chat.newChat();
    await ask('open notes.md');
    await openHistory();
    await waitForTitles(['open notes.md', 'open notes.md']);
    await chat.screenshot(`threads-list-${await theme()}`);
  });
});
