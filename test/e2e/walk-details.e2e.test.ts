/**
 * The rest of a new user's walk (issue 29, item 10), in a real VS Code (code-server) driven by a
 * real Chromium, with this test process playing the backend (test/support/scripted-backend.ts):
 * Retry sends a message again with the selection it was sent with, after a window reload too; a
 * prompt's title shows `code` as code (as text: no markup from the model) and its answer still
 * counts; the history list gives a title the row's width, with Rename and Delete shown on the row
 * holding the keyboard (Tab reaches them) and on the current one, and F2 / Delete on a row.
 *
 * Screenshots go to test-results/walk-details-*.png.
 * Run alone: npm run build && npx mocha --no-config --require tsx/cjs --extension ts --timeout 300000 --exit test/e2e/walk-details.e2e.test.ts
 */
import assert from 'node:assert/strict';
import type { Locator, Page } from 'playwright-core';
import type { ScriptedBackend } from '../support/scripted-backend';
import { ChatDriver, quickOpen, waitUntil } from './support/chat-driver';
import { useScriptedVSCode } from './support/scripted-vscode';

declare const document: { activeElement: { className: string } | null };

describe("a new user's walk, item 10's rest (real VS Code, scripted backend)", function () {
  this.timeout(240_000);
  const session = useScriptedVSCode({ name: 'walk-details', allowBackgroundCalls: true });
  let backend: ScriptedBackend;
  let page: Page;
  let chat: ChatDriver;
  let screenshot: (label: string) => Promise<Buffer>;
  let runs = 0;

  before(async () => {
    ({ backend, page, screenshot } = session());
    chat = new ChatDriver(page);
    await chat.open();
  });

  /** The next user message from index `from` on, answered with a started run. */
  async function startRun(from: number): Promise<{ threadId: string; runId: string; text: string; context: unknown }> {
    const sent = await backend.waitFor((m) => m.type === 'userMessage', 15_000, from);
    assert.equal(sent.type, 'userMessage');
    const ref = { threadId: sent.threadId, runId: `run-walk-${++runs}` };
    backend.send({ type: 'runStarted', ...ref, model: 'gpt-test' });
    return { ...ref, text: sent.text, context: sent.context };
  }

  async function failRun(run: { threadId: string; runId: string }): Promise<void> {
    backend.send({ type: 'runError', threadId: run.threadId, runId: run.runId, code: 'MODEL_ERROR', message: 'Could not reach gpt-test: connection refused (is the server running?)', retryable: true });
    backend.send({ type: 'runFinished', threadId: run.threadId, runId: run.runId, reason: 'error' });
    await chat.waitForIdle(15_000);
  }

  async function answer(text: string): Promise<void> {
    const from = backend.received.length;
    const turn = await chat.send(text, []);
    const run = await startRun(from);
    backend.send({ type: 'textDelta', threadId: run.threadId, runId: run.runId, text: `About "${text}": done.` });
    backend.send({ type: 'runFinished', threadId: run.threadId, runId: run.runId, reason: 'completed' });
    await chat.waitForAnswer(turn.answer(), 15_000);
    await chat.waitForIdle(15_000);
  }

  const retryButton = () => chat.frame.locator('.error-item button.retry').last();

  it('Retry sends the message again with its selection, also after a window reload', async () => {
    await quickOpen(page, 'hello.txt');
    await page.keyboard.press('Shift+End');
    await page.keyboard.press('Control+Shift+Alt+K');
    await chat.frame.locator('.attachment-chip').waitFor({ timeout: 15_000 });
    await page.keyboard.type('What does this line say?');
    let from = backend.received.length;
    await page.keyboard.press('Enter');
    const first = await startRun(from);
    assert.ok(first.context, 'the first message carried no selection');
    await failRun(first);
    const sent = chat.frame.locator('.msg.user', { hasText: 'What does this line say?' });
    assert.equal(await sent.locator('.sent-attachment').textContent(), 'Selection hello.txt:1');

    from = backend.received.length;
    await retryButton().click();
    const retried = await startRun(from);
    assert.equal(retried.text, first.text);
    assert.deepEqual(retried.context, first.context, 'Retry dropped the selection the message was sent with');
    await failRun(retried);
    await screenshot('1-retried');

    await page.reload();
    await page.locator('.monaco-workbench').waitFor({ timeout: 60_000 });
    await chat.frame.locator('.conn-dot.conn-connected').waitFor({ timeout: 60_000 });
    await retryButton().waitFor({ timeout: 20_000 });
    await waitUntil(() => retryButton().isEnabled(), { timeoutMs: 15_000, describe: () => 'Retry stays disabled after the reload' });
    from = backend.received.length;
    await retryButton().click();
    const afterReload = await startRun(from);
    assert.deepEqual(afterReload.context, first.context, 'after a reload Retry dropped the selection');
    backend.send({ type: 'runFinished', threadId: afterReload.threadId, runId: afterReload.runId, reason: 'completed' });
    await chat.waitForIdle(15_000);
    assert.equal(await sent.locator('.sent-attachment').textContent(), 'Selection hello.txt:1');
  });

  it("a prompt's title shows the command as code, its text never as markup, and the answer counts", async () => {
    const command = 'echo `date` <b>bold</b>';
    const call = backend.startCall('RunInTerminal', { command });
    await chat.approval.waitFor({ state: 'visible', timeout: 30_000 });
    const title = chat.approval.locator('.approval-message');
    assert.deepEqual(await title.locator('code').allInnerTexts(), [command]);
    assert.match(await title.innerText(), /^Run echo `date` <b>bold<\/b> in the [\w-]+ folder\?$/);
    assert.equal(await title.locator('b').count(), 0, 'the command became markup');
    await screenshot('2-prompt-title');
    await chat.approvalButton('Deny').click();
    const answered = await call.response;
    assert.equal(answered.success, false);
    assert.equal(answered.errorCode, 'PERMISSION_DENIED', `the answer was not taken: ${answered.errorMessage}`);
  });

  it('history: a title gets the row; Rename and Delete show on the focused and the current row, Tab reaches them, F2 and Delete work', async () => {
    await chat.newChat();
    await answer('Explain the fixture workspace');
    await chat.newChat();
    await answer('Second question');
    await chat.openHistory();
    const history = chat.frame.locator('section.history');
    await history.waitFor({ state: 'visible', timeout: 10_000 });
    const row = (title: string): Locator => history.locator('.thread-row').filter({ has: chat.frame.locator('.thread-title', { hasText: title }) });
    await row('Explain the fixture workspace').waitFor({ timeout: 10_000 });
    // By id: a row being renamed has an input in its title's place.
    const other = history.locator(`.thread-row[data-id="${await row('Explain the fixture workspace').getAttribute('data-id')}"]`);
    const current = row('Second question');
    await page.mouse.move(0, 0);
    const width = async (l: Locator) => (await l.boundingBox())?.width ?? 0;

    // Neither under the pointer nor holding the keyboard: the title has the row, unclipped.
    assert.ok(await width(other.locator('.thread-rename')) <= 1, 'Rename takes room on a row nobody is on');
    const clipped = await other.locator('.thread-title').evaluate((el) => el.scrollWidth > el.clientWidth);
    assert.equal(clipped, false, 'the title is cut');
    assert.ok(await width(current.locator('.thread-rename')) > 20, 'the current row hides Rename');
    await screenshot('3-history');

    // From the keyboard: Tab from the row reaches Rename, which shows.
    await other.locator('.thread-open').press('Tab');
    assert.match(await chat.frame.locator('body').evaluate(() => document.activeElement?.className ?? ''), /\bthread-rename\b/);
    assert.ok(await width(other.locator('.thread-rename')) > 20, 'Rename holds the keyboard out of sight');
    assert.ok(await width(other.locator('.thread-delete')) > 20, 'Delete is out of sight on the focused row');
    await screenshot('4-history-focused');
    await other.locator('.thread-rename').press('Enter');
    await other.locator('.thread-title-input').waitFor({ timeout: 5_000 });
    await other.locator('.thread-title-input').press('Escape');

    await other.locator('.thread-open').press('F2');
    await other.locator('.thread-title-input').waitFor({ timeout: 5_000 });
    await other.locator('.thread-title-input').press('Escape');
    await other.locator('.thread-open').press('Delete');
    await other.locator('.thread-delete-confirm').waitFor({ timeout: 5_000 });
    await other.locator('.thread-delete-cancel').press('Escape');
    await other.locator('.thread-open').waitFor({ timeout: 5_000 });
    await history.getByRole('button', { name: 'Close the conversation list' }).click();
  });
});
