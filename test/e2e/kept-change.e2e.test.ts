/**
 * A decided review shows what was kept (issue 29): after Accept on an OpenDiff card, in a real VS
 * Code (code-server, real Chromium) with the offline demo model, the card shows the kept change as
 * a diff (what went, what came) with Open Diff and Undo instead of the result's JSON, and the
 * review's notification is gone once the card decided it. Open Diff
 * opens VS Code's diff editor (before ↔ now); Undo puts the file back while it still holds what was
 * accepted, and refuses (the file untouched) once it changed since.
 *
 * Screenshots go to test-results/kept-change-*.png.
 *
 * Run alone: npm run build && npx mocha --no-config --require tsx/cjs --extension ts --timeout 300000 --exit test/e2e/kept-change.e2e.test.ts
 */
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import type { Locator } from 'playwright-core';
import { quickOpen, waitUntil } from './support/chat-driver';
import { useDemoChatSession } from './support/demo-session';

describe('A decided review in a real VS Code: the kept change as a diff, Open Diff and Undo', function () {
  this.timeout(300_000);
  const session = useDemoChatSession('kept-change');
  const hello = () => path.join(session.workspace, 'hello.txt');
  const readHello = () => fs.readFileSync(hello(), 'utf8');

  /** Asks for a change, accepts it on the card, and returns the card once the change is written. */
  async function acceptChange(to: string): Promise<Locator> {
    const { chat } = session;
    const turn = await chat.send(`propose changing hello.txt to ${to}`, ['OpenDiff']);
    const card = turn.card('OpenDiff');
    const review = card.locator('section.review');
    await review.waitFor({ timeout: 30_000 });
    await review.getByRole('button', { name: 'Accept', exact: true }).click();
    await waitUntil(() => readHello() === `${to}\n`, { timeoutMs: 30_000, describe: () => `hello.txt is ${JSON.stringify(readHello())}` });
    await chat.waitForCardStatus(card, 'succeeded');
    await chat.waitForIdle();
    return card;
  }

  it('after Accept the card shows the kept change as a diff, with Open Diff and Undo; Open Diff opens the diff editor; Undo puts the file back', async () => {
    const before = readHello();
    const card = await acceptChange('Changed by the agent.');
    const kept = card.locator('section.kept-change');
    await kept.waitFor({ timeout: 10_000 });
    assert.equal(await kept.locator('.kept-title').innerText(), 'Changed hello.txt (1 hunk)');
    const diff = await kept.locator('.kept-diff').innerText();
    for (const line of before.trim().split('\n')) assert.ok(diff.includes(`- ${line}`), `the diff shows "- ${line}": ${diff}`);
    assert.ok(diff.includes('+ Changed by the agent.'), diff);
    assert.deepEqual(await kept.locator('button').allInnerTexts(), ['Open Diff', 'Undo']);
    // The diff says what the result's JSON did ("decision", hunk numbers): no Result section under it.
    const labels = (await card.locator('.card-body .section-label').allTextContents()).map((l) => l.trim());
    assert.ok(labels.includes('Arguments') && !labels.includes('Result'), `the card's sections: ${JSON.stringify(labels)}`);
    assert.doesNotMatch(await card.locator('.card-body').innerText(), /"decision"/);
    // Decided on the card: the review's notification (Accept / Reject) is no longer on screen.
    await session.page.locator('.notifications-toasts .notification-toast', { hasText: 'Accept or Reject it here' }).waitFor({ state: 'hidden', timeout: 10_000 });
    await session.screenshot('1-kept-change');

    await kept.getByRole('button', { name: 'Open Diff', exact: true }).click();
    await session.page.locator('.tabs-container div.tab', { hasText: 'hello.txt: before the accepted change ↔ now' }).waitFor({ timeout: 30_000 });
    await session.page.locator('.monaco-diff-editor').first().waitFor({ timeout: 30_000 });

    await kept.getByRole('button', { name: 'Undo', exact: true }).click();
    await waitUntil(() => readHello() === before, { timeoutMs: 30_000, describe: () => `hello.txt is ${JSON.stringify(readHello())}` });
    await waitUntil(async () => (await kept.locator('.kept-title').innerText()).startsWith('Undone:'), { timeoutMs: 10_000, describe: () => kept.innerText() });
    assert.equal(await kept.locator('button').count(), 0, 'nothing to undo twice');
    await session.screenshot('2-undone');
  });

  it('Undo after the file changed since: refused with a warning, the file keeps the newer text', async () => {
    const card = await acceptChange('Second change.');
    const kept = card.locator('section.kept-change');
    await kept.waitFor({ timeout: 10_000 });
    // The user types more into the file and saves it.
    const { page } = session;
    await quickOpen(page, 'hello.txt');
    // The editor can take focus before it takes keys: press again until the cursor is at the end.
    await waitUntil(
      async () => {
        await page.keyboard.press('Control+End');
        return page.locator('.statusbar').getByText('Ln 2, Col 1', { exact: true }).isVisible();
      },
      { timeoutMs: 10_000, intervalMs: 250, describe: () => 'the cursor did not reach the end of hello.txt (Ln 2, Col 1)' },
    );
    await page.keyboard.type('Typed by the user afterwards.');
    await page.keyboard.press('Control+S');
    const typed = 'Second change.\nTyped by the user afterwards.';
    await waitUntil(() => readHello().startsWith(typed), { timeoutMs: 30_000, describe: () => `hello.txt is ${JSON.stringify(readHello())}` });
    const saved = readHello();
    await kept.getByRole('button', { name: 'Undo', exact: true }).click();
    await session.page.locator('.notifications-toasts .notification-toast', { hasText: 'hello.txt changed after the change was accepted, so it was not undone' }).waitFor({ timeout: 30_000 });
    assert.equal(readHello(), saved);
    assert.deepEqual(await kept.locator('button').allInnerTexts(), ['Open Diff', 'Undo']);
  });
});
