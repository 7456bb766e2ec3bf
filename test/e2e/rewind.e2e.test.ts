/**
 * Rewind to here (issue 30 item 2), in a real VS Code (code-server) and a real Chromium, with the
 * bundled backend driving the real `openai` SDK against the fake OpenAI endpoint. One run edits
 * notes.md, a second run edits it again and edits src/sample.ts; the window is reloaded; the user
 * edits src/sample.ts by hand; Rewind to here on the second message previews the files (the hand
 * edit named as a conflict) and, with Keep My Edits, restores notes.md to its text before the
 * second run, leaves src/sample.ts as the user left it, drops the second turn from the transcript,
 * and the model's next request (at the fake endpoint) no longer carries the second turn.
 *
 * Screenshots go to test-results/rewind-*.png.
 *
 * Run: npm run build && npx mocha --no-config --require tsx/cjs --extension ts --timeout 300000 --exit test/e2e/rewind.e2e.test.ts
 */
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import type { Page } from 'playwright-core';
import type { FakeOpenAI } from '../support/fake-openai';
import { ChatDriver, modalDialog, quickOpen, useFakeModelChatSession, waitUntil, type Turn } from './support/chat-driver';

const ROOT = path.resolve(__dirname, '../..');

describe('Rewind to here in a real VS Code: files restored to before the run, the conversation cut, a hand edit kept as a conflict, across a reload', function () {
  this.timeout(300_000);
  const session = useFakeModelChatSession('rewind');
  let page: Page;
  let chat: ChatDriver;
  let fake: FakeOpenAI;
  let workspace: string;
  before(() => ({ page, chat, fake, workspace } = session));
  const screenshot = (name: string) => session.screenshot(name);
  const read = (rel: string) => fs.readFileSync(path.join(workspace, rel), 'utf8');
  const userMessages = () => chat.frame.locator('.msg.user');
  const userTexts = () => fake.requests.at(-1)!.body.messages.filter((m) => m.role === 'user').map((m) => String(m.content));

  /** Allows every prompt the turn raises until its answer has finished. */
  async function allowUntilAnswered(turn: Turn, prompts: number): Promise<void> {
    for (let i = 0; i < prompts; i++) {
      await chat.approval.waitFor({ state: 'visible', timeout: 30_000 });
      const allow = chat.approvalButton('Allow');
      await waitUntil(async () => allow.isEnabled(), { timeoutMs: 10_000, describe: () => 'Allow never armed' });
      const message = await chat.approval.locator('.approval-message').innerText();
      await allow.click();
      const shown = async () => chat.approval.locator('.approval-message').textContent({ timeout: 1_000 }).catch(() => null);
      await waitUntil(async () => (await shown()) !== message, { timeoutMs: 15_000, describe: () => `the prompt "${message}" stayed` });
    }
    await chat.waitForAnswer(turn.answer(), 60_000);
    await chat.waitForIdle();
  }

  it('two runs edit files; after a reload and a hand edit, Rewind to the second message restores notes.md, keeps the hand edit, cuts the conversation, and the model forgets the second turn', async () => {
    const notesBefore = read('notes.md');
    const sampleBefore = read('src/sample.ts');
    fake.enqueue(
      { toolCalls: [{ name: 'Editor', arguments: {} }] },
      { toolCalls: [{ name: 'ApplyEdit', arguments: { path: 'notes.md', save: true, edits: [{ startLine: 1, startColumn: 1, endLine: 1, endColumn: 1, newText: 'Run one: ' }] } }] },
      { text: 'First edit done.' },
    );
    await allowUntilAnswered(await chat.send('first edit please', []), 1);
    const notesAfterOne = read('notes.md');
    assert.equal(notesAfterOne, `Run one: ${notesBefore}`);

    fake.enqueue(
      {
        toolCalls: [
          { name: 'ApplyEdit', arguments: { path: 'notes.md', save: true, edits: [{ startLine: 1, startColumn: 1, endLine: 1, endColumn: 1, newText: 'Run two: ' }] } },
          { name: 'ApplyEdit', arguments: { path: 'src/sample.ts', save: true, edits: [{ startLine: 1, startColumn: 1, endLine: 1, endColumn: 1, newText: '// run two\n' }] } },
        ],
      },
      { text: 'Second edit done.' },
    );
    await allowUntilAnswered(await chat.send('second edit please', []), 2);
    assert.equal(read('notes.md'), `Run two: ${notesAfterOne}`);
    assert.equal(read('src/sample.ts'), `// run two\n${sampleBefore}`);
    await waitUntil(async () => (await userMessages().locator('button.rewind-here').count()) === 2, { timeoutMs: 15_000, describe: async () => `${await userMessages().locator('button.rewind-here').count()} Rewind buttons` });
    await screenshot('1-two-runs');

    await page.reload();
    await page.locator('.monaco-workbench').waitFor({ timeout: 60_000 });
    await chat.frame.locator('.conn-dot.conn-connected').waitFor({ timeout: 60_000 });
    await waitUntil(async () => (await userMessages().count()) === 2, { timeoutMs: 30_000, describe: async () => `${await userMessages().count()} user messages after the reload` });

    // The user edits src/sample.ts by hand after the runs: a conflict for the rewind.
    await quickOpen(page, 'sample.ts');
    await page.keyboard.press('Control+End');
    await page.keyboard.type('// typed by the user');
    await page.keyboard.press('Control+S');
    await waitUntil(() => read('src/sample.ts').includes('// typed by the user'), { timeoutMs: 30_000, describe: () => `sample.ts is ${JSON.stringify(read('src/sample.ts'))}` });
    const sampleByHand = read('src/sample.ts');

    await userMessages().nth(1).locator('button.rewind-here').click();
    const dialog = modalDialog(page);
    await dialog.waitFor({ timeout: 30_000 });
    assert.equal(await dialog.locator('.dialog-message-text').textContent(), 'Rewind to this message?');
    const detail = (await dialog.locator('.dialog-message-detail').textContent()) ?? '';
    assert.match(detail, /The conversation loses this message and its answer: the model forgets them\./);
    assert.match(detail, /Restore src\/sample\.ts \(you changed it since: kept unless you overwrite\)/);
    assert.match(detail, /Restore notes\.md(?! \()/);
    assert.match(detail, /1 of them you changed since/);
    await screenshot('2-preview');
    await dialog.getByRole('button', { name: 'Rewind, Keep My Edits', exact: true }).click();

    await waitUntil(() => read('notes.md') === notesAfterOne, { timeoutMs: 30_000, describe: () => `notes.md is ${JSON.stringify(read('notes.md'))}` });
    assert.equal(read('src/sample.ts'), sampleByHand, 'the hand edit was overwritten');
    await waitUntil(async () => (await userMessages().count()) === 1, { timeoutMs: 15_000, describe: async () => `${await userMessages().count()} user messages after the rewind` });
    assert.match(await userMessages().first().innerText(), /first edit please/);
    const notice = chat.notices().filter({ hasText: 'Rewound' });
    await notice.waitFor({ timeout: 15_000 });
    assert.match(await notice.innerText(), /Restored: notes\.md\.[\s\S]*Kept your edits \(not overwritten\): src\/sample\.ts\./);
    await screenshot('3-rewound');

    fake.enqueue({ text: 'Third answer.' });
    const third = await chat.send('third message', []);
    await chat.waitForAnswer(third.answer(), 60_000);
    const said = userTexts();
    assert.equal(said.length, 2, JSON.stringify(said));
    assert.ok(said[0].startsWith('first edit please') && said[1].startsWith('third message'), JSON.stringify(said));
    assert.ok(!JSON.stringify(fake.requests.at(-1)!.body).includes('Second edit done.'), 'the dropped answer reached the model');
  });

  it('Rewind to the first message with Overwrite My Edits puts notes.md back as it was before any run, over a hand edit, and empties the conversation', async () => {
    await chat.waitForIdle();
    const original = fs.readFileSync(path.resolve(ROOT, 'test/fixtures/workspace/notes.md'), 'utf8');
    // Typed in the editor, as a user does (a write to the disk behind an open editor reaches its buffer a moment later).
    await quickOpen(page, 'notes.md');
    await page.keyboard.press('Control+End');
    await page.keyboard.type('A line the user added.');
    await page.keyboard.press('Control+S');
    await waitUntil(() => read('notes.md').includes('A line the user added.'), { timeoutMs: 30_000, describe: () => `notes.md is ${JSON.stringify(read('notes.md'))}` });
    await userMessages().first().locator('button.rewind-here').click();
    const dialog = modalDialog(page);
    await dialog.waitFor({ timeout: 30_000 });
    const detail = (await dialog.locator('.dialog-message-detail').textContent()) ?? '';
    assert.match(detail, /The conversation loses this message and the 1 after it/);
    assert.match(detail, /Restore notes\.md \(you changed it since: kept unless you overwrite\)/);
    assert.doesNotMatch(detail, /sample\.ts/, 'the second run\'s record went with the first rewind');
    await dialog.getByRole('button', { name: 'Rewind and Overwrite My Edits', exact: true }).click();
    await waitUntil(() => read('notes.md') === original, { timeoutMs: 30_000, describe: () => `notes.md is ${JSON.stringify(read('notes.md'))}` });
    await waitUntil(async () => (await userMessages().count()) === 0, { timeoutMs: 15_000, describe: async () => `${await userMessages().count()} user messages after the rewind` });
    await screenshot('4-rewound-to-start');

    fake.enqueue({ text: 'Fresh start.' });
    const fresh = await chat.send('a fresh question', []);
    await chat.waitForAnswer(fresh.answer(), 60_000);
    const said = userTexts();
    assert.equal(said.length, 1, JSON.stringify(said));
    assert.ok(said[0].startsWith('a fresh question'), JSON.stringify(said));
  });
});
