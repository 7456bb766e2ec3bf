/**
 * Background calls in a real VS Code (code-server) driven by a real Chromium, with default
 * settings: this test process plays the backend (test/support/scripted-backend.ts) and calls
 * ReadFile while no chat run is in progress. The user is asked in a modal that says it is a
 * background request, and the chat shows the call as a card from the extension's own record,
 * marked Background, with no display event from the backend at all. Also: the token usage a
 * backend reports on runFinished, as the chat shows it.
 *
 * Screenshots go to test-results/background-*.png.
 * Run: npm run build && npx mocha --no-config --require tsx/cjs --timeout 300000 test/e2e/background-calls.e2e.test.ts
 */
import assert from 'node:assert/strict';
import path from 'node:path';
import type { Locator, Page } from 'playwright-core';
import { ChatDriver, MODAL_PROMPTS, modalDialog } from './support/chat-driver';
import type { ScriptedBackend } from '../support/scripted-backend';
import { RESULTS, useScriptedVSCode } from './support/scripted-vscode';

describe('background calls in a real VS Code, default settings', function () {
  this.timeout(120_000);
  // Default settings: background calls ask first.
  const session = useScriptedVSCode({ name: 'background', settings: MODAL_PROMPTS });
  let backend: ScriptedBackend;
  let page: Page;
  let chat: ChatDriver;
  let screenshot: (label: string) => Promise<Buffer>;

  const cards = (): Locator => chat.frame.locator('.tool-card');

  before(async () => {
    ({ backend, page, screenshot } = session());
    chat = new ChatDriver(page);
    await chat.open();
  });

  it('a ReadFile while no run is active asks first, saying it is a background request; Deny answers PERMISSION_DENIED and the chat shows a denied Background card', async () => {
    const call = backend.startCall('ReadFile', { path: 'notes.md' });
    const dialog = modalDialog(page);
    await dialog.waitFor({ timeout: 15_000 });
    assert.match((await dialog.locator('.dialog-message-text').textContent()) ?? '', /^Background request: Allow ReadFile\?/);
    assert.match((await dialog.locator('.dialog-message-detail').textContent()) ?? '', /no chat run you started/);
    assert.equal(await dialog.getByRole('button', { name: 'Allow for this Session', exact: true }).count(), 0, 'a background prompt is never remembered');
    const card = cards().first();
    await chat.waitForCardStatus(card, 'awaiting-permission', 15_000);
    assert.equal(await card.locator('.background-badge').isVisible(), true);
    await screenshot('prompt');

    await dialog.getByRole('button', { name: 'Deny', exact: true }).click();
    const response = await call.response;
    assert.deepEqual([response.success, response.errorCode], [false, 'PERMISSION_DENIED']);
    await chat.waitForCardStatus(card, 'denied', 15_000);
    assert.equal(await card.locator('.tool-name').textContent(), 'ReadFile');
  });

  it('Allow runs it: the card, built from the extension\'s record with no backend display event, says it ran in your editor', async () => {
    const call = backend.startCall('ReadFile', { path: 'notes.md' });
    const dialog = modalDialog(page);
    await dialog.waitFor({ timeout: 15_000 });
    await dialog.getByRole('button', { name: 'Allow', exact: true }).click();
    const response = await call.response;
    assert.equal(response.success, true, `${response.errorCode}: ${response.errorMessage}`);
    const card = cards().nth(1);
    await chat.waitForCardStatus(card, 'succeeded', 15_000);
    assert.match((await card.locator('.tool-meta').textContent()) ?? '', /^Ran in your editor · /);
    assert.equal(await card.locator('.background-badge').textContent(), 'Background');
    assert.equal(await card.locator('.tool-args').textContent(), 'path: "notes.md"');
    await card.locator('summary').click();
    await card.locator('.permission-note', { hasText: 'Allowed by you' }).waitFor({ timeout: 10_000 });
    await card.locator('.result-text').first().waitFor({ timeout: 10_000 });
    await screenshot('card');
    await page.locator('.part.sidebar').screenshot({ path: path.join(RESULTS, 'background-card.chat.png') });
  });

  it('a run the backend reports token usage for shows it under the answer, and the conversation\'s total in the header', async () => {
    const from = backend.received.length;
    const turn = await chat.send('how many tokens?', []);
    const sent = await backend.waitFor((m) => m.type === 'userMessage', 15_000, from);
    assert.equal(sent.type, 'userMessage');
    const ref = { threadId: sent.threadId, runId: 'run-usage-1' };
    backend.send({ type: 'runStarted', ...ref, model: 'gpt-test' });
    backend.send({ type: 'textDelta', ...ref, text: 'About this many.' });
    backend.send({ type: 'runFinished', ...ref, reason: 'completed', usage: { inputTokens: 1234, outputTokens: 340, cachedInputTokens: 800, thread: { inputTokens: 5020, outputTokens: 910, cachedInputTokens: 2400 } } });
    assert.equal(await chat.waitForAnswer(turn.answer(), 15_000), 'About this many.');
    const line = chat.frame.locator('.event.usage').last();
    await line.waitFor({ timeout: 15_000 });
    assert.equal(await line.locator('[aria-hidden="true"]').textContent(), '1.2k in · 340 out · 800 cached');
    assert.equal(await line.locator('.sr-only').textContent(), 'This run used 1,234 input tokens (800 of them cached), 340 output tokens. This conversation so far: 5,020 input tokens (2,400 of them cached), 910 output tokens.');
    assert.equal(await chat.frame.locator('.thread-usage:not(.agent-usage)').textContent(), 'Total 5k in · 910 out · 2.4k cached');
    await chat.waitForIdle(15_000);
    await page.locator('.part.sidebar').screenshot({ path: path.join(RESULTS, 'usage.chat.png') });
  });
});
