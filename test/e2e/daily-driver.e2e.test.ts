/**
 * A daily driver (issue 30), as a user meets it in a real VS Code (code-server) and a real Chromium,
 * with the bundled backend driving the real `openai` SDK against the fake OpenAI endpoint
 * (test/support/fake-openai.ts) on loopback, prompts in the chat (the default):
 * - Edit before allow: the agent proposes a command; the user opens Edit… on the permission card,
 *   changes the command and sends it; the chat then shows the extension's own prompt for the edited
 *   command, saying what the agent proposed; Allow runs the edited command (its file says so), the
 *   card names both commands, and the model's next request carries both in the tool result.
 * - Context meter: the status line shows the next request's tokens against the window, moving each
 *   turn; Compact now summarises the earlier turns (one request to the endpoint, no answer), the
 *   transcript shows the summary, and the meter goes down.
 * - Steer: while a permission prompt waits, the user types a message and presses Enter; it waits
 *   above the box (the prompt stays open: a queued message answers nothing); Allow lets the tool
 *   run, and at that tool boundary the message joins the transcript and the model's next request,
 *   right after the tool result.
 *
 * Screenshots go to test-results/daily-driver-*.png.
 *
 * Run: npm run build && npx mocha --no-config --require tsx/cjs --timeout 300000 test/e2e/daily-driver.e2e.test.ts
 */
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import type { ChatRequestMessage, FakeOpenAI } from '../support/fake-openai';
import { ChatDriver, useFakeModelChatSession, waitUntil } from './support/chat-driver';

const PROPOSED = 'echo proposed > ran.txt';
const EDITED = 'echo edited-by-the-user > ran.txt';

function textOf(m: ChatRequestMessage): string {
  if (typeof m.content === 'string') return m.content;
  if (Array.isArray(m.content)) return m.content.map((p) => p.text ?? '').join('');
  return '';
}

