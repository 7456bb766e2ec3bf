/**
 * The README's pictures, made by a UI test so that they show the chat as it is: a real VS Code
 * (code-server, real Chromium, the default 300 px side bar) walks the five states a new user meets
 * first (a model error, the empty chat, a tool card, a permission prompt, a decided review), checks
 * that each shows what the README says of it, and saves the side bar in Light Modern and Dark Modern
 * to test-results/readme-<state>-<light|dark>.png. `npm run screenshots` runs this file and copies
 * those files to docs/images/.
 *
 * The model error is the first a new user meets: a model endpoint where nothing listens (a loopback
 * port opened and closed again), then "Use the offline demo" on the error, as the error offers.
 *
 * Run alone: npm run build && npx mocha --no-config --require tsx/cjs --extension ts --timeout 300000 --exit test/e2e/readme-screenshots.e2e.test.ts
 */
import assert from 'node:assert/strict';
import fs from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import type { Locator, Page } from 'playwright-core';
import { ChatDriver, RESULTS_DIR, waitUntil } from './support/chat-driver';
import { startVSCode, workspaceScripts, type Harness } from './support/vscode';

/** The themes each picture is taken in, and the class VS Code gives the webview's body for each. */
const THEMES = [
  { name: 'light', label: 'Light Modern', bodyClass: 'vscode-light' },
  { name: 'dark', label: 'Dark Modern', bodyClass: 'vscode-dark' },
] as const;

