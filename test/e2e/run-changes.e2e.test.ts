/**
 * The changes of a run (issue 30), in a real VS Code (code-server) and a real Chromium, with the
 * bundled backend driving the real `openai` SDK against the fake OpenAI endpoint: one run edits two
 * files (ApplyEdit, saved) and deletes a third (DeleteFile). Under the conversation the run's change
 * list names the three files with their hunks; the user undoes one hunk of notes.md, undoes the
 * delete (hello.txt comes back), keeps src/sample.ts, opens a diff; after a window reload the list
 * is still there; an Undo of a file the user edited since is refused (TARGET_CHANGED) and writes
 * nothing. A later run's RunInTerminal command creates one file and appends to another: both are
 * listed as written by the command; the appended one (not open, so no earlier copy) offers no Undo.
 *
 * Screenshots go to test-results/run-changes-*.png.
 *
 * Run: npm run build && npx mocha --no-config --require tsx/cjs --extension ts --timeout 300000 --exit test/e2e/run-changes.e2e.test.ts
 */
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import type { Locator, Page } from 'playwright-core';
import type { FakeOpenAI } from '../support/fake-openai';
import { ChatDriver, quickOpen, useFakeModelChatSession, waitUntil } from './support/chat-driver';

describe('The changes of a run in a real VS Code: listed under the conversation, undone and kept per file and per hunk, kept across a reload', function () {
  this.timeout(300_000);
  const session = useFakeModelChatSession('run-changes');
  let page: Page;
  let chat: ChatDriver;
  let fake: FakeOpenAI;
  let workspace: string;
  before(() => ({ page, chat, fake, workspace } = session));
  const screenshot = (name: string) => session.screenshot(name);
  const read = (rel: string) => fs.readFileSync(path.join(workspace, rel), 'utf8');
  const list = () => chat.frame.locator('.run-change-list');
  const fileBlock = (rel: string): Locator => list().locator(`.run-change-file[data-path="${rel}"]`);

  it('a run edits two files and deletes one: all three are listed; one hunk undone, the delete undone, one file kept, a diff opened', async () => {
    const notesBefore = read('notes.md');
    const helloBefore = read('hello.txt');
    const sampleBefore = read('src/sample.ts');
    fake.enqueue(
      { toolCalls: [{ name: 'Editor', arguments: {} }, { name: 'IDE', arguments: {} }] },
      {
        toolCalls: [
          { name: 'ApplyEdit', arguments: { path: 'notes.md', save: true, edits: [{ startLine: 1, startColumn: 1, endLine: 1, endColumn: 1, newText: 'Top: ' }, { startLine: 7, startColumn: 1, endLine: 7, endColumn: 1, newText: 'Bottom: ' }] } },
          { name: 'ApplyEdit', arguments: { path: 'src/sample.ts', save: true, edits: [{ startLine: 1, startColumn: 1, endLine: 1, endColumn: 1, newText: '// edited by the agent\n' }] } },
          { name: 'DeleteFile', arguments: { path: 'hello.txt' } },
        ],
      },
      { text: 'Edited notes.md and src/sample.ts, deleted hello.txt.' },
    );
    const turn = await chat.send('tidy up the workspace', ['DeleteFile']);
    for (let i = 0; i < 3; i++) {
      await chat.approval.waitFor({ state: 'visible', timeout: 30_000 });
      const allow = chat.approvalButton('Allow');
      await waitUntil(async () => allow.isEnabled(), { timeoutMs: 10_000, describe: () => 'Allow never armed' });
      const message = await chat.approval.locator('.approval-message').innerText();
      await allow.click();
      const shown = async () => chat.approval.locator('.approval-message').textContent({ timeout: 1_000 }).catch(() => null);
      await waitUntil(async () => (await shown()) !== message, { timeoutMs: 15_000, describe: () => `the prompt "${message}" stayed` });
    }
    await chat.waitForCardStatus(turn.card('DeleteFile'), 'succeeded', 60_000);
    await chat.waitForAnswer(turn.answer(), 60_000);
    await chat.waitForIdle();
    assert.equal(fs.existsSync(path.join(workspace, 'hello.txt')), false);
    assert.ok(read('notes.md').startsWith('Top: # Notes'));

    await list().waitFor({ timeout: 30_000 });
    assert.equal(await list().locator('.run-change-title').innerText(), 'Changes of the last run: 3 files');
    assert.deepEqual(await list().locator('.run-change-path').allInnerTexts(), ['Changed notes.md', 'Changed src/sample.ts', 'Deleted hello.txt']);
    assert.equal(await fileBlock('notes.md').locator('.run-hunk-head').count(), 2, 'notes.md: two hunks');
    const diff = await fileBlock('notes.md').locator('.run-change-diff').innerText();
    assert.ok(diff.includes('- # Notes') && diff.includes('+ Top: # Notes') && diff.includes('+ Bottom: - `logo.png`'), diff);
    await screenshot('1-listed');

    // Undo the second hunk of notes.md: only the bottom line goes back.
    await fileBlock('notes.md').locator('.run-hunk-undo').nth(1).click();
    await waitUntil(() => read('notes.md') === `Top: ${notesBefore}`, { timeoutMs: 30_000, describe: () => `notes.md is ${JSON.stringify(read('notes.md'))}` });
    await waitUntil(async () => (await fileBlock('notes.md').locator('.run-hunk-head').count()) === 1, { timeoutMs: 10_000, describe: () => fileBlock('notes.md').innerText() });

    // Undo the delete: hello.txt comes back as it was.
    await fileBlock('hello.txt').locator('button.run-undo').click();
    await waitUntil(() => fs.existsSync(path.join(workspace, 'hello.txt')) && read('hello.txt') === helloBefore, { timeoutMs: 30_000, describe: () => 'hello.txt did not come back' });

    // Keep src/sample.ts: it leaves the list, the file stays as the run left it.
    await fileBlock('src/sample.ts').locator('button.run-keep').click();
    await waitUntil(async () => JSON.stringify(await list().locator('.run-change-path').allInnerTexts()) === JSON.stringify(['Changed notes.md']), {
      timeoutMs: 10_000,
      describe: async () => `the list shows ${JSON.stringify(await list().locator('.run-change-path').allInnerTexts())}`,
    });
    assert.equal(read('src/sample.ts'), `// edited by the agent\n${sampleBefore}`);

    await fileBlock('notes.md').locator('button.run-open').click();
    await page.locator('.tabs-container div.tab', { hasText: 'notes.md: before the run ↔ now' }).waitFor({ timeout: 30_000 });
    await page.locator('.monaco-diff-editor').first().waitFor({ timeout: 30_000 });
    await screenshot('2-partly-undone');
  });

  it('after a window reload the list is still there; an Undo of a file edited since is refused with TARGET_CHANGED and writes nothing', async () => {
    await page.reload();
    await page.locator('.monaco-workbench').waitFor({ timeout: 60_000 });
    await chat.frame.locator('.conn-dot.conn-connected').waitFor({ timeout: 60_000 });
    await list().waitFor({ timeout: 30_000 });
    assert.deepEqual(await list().locator('.run-change-path').allInnerTexts(), ['Changed notes.md']);

    await quickOpen(page, 'notes.md');
    await page.keyboard.press('Control+End');
    await page.keyboard.type('Typed by the user afterwards.');
    await page.keyboard.press('Control+S');
    await waitUntil(() => read('notes.md').includes('Typed by the user afterwards.'), { timeoutMs: 30_000, describe: () => `notes.md is ${JSON.stringify(read('notes.md'))}` });
    const saved = read('notes.md');
    await fileBlock('notes.md').locator('button.run-undo').click();
    await page.locator('.notifications-toasts .notification-toast', { hasText: 'notes.md is not as the run left it' }).waitFor({ timeout: 30_000 });
    assert.ok(await page.locator('.notifications-toasts .notification-toast', { hasText: 'TARGET_CHANGED' }).count() > 0, 'the warning names the code');
    assert.equal(read('notes.md'), saved);
    assert.deepEqual(await list().locator('.run-change-path').allInnerTexts(), ['Changed notes.md'], 'still listed');
    await screenshot('3-refused-after-reload');
  });

  it('a run whose RunInTerminal command writes files: they are listed, marked as written by the command; one with no earlier copy offers no Undo', async () => {
    const mainBefore = read('app/main.ts');
    const command = "echo made > made-by-command.txt && echo '// appended' >> app/main.ts";
    fake.enqueue(
      { toolCalls: [{ name: 'Terminal', arguments: {} }] },
      { toolCalls: [{ name: 'RunInTerminal', arguments: { command } }] },
      { text: 'Ran it.' },
    );
    const turn = await chat.send('run the generator', ['RunInTerminal']);
    await chat.approval.waitFor({ state: 'visible', timeout: 30_000 });
    const allow = chat.approvalButton('Allow');
    await waitUntil(async () => allow.isEnabled(), { timeoutMs: 10_000, describe: () => 'Allow never armed' });
    await allow.click();
    await chat.waitForCardStatus(turn.card('RunInTerminal'), 'succeeded', 60_000);
    await chat.waitForAnswer(turn.answer(), 60_000);
    await chat.waitForIdle();
    assert.equal(read('made-by-command.txt'), 'made\n');
    assert.equal(read('app/main.ts'), `${mainBefore}// appended\n`);

    const last = list().last();
    await waitUntil(async () => (await last.locator('.run-change-path').allInnerTexts()).length === 2, {
      timeoutMs: 30_000,
      describe: async () => `the last run lists ${JSON.stringify(await last.locator('.run-change-path').allInnerTexts())}`,
    });
    const rows = await last.locator('.run-change-path').allInnerTexts();
    assert.deepEqual([...rows].sort(), [
      'Changed app/main.ts (written by a terminal command): no earlier copy kept, so it cannot be undone here',
      'Created made-by-command.txt (written by a terminal command)',
    ]);
    const created = last.locator('.run-change-file[data-path="made-by-command.txt"]');
    const appended = last.locator('.run-change-file[data-path="app/main.ts"]');
    assert.equal(await appended.locator('button.run-undo').count(), 0, 'no Undo without an earlier copy');
    await screenshot('4-command-writes');
    // The created file has a known text before (none): its Undo deletes it.
    await created.locator('button.run-undo').click();
    await waitUntil(() => !fs.existsSync(path.join(workspace, 'made-by-command.txt')), { timeoutMs: 30_000, describe: () => 'made-by-command.txt is still there' });
  });
});
