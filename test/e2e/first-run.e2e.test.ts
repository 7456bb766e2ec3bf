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
import type { ChatDriver } from './support/chat-driver';
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
});