describe('A daily driver in the chat (edit before allow, steering, context meter), in a real VS Code with the bundled backend and the fake endpoint', function () {
  this.timeout(300_000);
  const session = useFakeModelChatSession('daily-driver');
  let chat: ChatDriver;
  let fake: FakeOpenAI;
  let workspace: string;
  before(() => ({ chat, fake, workspace } = session));
  const screenshot = (name: string) => session.screenshot(name);

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
    assert.equal(await chat.approval.locator('.approval-message').innerText(), `Run ${PROPOSED} in the ${folder} folder?`);
    assert.equal(await chat.approval.locator('.approval-message code').innerText(), PROPOSED);

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
    assert.equal(await message.innerText(), `Your edit: Run ${EDITED} in the ${folder} folder?`);
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

  it('a message typed while a prompt waits is queued, answers nothing, and reaches the model at the next tool boundary, after the tool result', async () => {
    const STEER = 'While you are at it: keep notes.md short.';
    fake.enqueue(
      { toolCalls: [{ name: 'IDE', arguments: {} }] },
      { toolCalls: [{ name: 'ReadFile', arguments: { path: 'notes.md' } }, { name: 'DeleteFile', arguments: { path: 'hello.txt' } }] },
      { text: 'Deleted hello.txt; I will keep notes.md short.' },
    );
    const before = fake.requests.length;
    const turn = await chat.send('read notes.md and delete hello.txt', ['DeleteFile']);
    await chat.approval.waitFor({ state: 'visible', timeout: 30_000 });
    assert.match(await chat.approval.locator('.approval-message').innerText(), /^Delete hello\.txt/);

    // The box stays usable during the run; Enter queues the message and leaves the prompt open.
    await chat.input.click();
    await chat.input.fill(STEER);
    await chat.input.press('Enter');
    const waiting = chat.frame.locator('.steers .steer-pending');
    await waiting.waitFor({ state: 'visible', timeout: 10_000 });
    assert.equal(await waiting.locator('.steer-text').innerText(), STEER);
    assert.match(await waiting.locator('.steer-when').innerText(), /next tool call/);
    assert.equal(await chat.input.inputValue(), '', 'the box was not emptied');
    assert.ok(await chat.approval.isVisible(), 'the queued message closed the permission prompt');
    assert.equal(fake.requests.length - before, 2, 'the message reached the model before the tool boundary');
    await screenshot('4-steer-queued');

    const allow = chat.approvalButton('Allow');
    await waitUntil(async () => allow.isEnabled(), { timeoutMs: 10_000, describe: () => 'Allow never armed' });
    await allow.click();
    await chat.waitForCardStatus(turn.card('DeleteFile'), 'succeeded', 60_000);
    assert.match(await chat.waitForAnswer(turn.answer(), 60_000), /keep notes\.md short/);
    await chat.waitForIdle();
    await chat.frame.locator('.steers .steer').first().waitFor({ state: 'detached', timeout: 10_000 });
    // In the transcript where it landed: after the tool cards, before the answer that read it.
    const users = await chat.frame.locator('.msg.user .user-text').allInnerTexts();
    assert.equal(users.at(-1), STEER, `the transcript's messages: ${JSON.stringify(users)}`);

    // What the model read: the third request has the tool results, then the message.
    const requests = fake.requests.slice(before);
    assert.equal(requests.length, 3, `the endpoint got ${requests.length} requests for the turn`);
    const messages = requests[2].body.messages;
    const last = messages[messages.length - 1];
    assert.equal(last.role, 'user');
    assert.equal(textOf(last), STEER);
    assert.equal(messages[messages.length - 2].role, 'tool', 'the message does not follow the tool results');
    assert.equal(requests[1].body.messages.some((m) => textOf(m) === STEER), false);
    assert.equal(fs.existsSync(path.join(workspace, 'hello.txt')), false);
    await screenshot('5-steer-delivered');
  });

  it('the context meter moves each turn, and Compact now summarises the earlier turns, shows the summary and lowers the meter', async () => {
    const SUMMARY = 'Earlier: the user asked about the cart total and the tax rounding.';
    const meter = chat.frame.locator('.context-meter');
    const label = meter.locator('.context-label');
    const tokensShown = async (): Promise<string> => (await label.innerText()).split(' / ')[0];
    fake.enqueue({ text: `The cart total stays at zero because the sum is never assigned. ${'More detail. '.repeat(40)}` });
    let turn = await chat.send('why does the cart total stay at zero?', []);
    await chat.waitForAnswer(turn.answer(), 60_000);
    await chat.waitForIdle();
    await meter.waitFor({ state: 'visible', timeout: 10_000 });
    const first = await tokensShown();
    assert.match(await label.innerText(), /^[\d.]+k? \/ [\d.]+k$/);

    fake.enqueue({ text: `Tax is rounded per line. ${'Even more detail. '.repeat(40)}` });
    turn = await chat.send('and the tax rounding?', []);
    await chat.waitForAnswer(turn.answer(), 60_000);
    await chat.waitForIdle();
    await waitUntil(async () => (await meter.getAttribute('title')) !== null && (await tokensShown()) !== first, { timeoutMs: 10_000, describe: async () => `the meter stays at ${await label.innerText()}` });
    const second = Number((await meter.getAttribute('title'))?.match(/takes (?:about )?(\d+) of/)?.[1]);
    await screenshot('6-meter');

    fake.enqueue({ text: SUMMARY });
    const before = fake.requests.length;
    await meter.getByRole('button', { name: 'Compact now', exact: true }).click();
    const notice = chat.notices().filter({ hasText: SUMMARY });
    await notice.waitFor({ timeout: 30_000 });
    assert.match(await notice.innerText(), /summarised by the model/);
    await chat.waitForIdle();
    await waitUntil(async () => Number((await meter.getAttribute('title'))?.match(/takes (?:about )?(\d+) of/)?.[1]) < second, { timeoutMs: 10_000, describe: async () => `the meter did not go down from ${second}: ${await meter.getAttribute('title')}` });
    assert.equal(fake.requests.length - before, 1, 'Compact now made one request (the summary), no answer');
    assert.match(String(fake.requests[before].body.messages[0].content), /^Summarise/);
    await screenshot('7-compacted');
  });
});
