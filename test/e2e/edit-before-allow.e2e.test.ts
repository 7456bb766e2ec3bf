/**
 * Edit before allow (issue 30), as a user meets it in a real VS Code (code-server) and a real
 * Chromium, with the bundled backend driving the real `openai` SDK against the fake OpenAI endpoint
 * (test/support/fake-openai.ts) on loopback, prompts in the chat (the default): the agent proposes a
 * command; the user opens Edit… on the permission card, changes the command and sends it; the chat
 * then shows the extension's own prompt for the edited command, saying what the agent proposed;
 * Allow runs the edited command (its file says so), the card names both commands, and the model's
 * next request carries both in the tool result.
 *
 * Screenshots go to test-results/edit-before-allow-*.png.
 *
 * Run: npm run build && npx mocha --no-config --require tsx/cjs --timeout 300000 test/e2e/edit-before-allow.e2e.test.ts
 */
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import type { Page } from 'playwright-core';
import { startFakeOpenAI, type ChatRequestMessage, type FakeOpenAI } from '../support/fake-openai';
import { ChatDriver, RESULTS_DIR, waitUntil } from './support/chat-driver';

const ROOT = path.resolve(__dirname, '../..');
const PROPOSED = 'echo proposed > ran.txt';
const EDITED = 'echo edited-by-the-user > ran.txt';

interface Harness {
  page: Page | null;
  logTail(lines?: number): string;
  stop(): Promise<void>;
}

function textOf(m: ChatRequestMessage): string {
  if (typeof m.content === 'string') return m.content;
  if (Array.isArray(m.content)) return m.content.map((p) => p.text ?? '').join('');
  return '';
}

