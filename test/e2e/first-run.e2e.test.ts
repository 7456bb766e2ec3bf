/**
 * The first minutes of a new user, in a real VS Code (code-server) driven by a real Chromium, with
 * the extension on default settings (its bundled backend, the offline demo model) on a copy of the
 * fixture workspace, which is also `npm start`'s sample workspace. The cases run in order.
 *
 * Screenshots go to test-results/first-run-*.png.
 *
 * Run alone: npm run build && npx mocha --no-config --require tsx/cjs --timeout 300000 --exit test/e2e/first-run.e2e.test.ts
 */
import assert from 'node:assert/strict';
import type { Locator, Page } from 'playwright-core';
import { activeTab, backgroundColor, runPaletteCommand, type ChatDriver } from './support/chat-driver';
import { useDemoChatSession } from './support/demo-session';

describe('First run in a real VS Code: never hang silently, examples, the demo label (offline demo model)', function () {
  this.timeout(300_000);
  const session = useDemoChatSession('first-run');
  let page: Page;
  let chat: ChatDriver;

  /** A notification toast whose message is exactly `text`. */
  const toast = (text: string): Locator =>
    page.locator('.notifications-toasts .notification-toast', { has: page.locator('.notification-list-item-message', { hasText: new RegExp(`^${text}$`) }) });

  before(() => {
    page = session.page;
    chat = session.chat;
  });

  it('an empty chat offers example requests; clicking "open notes.md" runs it; the demo label is in the header once, not under the answer', async () => {
    const empty = chat.frame.locator('.empty');
    await empty.waitFor({ state: 'visible', timeout: 10_000 });
    const examples = await empty.locator('button.example').allInnerTexts();
    assert.ok(examples.includes('open notes.md') && examples.length >= 4, `examples shown: ${examples.join(' | ')}`);
    assert.ok(await empty.locator('button.use-real-model', { hasText: 'Use a real model' }).isVisible(), 'the demo offers a way to a real model');
    await session.screenshot('0-empty-state');

    const turn = await chat.beginTurn(['OpenFile']);
    await empty.locator('button.example', { hasText: /^open notes\.md$/ }).click();
    assert.match(await chat.waitForCardStatus(turn.card('OpenFile'), 'succeeded'), /Succeeded/);
    assert.match(await chat.waitForAnswer(turn.answer()), /^I opened notes\.md in the editor\./);
    await activeTab(page, 'notes.md').waitFor({ timeout: 10_000 });
    await chat.waitForIdle();
    assert.equal(await chat.frame.locator('.msg.user .user-text').last().innerText(), 'open notes.md');
    assert.equal(await empty.isVisible(), false, 'the empty state goes once the chat has a message');
    // The header says it once; the answer itself carries no demo note.
    assert.equal(await chat.frame.getByText('Offline demo model', { exact: true }).count(), 1);
    assert.doesNotMatch(await turn.answer().innerText(), /demo model/i);
    await session.screenshot('0-example-ran');
  });

  it('"show a warning saying hi" ends the run while the warning is still on screen: nobody has to close it', async () => {
    const turn = await chat.send('show a warning saying hi', ['ShowMessage']);
    assert.match(await chat.waitForCardStatus(turn.card('ShowMessage'), 'succeeded'), /Succeeded/);
    assert.equal(await chat.waitForAnswer(turn.answer()), 'I showed a warning saying "hi".');
    await chat.waitForIdle();
    // The proof that nothing waited for it: the toast is still up, untouched, after the run ended.
    assert.ok(await toast('hi').isVisible(), 'the warning toast is still visible after the run ended');
    await session.screenshot('1-warning-not-waited-for');
    await toast('hi').hover();
    await toast('hi').locator('.codicon-notifications-clear').click();
  });

  it('a question waiting on the user shows in the chat with its buttons and Give up; answering there ends the wait', async () => {
    const question = chat.frame.locator('.question-banner');
    const turn = await chat.send('ask me whether to continue', ['ShowMessage']);
    await question.waitFor({ state: 'visible', timeout: 30_000 });
    assert.equal(await question.locator('.question-text').innerText(), 'Should I continue?');
    assert.deepEqual(await question.locator('button').allInnerTexts(), ['Yes', 'No', 'Give up']);
    await chat.waitForCardStatus(turn.card('ShowMessage'), 'running');
    await session.screenshot('1-question-in-chat');
    await question.locator('button', { hasText: /^No$/ }).click();
    assert.match(await chat.waitForCardStatus(turn.card('ShowMessage'), 'succeeded'), /Succeeded/);
    assert.equal(await chat.waitForAnswer(turn.answer()), 'I asked "Should I continue?" and you answered "No".');
    await question.waitFor({ state: 'hidden', timeout: 10_000 });
    await chat.waitForIdle();

    const again = await chat.send('ask me whether to continue', ['ShowMessage']);
    await question.waitFor({ state: 'visible', timeout: 30_000 });
    await question.locator('button', { hasText: 'Give up' }).click();
    assert.equal(await chat.waitForAnswer(again.answer()), 'I asked "Should I continue?" and you gave no answer.');
    await question.waitFor({ state: 'hidden', timeout: 10_000 });
    await chat.waitForIdle();
    // The toasts of both questions may still be up: clicking one now changes nothing.
    const leftover = page.locator('.notifications-toasts .notification-toast', { hasText: 'Should I continue?' }).first();
    if (await leftover.isVisible()) await leftover.locator('.monaco-button', { hasText: 'Yes' }).click();
    assert.match(await again.answer().innerText(), /you gave no answer/);
  });

  it('"Use a real model" in the empty state opens Select Model', async () => {
    await chat.newChat();
    await chat.frame.locator('.empty').waitFor({ state: 'visible', timeout: 10_000 });
    await chat.frame.locator('button.use-real-model').click();
    const picker = page.locator('.quick-input-widget');
    await picker.locator('.quick-input-title', { hasText: 'Select Model' }).waitFor({ timeout: 10_000 });
    assert.ok(await picker.locator('.monaco-list-row', { hasText: 'Ollama' }).count() > 0);
    await session.screenshot('2-use-real-model');
    await page.keyboard.press('Escape');
    await picker.waitFor({ state: 'hidden', timeout: 10_000 });
  });

  it('a message sent while disconnected fails with an error that offers Connect, and Connect connects', async () => {
    await runPaletteCommand(page, 'Client Tools: Disconnect');
    await chat.frame.locator('.conn-dot.conn-disconnected').waitFor({ timeout: 30_000 });
    await chat.send('which files are open?', []);
    const error = chat.frame.locator('.msg.error-item').last();
    await error.waitFor({ timeout: 30_000 });
    assert.match(await error.innerText(), /Not connected to the agent backend/);
    const connect = error.locator('button.connect-backend', { hasText: 'Connect' });
    assert.ok(await connect.isVisible(), 'the error offers Connect');
    await session.screenshot('3-disconnected-error');
    await connect.click();
    await chat.frame.locator('.conn-dot.conn-connected').waitFor({ timeout: 60_000 });
    const turn = await chat.beginTurn(['GetOpenEditors']);
    await error.locator('button.retry').click();
    assert.match(await chat.waitForCardStatus(turn.card('GetOpenEditors'), 'succeeded'), /Succeeded/);
  });

  /** Runs Select Model and picks `preset`, then answers the model-name box with `name`. */
  async function selectModel(preset: string, name: string): Promise<Locator> {
    await runPaletteCommand(page, 'Client Tools: Select Model');
    const picker = page.locator('.quick-input-widget');
    await picker.locator('.quick-input-title', { hasText: 'Select Model' }).waitFor({ timeout: 10_000 });
    await picker.locator('input').fill(preset);
    await picker.locator('.monaco-list-row.focused', { hasText: preset }).waitFor({ timeout: 10_000 });
    await page.keyboard.press('Enter');
    await picker.locator('.quick-input-title', { hasText: 'Model name' }).waitFor({ timeout: 10_000 });
    await picker.locator('input').fill(name);
    await page.keyboard.press('Enter');
    return picker;
  }

  it('Select Model → OpenAI asks for the API key (a password box) before the connection test', async () => {
    const picker = await selectModel('OpenAI', 'gpt-4.1-mini');
    await picker.locator('.quick-input-message, .quick-input-header', { hasText: /API key for OpenAI/ }).first().waitFor({ timeout: 10_000 });
    assert.equal(await picker.locator('input').getAttribute('type'), 'password');
    await session.screenshot('4-openai-asks-for-key');
    await page.keyboard.press('Escape');
    await picker.waitFor({ state: 'hidden', timeout: 10_000 });
  });

  it('Select Model → Ollama with nothing listening: the connection test says so and the header is not a green "Connected"', async () => {
    await selectModel('Ollama', 'llama3.2');
    const warning = page.locator('.notifications-toasts .notification-toast', { hasText: 'cannot reach http://127.0.0.1:11434/v1' });
    await warning.waitFor({ timeout: 60_000 });
    assert.match(await warning.innerText(), /connection refused/);
    // The bundled backend restarts with the new model; its header then tells the endpoint's real state.
    await chat.frame.locator('.model-name', { hasText: 'llama3.2' }).waitFor({ timeout: 60_000 });
    await chat.frame.locator('.conn-dot.model-down').waitFor({ timeout: 30_000 });
    assert.equal(await chat.frame.locator('.conn-text').innerText(), 'Model unreachable');
    assert.match(await chat.frame.locator('.conn-detail').innerText(), /cannot reach http:\/\/127\.0\.0\.1:11434\/v1: connection refused/);
    const dot = chat.frame.locator('.conn-dot');
    const shown = await backgroundColor(dot);
    await dot.evaluate((el) => el.classList.remove('model-down'));
    const connectedGreen = await backgroundColor(dot);
    await dot.evaluate((el) => el.classList.add('model-down'));
    assert.notEqual(shown, connectedGreen, 'the dot is not the connected colour');
    await session.screenshot('5-model-unreachable');
  });
});
