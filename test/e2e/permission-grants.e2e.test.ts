/**
 * Remembered permissions and the way out of a prompt barrage as a user meets them, in a real VS Code
 * (code-server) driven by a real Chromium, with the bundled backend's offline demo model asked in
 * the chat to delete files. The modal's buttons say exactly what each remembers (this file, or its
 * folder, "until this window closes"); the folder grant lets the next delete in that folder through
 * without a prompt, and nothing outside it; after three denials of DeleteFile the prompt offers
 * "Deny All from This Backend for 10 Minutes" and "Disconnect"; Reset Permissions lists the grant
 * and revokes it.
 *
 * Screenshots go to test-results/permission-grants-*.png (and to $CLIENT_TOOLS_SCREENS when set).
 *
 * Run alone: npm run build && npx mocha --no-config --require tsx/cjs --timeout 300000 test/e2e/permission-grants.e2e.test.ts
 */
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import type { Locator } from 'playwright-core';
import { MODAL_PROMPTS, modalDialog } from './support/chat-driver';
import { useDemoChatSession } from './support/demo-session';

describe('Permission prompts: grants that say what they cover, and Deny All after repeated denials (offline demo model)', function () {
  this.timeout(300_000);
  const session = useDemoChatSession('permission-grants', MODAL_PROMPTS);
  const dialog = (): Locator => modalDialog(session.page);
  const buttonLabels = async (): Promise<string[]> => (await dialog().locator('.dialog-buttons a.monaco-button, .dialog-buttons .monaco-button').allInnerTexts()).map((t) => t.trim()).filter(Boolean);
  const file = (rel: string): string => path.join(session.workspace, rel);

  async function shot(name: string): Promise<void> {
    await session.screenshot(name);
    const extra = process.env.CLIENT_TOOLS_SCREENS;
    if (extra) await session.page.screenshot({ path: path.join(extra, `permission-grants-${name}.png`) });
  }

  before(() => {
    fs.mkdirSync(file('docs'), { recursive: true });
    for (const name of ['docs/a.txt', 'docs/b.txt', 'top-1.txt', 'top-2.txt', 'top-3.txt']) fs.writeFileSync(file(name), `${name}\n`);
  });

  it('the prompt for docs/a.txt offers this file and docs/ "until this window closes"; the folder grant then deletes docs/b.txt without a prompt', async () => {
    const turn = await session.chat.send('delete docs/a.txt', ['DeleteFile']);
    await dialog().waitFor({ timeout: 30_000 });
    assert.match((await dialog().locator('.dialog-message-text').textContent()) ?? '', /^Delete docs\/a\.txt \(\d+ B\)\?$/);
    const labels = await buttonLabels();
    for (const expected of ['Deny', 'Allow', 'Allow DeleteFile of docs/a.txt until this window closes', 'Allow DeleteFile in docs/ until this window closes']) {
      assert.ok(labels.includes(expected), `no button "${expected}" in ${JSON.stringify(labels)}`);
    }
    assert.ok(!labels.some((l) => /Deny All|Disconnect/.test(l)), 'no way-out buttons before any denial');
    await shot('1-scopes');
    await dialog().getByRole('button', { name: 'Allow DeleteFile in docs/ until this window closes', exact: true }).click();
    await session.chat.waitForCardStatus(turn.card('DeleteFile'), 'succeeded');
    await session.chat.waitForIdle();
    assert.equal(fs.existsSync(file('docs/a.txt')), false);

    const second = await session.chat.send('delete docs/b.txt', ['DeleteFile']);
    await session.chat.waitForCardStatus(second.card('DeleteFile'), 'succeeded');
    await session.chat.waitForIdle();
    assert.equal(await dialog().count(), 0, 'the folder grant answered without a prompt');
    assert.equal(fs.existsSync(file('docs/b.txt')), false);
    await shot('2-remembered-grant-used');
  });

  it('Reset Permissions lists the grant by its label and revokes it: the next delete in docs/ asks again', async () => {
    await session.page.keyboard.press('F1');
    const widget = session.page.locator('.quick-input-widget');
    await widget.waitFor({ state: 'visible', timeout: 10_000 });
    await session.page.keyboard.type('Client Tools: Reset Permissions');
    await widget.locator('.monaco-list-row.focused', { hasText: 'Reset Permissions' }).first().waitFor({ timeout: 10_000 });
    await session.page.keyboard.press('Enter');
    const grantRow = widget.locator('.monaco-list-row', { hasText: 'Allow DeleteFile in docs/ until this window closes' });
    await grantRow.waitFor({ timeout: 10_000 });
    await widget.locator('.monaco-list-row', { hasText: 'Forget all' }).waitFor({ timeout: 10_000 });
    await grantRow.click();
    await shot('3-reset-permissions');
    await session.page.keyboard.press('Enter');
    await widget.waitFor({ state: 'hidden', timeout: 10_000 });

    fs.writeFileSync(file('docs/c.txt'), 'c\n');
    const turn = await session.chat.send('delete docs/c.txt', ['DeleteFile']);
    await dialog().waitFor({ timeout: 30_000 });
    await dialog().getByRole('button', { name: 'Deny', exact: true }).click();
    await session.chat.waitForCardStatus(turn.card('DeleteFile'), 'denied');
    await session.chat.waitForIdle();
    assert.equal(fs.existsSync(file('docs/c.txt')), true);
  });

  it('after three denials of DeleteFile (one in the previous case) the prompt offers "Deny All from This Backend for 10 Minutes" and "Disconnect"; Deny All then refuses the next delete without a prompt', async () => {
    for (const name of ['top-1.txt', 'top-2.txt']) {
      const turn = await session.chat.send(`delete ${name}`, ['DeleteFile']);
      await dialog().waitFor({ timeout: 30_000 });
      // A file in the workspace folder itself: no folder grant is offered.
      assert.ok(!(await buttonLabels()).some((l) => l.startsWith('Allow DeleteFile in ')), 'a folder grant offered for the workspace folder itself');
      await dialog().getByRole('button', { name: 'Deny', exact: true }).click();
      await session.chat.waitForCardStatus(turn.card('DeleteFile'), 'denied');
      await session.chat.waitForIdle();
    }
    const third = await session.chat.send('delete top-3.txt', ['DeleteFile']);
    await dialog().waitFor({ timeout: 30_000 });
    const labels = await buttonLabels();
    for (const expected of ['Deny', 'Allow', 'Allow DeleteFile of top-3.txt until this window closes', 'Deny All from This Backend for 10 Minutes', 'Disconnect']) {
      assert.ok(labels.includes(expected), `no button "${expected}" in ${JSON.stringify(labels)}`);
    }
    await shot('4-deny-all-offered');
    await dialog().getByRole('button', { name: 'Deny All from This Backend for 10 Minutes', exact: true }).click();
    await session.chat.waitForCardStatus(third.card('DeleteFile'), 'denied');
    await session.chat.waitForIdle();

    const refused = await session.chat.send('delete top-1.txt', ['DeleteFile']);
    await session.chat.waitForCardStatus(refused.card('DeleteFile'), 'failed');
    await session.chat.waitForIdle();
    assert.equal(await dialog().count(), 0, 'no prompt while Deny All holds');
    for (const name of ['top-1.txt', 'top-3.txt']) assert.equal(fs.existsSync(file(name)), true);
    await shot('5-deny-all-refused');
  });
});