/** A loopback port where nothing listens: opened on port 0, then closed. */
async function closedPort(): Promise<number> {
  const server = net.createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as net.AddressInfo;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

describe('The README\'s screenshots in a real VS Code: model error, empty chat, tool card, prompt, decided review, in Light and Dark', function () {
  this.timeout(300_000);
  let harness: Harness | undefined;
  let cleanupWorkspace: (() => void) | undefined;
  let workspace: string;
  let page: Page;
  let chat: ChatDriver;
  let baseUrl: string;

  /** Preferences: Color Theme (Ctrl+K Ctrl+T), then waits until the chat's webview has the theme's colours. */
  async function pickTheme(theme: (typeof THEMES)[number]): Promise<void> {
    await page.locator('.part.editor').click({ position: { x: 300, y: 300 } });
    await page.keyboard.press('Control+K');
    await page.keyboard.press('Control+T');
    const widget = page.locator('.quick-input-widget');
    await widget.waitFor({ state: 'visible', timeout: 10_000 });
    await page.keyboard.type(theme.label);
    await widget.locator('.monaco-list-row.focused', { hasText: theme.label }).first().waitFor({ timeout: 10_000 });
    await page.keyboard.press('Enter');
    await widget.waitFor({ state: 'hidden', timeout: 10_000 });
    await chat.frame.locator(`body.${theme.bodyClass}`).waitFor({ timeout: 20_000 });
    // The webview's variables follow the body's class a moment later: wait until its background is the side bar's.
    const sideBar = await page.locator('.part.sidebar').evaluate((el) => (globalThis as unknown as { getComputedStyle(e: unknown): { backgroundColor: string } }).getComputedStyle(el).backgroundColor);
    await waitUntil(async () => (await chat.frame.locator('body').evaluate((el) => (globalThis as unknown as { getComputedStyle(e: unknown): { backgroundColor: string } }).getComputedStyle(el).backgroundColor)) === sideBar, {
      timeoutMs: 10_000,
      describe: () => `the chat's background never became the side bar's ${sideBar} in ${theme.label}`,
    });
  }

  /**
   * Saves the side bar (the chat at its own 300 px) in each theme, as test-results/readme-<state>-<theme>.png,
   * with `top` (when given) scrolled to the top of the transcript.
   */
  async function shoot(state: string, top?: Locator): Promise<void> {
    const sideBar = page.locator('.part.sidebar');
    const box = await sideBar.boundingBox();
    assert.equal(Math.round(box?.width ?? 0), 300, 'the side bar is VS Code\'s default 300 px');
    for (const theme of THEMES) {
      await pickTheme(theme);
      await top?.evaluate((el) => (el as unknown as { scrollIntoView(o: { block: string }): void }).scrollIntoView({ block: 'start' }));
      await sideBar.screenshot({ path: path.join(RESULTS_DIR, `readme-${state}-${theme.name}.png`) });
    }
  }

  before(async function () {
    this.timeout(300_000);
    for (const built of ['dist/extension.js', 'dist/backend/cli.js', 'media/chat.js']) {
      assert.ok(fs.existsSync(path.resolve(__dirname, '../..', built)), `${built} is missing: run \`npm run build\` first`);
    }
    fs.mkdirSync(RESULTS_DIR, { recursive: true });
    baseUrl = `http://127.0.0.1:${await closedPort()}/v1`;
    const copy = (await workspaceScripts()).copyFixtureWorkspace();
    cleanupWorkspace = copy.cleanup;
    workspace = copy.workspace;
    harness = await startVSCode({
      workspace,
      startTimeoutMs: 120_000,
      settings: { 'clientTools.model.baseUrl': baseUrl, 'clientTools.model.name': 'llama3.1', 'clientTools.model.retries': 0 },
    });
    // The model settings stay in the user settings alone, as on a desktop, so that "Use the offline
    // demo" (which writes the user settings) is not outranked by the remote ("Machine") copy.
    const machine = path.join(harness.tempDir, 'user-data', 'Machine', 'settings.json');
    const remote = JSON.parse(fs.readFileSync(machine, 'utf8')) as Record<string, unknown>;
    for (const key of Object.keys(remote)) if (key.startsWith('clientTools.model.')) delete remote[key];
    fs.writeFileSync(machine, JSON.stringify(remote, null, 2));
    page = harness.page;
    chat = new ChatDriver(page);
    await chat.open();
  });

  after(async () => {
    await harness?.stop();
    cleanupWorkspace?.();
  });

  afterEach(async function () {
    if (this.currentTest?.state !== 'failed' || !harness) return;
    await page.screenshot({ path: path.join(RESULTS_DIR, `readme-failed-${this.currentTest.title.replace(/\W+/g, '-').slice(0, 60)}.png`) }).catch(() => undefined);
    console.error(`code-server log:\n${harness.logTail(30)}`);
  });

  it('a model error: where nothing listens, the error says so in plain words and offers Retry, Select Model, Use the offline demo and Show Log', async () => {
    await chat.frame.locator('.conn-dot.model-down').waitFor({ timeout: 60_000 });
    await chat.send('hello', []);
    const error = chat.frame.locator('.msg.error-item').last();
    await error.waitFor({ timeout: 60_000 });
    assert.match(await error.locator('.error-text').innerText(), new RegExp(`^Error: Could not reach llama3\\.1 at ${baseUrl.replace(/[.]/g, '\\.')}: connection refused`));
    assert.deepEqual(await error.locator('.error-actions button').allInnerTexts(), ['Retry', 'Select Model', 'Use the offline demo', 'Show Log']);
    await chat.waitForIdle();
    await shoot('model-error');
    await error.getByRole('button', { name: 'Use the offline demo', exact: true }).click();
    await chat.frame.getByText('Offline demo model').waitFor({ timeout: 60_000 });
  });

  it('the empty chat: example requests that work on the sample workspace, and the offline demo named in the header', async () => {
    await chat.newChat();
    const empty = chat.frame.locator('.empty');
    await empty.waitFor({ state: 'visible', timeout: 10_000 });
    assert.ok(await empty.locator('button').count() >= 3, `the empty state offers examples: ${await empty.innerText()}`);
    await shoot('empty');
  });

  it('a tool card: "read notes.md" leads with "Read notes.md" and succeeds, and the answer says what the file holds', async () => {
    const turn = await chat.send('read notes.md', ['ReadFile']);
    const card = turn.card('ReadFile');
    await chat.waitForCardStatus(card, 'succeeded');
    assert.match(await card.locator('summary').innerText(), /^Read notes\.md/);
    assert.ok((await chat.waitForAnswer(turn.answer())).length > 0);
    await chat.waitForIdle();
    await shoot('tool-card');
  });

  it('a prompt: "delete hello.txt" asks in the chat with the exact target; Deny keeps the file', async () => {
    const turn = await chat.send('delete hello.txt', ['DeleteFile']);
    await chat.approval.waitFor({ state: 'visible', timeout: 30_000 });
    assert.match(await chat.approval.locator('.approval-message').innerText(), /^Delete hello\.txt \(\d+ B\)\?$/);
    await chat.waitForCardStatus(turn.card('DeleteFile'), 'awaiting-permission');
    await shoot('prompt');
    await chat.approvalButton('Deny').click();
    await chat.waitForCardStatus(turn.card('DeleteFile'), 'denied');
    await chat.waitForIdle();
    assert.ok(fs.existsSync(path.join(workspace, 'hello.txt')));
  });

  it('a decided review: "propose changing hello.txt to Hello!", Accept on the card; the card shows the kept change with Open Diff and Undo', async () => {
    await chat.newChat();
    const turn = await chat.send('propose changing hello.txt to Hello!', ['OpenDiff']);
    const card = turn.card('OpenDiff');
    const review = card.locator('section.review');
    await review.waitFor({ timeout: 30_000 });
    await review.getByRole('button', { name: 'Accept', exact: true }).click();
    await chat.waitForCardStatus(card, 'succeeded');
    const kept = card.locator('section.kept-change');
    await kept.waitFor({ timeout: 10_000 });
    assert.match(await kept.locator('.kept-diff').innerText(), /\+ Hello!/);
    assert.deepEqual(await kept.locator('button').allInnerTexts(), ['Open Diff', 'Undo']);
    await chat.waitForIdle();
    assert.equal(fs.readFileSync(path.join(workspace, 'hello.txt'), 'utf8'), 'Hello!\n');
    // The diff editor the review opened stays beside the chat; the picture is of the side bar alone,
    // from the card's first line (its sentence and status).
    await shoot('review', card);
  });
});
