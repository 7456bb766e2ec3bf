/**
 * Permission prompts in the chat (issue 16), as a user meets them in a real VS Code (code-server)
 * and a real Chromium, with the bundled backend driving the real `openai` SDK against the fake
 * OpenAI endpoint (test/support/fake-openai.ts) on loopback, on default settings (promptStyle chat):
 * - Deny with a reason typed in the chat: the file stays, and the model's next request carries the
 *   reason in the tool result;
 * - a prompt waiting while the chat is hidden: a notification with Open Chat and the status bar lead
 *   to it, and the editor keeps the keyboard when the next prompt appears.
 *
 * Screenshots go to test-results/permission-chat-*.png.
 *
 * Run: node esbuild.mjs && npx mocha --no-config --require tsx/cjs --timeout 300000 test/e2e/permission-chat.e2e.test.ts
 */
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import type { Page } from 'playwright-core';
import type { ChatRequestMessage, FakeOpenAI } from '../support/fake-openai';
import { ChatDriver, modalDialog, quickOpen, useFakeModelChatSession, waitUntil } from './support/chat-driver';

const REASON = 'I still need hello.txt for the demo';

function textOf(m: ChatRequestMessage): string {
  if (typeof m.content === 'string') return m.content;
  if (Array.isArray(m.content)) return m.content.map((p) => p.text ?? '').join('');
  return '';
}

describe('Permission prompts in the chat, in a real VS Code with the bundled backend and the fake endpoint', function () {
  this.timeout(300_000);
  const session = useFakeModelChatSession('permission-chat', {
    // The shortest allowed: the second case lets a prompt run out while the chat is hidden.
    'clientTools.permissions.promptTimeoutSeconds': 10,
  });
  let page: Page;
  let chat: ChatDriver;
  let fake: FakeOpenAI;
  let workspace: string;
  before(() => ({ page, chat, fake, workspace } = session));
  const screenshot = (name: string) => session.screenshot(name);

  it('Deny with a reason typed in the chat keeps the file, and the model reads the reason in the tool result', async () => {
    const file = path.join(workspace, 'hello.txt');
    fake.enqueue(
      { toolCalls: [{ name: 'IDE', arguments: {} }] },
      { toolCalls: [{ name: 'DeleteFile', arguments: { path: 'hello.txt' } }] },
      { text: 'Understood: I left hello.txt alone.' },
    );
    const before = fake.requests.length;
    const turn = await chat.send('please delete hello.txt', ['DeleteFile']);
    await chat.approval.waitFor({ state: 'visible', timeout: 30_000 });
    assert.match(await chat.approval.locator('.approval-message').innerText(), /^Delete hello\.txt \(\d+ B\)\?$/);
    assert.match(await chat.approval.locator('.approval-detail').innerText(), /Requested by the agent through the IDE tool DeleteFile/);
    assert.equal(await modalDialog(page).count(), 0, 'a modal dialog opened although prompts are in the chat');
    await chat.approval.locator('input.approval-reason').fill(REASON);
    await screenshot('1-deny-with-reason');

    await chat.approvalButton('Deny').click();
    await chat.approval.waitFor({ state: 'hidden', timeout: 10_000 });
    assert.match(await chat.waitForCardStatus(turn.card('DeleteFile'), 'denied'), /Denied/);
    assert.match(await chat.waitForAnswer(turn.answer(), 60_000), /I left hello\.txt alone/);
    await chat.waitForIdle();
    assert.ok(fs.existsSync(file), 'hello.txt was deleted although the user clicked Deny');

    // What the model read: the request after the denial carries the tool result with the reason.
    const requests = fake.requests.slice(before);
    assert.equal(requests.length, 3, `the endpoint got ${requests.length} requests for the turn`);
    const toolResults = requests[2].body.messages.filter((m) => m.role === 'tool').map(textOf);
    const denial = toolResults.find((t) => /PERMISSION_DENIED/.test(t));
    assert.ok(denial, `no PERMISSION_DENIED tool result reached the model: ${JSON.stringify(toolResults)}`);
    assert.ok(denial.includes(`the user's reason: "${REASON}"`), `the model read ${JSON.stringify(denial)}`);
    await screenshot('2-denied-answer');
  });

  it('a prompt waiting while the chat is hidden: a notification with Open Chat and the status bar lead to it; the editor keeps the keyboard', async () => {
    fake.enqueue(
      { toolCalls: [{ name: 'DeleteFile', arguments: { path: 'notes.md' } }, { name: 'DeleteFile', arguments: { path: 'hello.txt' } }] },
      { text: 'Both deletions were declined; nothing was deleted.' },
    );
    const turn = await chat.send('delete notes.md and hello.txt', ['DeleteFile']);
    await chat.approval.waitFor({ state: 'visible', timeout: 30_000 });
    assert.match(await chat.approval.locator('.approval-message').innerText(), /Delete notes\.md/);

    // The user goes to the Explorer (the chat's side bar is replaced, so the chat is hidden) and
    // works in an editor.
    await page.locator('.activitybar [aria-label^="Explorer"]').first().click();
    await chat.approval.waitFor({ state: 'detached', timeout: 10_000 });
    await quickOpen(page, 'sample.ts');
    const toast = (file: string) => page.locator('.notification-toast', {
      has: page.locator('.notification-list-item-message', { hasText: new RegExp(`DeleteFile waits for your permission in the chat: Delete ${file.replace('.', '\\.')}`) }),
    });
    await toast('notes.md').waitFor({ state: 'visible', timeout: 10_000 });
    const status = page.locator('.statusbar-item', { hasText: 'Client Tools: awaiting permission' });
    await status.waitFor({ timeout: 10_000 });

    // The first prompt runs out (10 s, counted as Deny); the second appears while the user types in
    // the editor: a notification, and the keyboard stays where it was.
    await toast('hello.txt').waitFor({ state: 'visible', timeout: 30_000 });
    await page.locator('.part.editor .monaco-editor.focused').waitFor({ timeout: 5_000 });
    const inWebview = await page.evaluate(() => {
      const active = (globalThis as unknown as { document: { activeElement: { tagName: string } | null } }).document.activeElement;
      return active?.tagName === 'IFRAME';
    });
    assert.equal(inWebview, false, 'the prompt took the keyboard from the editor');
    assert.equal(await modalDialog(page).count(), 0);
    await screenshot('3-hidden-chat-notification');

    await toast('hello.txt').getByRole('button', { name: 'Open Chat' }).click();
    await chat.approval.waitFor({ state: 'visible', timeout: 30_000 });
    assert.match(await chat.approval.locator('.approval-message').innerText(), /Delete hello\.txt/);
    await screenshot('4-opened-from-notification');
    await chat.approvalButton('Deny').click();
    await chat.approval.waitFor({ state: 'hidden', timeout: 10_000 });
    assert.match(await chat.waitForAnswer(turn.answer(), 60_000), /nothing was deleted/);
    await chat.waitForIdle();
    await waitUntil(async () => (await status.count()) === 0, { timeoutMs: 10_000, describe: () => 'the status bar still says awaiting permission' });
    assert.ok(fs.existsSync(path.join(workspace, 'notes.md')) && fs.existsSync(path.join(workspace, 'hello.txt')), 'a file was deleted');
  });
});