describe('Edit before allow in the chat, in a real VS Code with the bundled backend and the fake endpoint', function () {
  this.timeout(300_000);
  let harness: Harness | undefined;
  let cleanupWorkspace: (() => void) | undefined;
  let workspace: string;
  let fake: FakeOpenAI;
  let page: Page;
  let chat: ChatDriver;
  const screenshot = (name: string) => page.screenshot({ path: path.join(RESULTS_DIR, `edit-before-allow-${name}.png`) });

  before(async function () {
    for (const built of ['dist/extension.js', 'dist/backend/cli.js', 'media/chat.js']) {
      assert.ok(fs.existsSync(path.join(ROOT, built)), `${built} is missing: run \`npm run build\` first`);
    }
    fs.mkdirSync(RESULTS_DIR, { recursive: true });
    fake = await startFakeOpenAI();
    // @ts-expect-error plain ESM script without types
    const { copyFixtureWorkspace } = (await import('../../scripts/test-workspace.mjs')) as {
      copyFixtureWorkspace(): { workspace: string; cleanup: () => void };
    };
    // @ts-expect-error plain ESM script without types
    const { startVSCode } = (await import('../../scripts/vscode-harness.mjs')) as {
      startVSCode(options: { workspace: string; settings: Record<string, unknown> }): Promise<Harness>;
    };
    const copy = copyFixtureWorkspace();
    workspace = copy.workspace;
    cleanupWorkspace = copy.cleanup;
    harness = await startVSCode({
      workspace,
      settings: { 'clientTools.model.baseUrl': fake.baseURL, 'clientTools.model.name': 'fake-model' },
    });
    assert.ok(harness.page, 'the harness opened no page');
    page = harness.page;
    chat = new ChatDriver(page);
    try {
      await chat.open();
    } catch (e) {
      await screenshot('failed-open').catch(() => undefined);
      throw new Error(`the chat did not connect: ${(e as Error).message}\ncode-server log:\n${harness.logTail(30)}`);
    }
  });

  after(async () => {
    await harness?.stop();
    cleanupWorkspace?.();
    await fake?.close();
  });

  afterEach(async function () {
    if (this.currentTest?.state !== 'failed' || !harness?.page) return;
    await screenshot(`failed-${this.currentTest.title.replace(/\W+/g, '-').slice(0, 60)}`).catch(() => undefined);
    console.error(`code-server log:\n${harness.logTail(30)}`);
  });

  it('the user edits the proposed command on the card, allows the edited call as shown again, and exactly that runs; card and model see both', async () => {
    const folder = path.basename(workspace);
    fake.enqueue(
      { toolCalls: [{ name: 'Terminal', arguments: {} }] },
      { toolCalls: [{ name: 'RunInTerminal', arguments: { command: PROPOSED } }] },
      { text: 'The edited command ran.' },
    );
    const before = fake.requests.length;
    const turn = await chat.send('write ran.txt', ['RunInTerminal']);
    await chat.approval.waitFor({ state: 'visible', timeout: 30_000 });
    assert.equal(await chat.approval.locator('.approval-message').innerText(), `Run \`${PROPOSED}\` in the ${folder} folder?`);

    // Edit… opens the field with the agent's command; sending it allows nothing yet.
    const editButton = chat.approvalButton('Edit…');
    await waitUntil(async () => editButton.isEnabled(), { timeoutMs: 10_000, describe: () => 'Edit… never armed' });
    await editButton.click();
    const field = chat.approval.locator('textarea.approval-edit-field');
    await field.waitFor({ state: 'visible', timeout: 5_000 });
    assert.equal(await field.inputValue(), PROPOSED);
    await field.fill(EDITED);
    await screenshot('1-editing');
    await chat.approvalButton('Review Edited Call').click();

    // The extension's own prompt for the edited call, with the proposal beside it.
    const message = chat.approval.locator('.approval-message');
    await waitUntil(async () => (await message.innerText()).startsWith('Your edit:'), {
      timeoutMs: 15_000,
      describe: async () => `the card shows ${JSON.stringify(await message.innerText())}`,
    });
    assert.equal(await message.innerText(), `Your edit: Run \`${EDITED}\` in the ${folder} folder?`);
    const detail = await chat.approval.locator('.approval-detail').innerText();
    assert.match(detail, new RegExp(`The agent proposed: ${PROPOSED.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}`));
    assert.equal(await chat.approvalButton('Edit…').count(), 0, 'the edited call offers Edit again');
    assert.equal(fs.existsSync(path.join(workspace, 'ran.txt')), false, 'something ran before the edited call was allowed');
    await screenshot('2-edited-prompt');
    const allow = chat.approvalButton('Allow');
    await waitUntil(async () => allow.isEnabled(), { timeoutMs: 10_000, describe: () => 'Allow never armed' });
    await allow.click();

    const card = turn.card('RunInTerminal');
    await chat.waitForCardStatus(card, 'succeeded', 60_000);
    assert.match(await chat.waitForAnswer(turn.answer(), 60_000), /The edited command ran/);
    await chat.waitForIdle();
    assert.equal(fs.readFileSync(path.join(workspace, 'ran.txt'), 'utf8').trim(), 'edited-by-the-user', 'the command that ran is not the edited one');
    const note = (await card.locator('.permission-note').textContent()) ?? '';
    assert.ok(note.includes(`the agent proposed “${PROPOSED}”; yours: “${EDITED}”`), `the card says ${JSON.stringify(note)}`);

    // What the model read: the tool result names the proposal and what ran.
    const requests = fake.requests.slice(before);
    assert.equal(requests.length, 3, `the endpoint got ${requests.length} requests for the turn`);
    const results = requests[2].body.messages.filter((m) => m.role === 'tool').map(textOf);
    const edited = results.find((t) => t.includes('The user edited this call before allowing it'));
    assert.ok(edited, `no tool result told the model about the edit: ${JSON.stringify(results)}`);
    assert.ok(edited.includes(JSON.stringify(PROPOSED).slice(1, -1)) && edited.includes(JSON.stringify(EDITED).slice(1, -1)), edited);
    await screenshot('3-ran-edited');
  });
});
