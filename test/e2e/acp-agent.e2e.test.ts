/**
 * An ACP agent in the chat, in a real VS Code (code-server) and a real Chromium: the scripted ACP
 * agent (test/support/agents/scripted-agent.ts, a process on the official SDK's agent side)
 * configured in `clientTools.agents`, picked in the chat's agent picker. In one turn it reads a
 * file (a ReadFile card of the editor's, named after the agent), proposes a write that the user
 * reviews per hunk on the card (one hunk rejected: only the kept one reaches the disk, and the
 * agent is told which), and asks for a command that the user denies with a reason in the chat (the
 * reason reaches the agent). Its answer streams as the agent's, and the status line names it.
 *
 * Screenshots go to test-results/acp-agent-*.png.
 *
 * Run: node esbuild.mjs && npx mocha --no-config --require tsx/cjs --timeout 300000 test/e2e/acp-agent.e2e.test.ts
 */
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { scriptedProgram, type LogEntry } from '../support/agents/acp-harness';
import { ChatDriver, useChatSession, waitUntil } from './support/chat-driver';

/** Long on purpose: its caller badge must still fit a 300 px chat. */
const AGENT = 'Scripted Agent with a long configured name';
const REASON = 'run the tests instead';

describe('An ACP agent in the chat, in a real VS Code', function () {
  this.timeout(300_000);
  let logDir: string | undefined;
  const session = useChatSession('acp-agent', {
    built: ['dist/extension.js', 'media/chat.js'],
    settings(workspace) {
      fs.writeFileSync(path.join(workspace, 'notes.txt'), 'alpha\nbeta\ngamma\ndelta\nepsilon\n');
      logDir = fs.mkdtempSync(path.join(os.tmpdir(), 'client-tools-acp-e2e-'));
      const program = scriptedProgram({
        turns: [[
          { update: { sessionUpdate: 'agent_message_chunk', content: { type: 'text', text: 'Reading your notes. ' } } },
          { update: { sessionUpdate: 'usage_update', used: 50_000, size: 200_000, cost: { amount: 0.034, currency: 'USD' } } },
          { update: { sessionUpdate: 'tool_call', toolCallId: 'read-1', title: 'Read notes.txt', kind: 'read', status: 'in_progress', locations: [{ path: '__CWD__/notes.txt' }] } },
          { call: 'fs/read_text_file', params: { path: '__CWD__/notes.txt' }, as: 'read' },
          { update: { sessionUpdate: 'tool_call_update', toolCallId: 'read-1', status: 'completed', content: [{ type: 'content', content: { type: 'text', text: 'read 5 lines' } }] } },
          { call: 'fs/write_text_file', params: { path: '__CWD__/notes.txt', content: 'ALPHA\nbeta\ngamma\ndelta\nEPSILON\n' }, as: 'write' },
          { call: 'terminal/create', params: { command: 'rm', args: ['-rf', 'build'] }, as: 'terminal' },
          { update: { sessionUpdate: 'agent_message_chunk', content: { type: 'text', text: 'Done with the notes.' } } },
        ]],
      }, path.join(logDir, 'agent.jsonl'));
      return { 'clientTools.agents': [{ name: AGENT, command: program.command, args: program.args, env: program.env }] };
    },
  });
  let chat: ChatDriver;
  let workspace: string;
  before(() => ({ chat, workspace } = session));
  const screenshot = (name: string) => session.screenshot(name);
  const agentLog = (): LogEntry[] => {
    const file = path.join(logDir!, 'agent.jsonl');
    return fs.existsSync(file) ? fs.readFileSync(file, 'utf8').trim().split('\n').map((l) => JSON.parse(l) as LogEntry) : [];
  };
  const answerOf = (as: string) => agentLog().find((e) => e.as === as);

  after(() => {
    if (logDir) fs.rmSync(logDir, { recursive: true, force: true });
  });

  it('picked in the chat, it reads, writes through a per-hunk review and is denied a command with a reason', async () => {
    const picker = chat.frame.locator('select.agent-picker');
    await picker.waitFor({ state: 'visible', timeout: 30_000 });
    assert.deepEqual(await picker.locator('option').allInnerTexts(), ['Client Tools backend', AGENT]);
    await picker.selectOption({ label: AGENT });
    await waitUntil(async () => (await chat.frame.locator('.model-name').innerText()).trim() === AGENT, {
      describe: async () => `the status line names "${await chat.frame.locator('.model-name').innerText()}"`,
    });
    await screenshot('1-picked');

    const turn = await chat.send('Tidy up my notes.', ['ReadFile', 'OpenDiff', 'RunInTerminal', 'Read notes.txt']);

    // The agent's own card for its read, named after it, and the editor's ReadFile card beside it.
    const agentCard = turn.card('Read notes.txt');
    await chat.waitForCardStatus(agentCard, 'succeeded', 60_000);
    assert.match(await agentCard.locator('.tool-meta').innerText(), new RegExp(`^${AGENT}`));
    const readCard = turn.card('ReadFile');
    await chat.waitForCardStatus(readCard, 'succeeded');
    assert.match(await readCard.innerText(), new RegExp(AGENT));
    await waitUntil(() => answerOf('read'), { describe: () => 'the agent got no answer to its read' });
    assert.deepEqual(answerOf('read')?.result, { content: 'alpha\nbeta\ngamma\ndelta\nepsilon\n' });

    // The write is reviewed hunk by hunk on the editor's OpenDiff card.
    const review = turn.card('OpenDiff').locator('section.review');
    await review.waitFor({ timeout: 30_000 });
    assert.equal(await review.locator('li.hunk').count(), 2, await review.innerText());
    await review.getByRole('button', { name: 'Reject hunk 2', exact: true }).click();
    await review.locator('li.hunk-rejected').waitFor({ timeout: 30_000 });
    await review.locator('input.review-reason').fill('keep the last line');
    await screenshot('2-hunk-rejected');
    await review.getByRole('button', { name: 'Accept', exact: true }).click();
    await waitUntil(() => fs.readFileSync(path.join(workspace, 'notes.txt'), 'utf8') === 'ALPHA\nbeta\ngamma\ndelta\nepsilon\n', {
      describe: () => `notes.txt is ${JSON.stringify(fs.readFileSync(path.join(workspace, 'notes.txt'), 'utf8'))}`,
    });
    await waitUntil(() => answerOf('write'), { describe: () => 'the agent got no answer to its write' });
    assert.equal(answerOf('write')?.error?.data?.code, 'PERMISSION_DENIED');
    assert.match(answerOf('write')?.error?.message ?? '', /kept hunks 1; rejected hunks 2.*keep the last line/);

    // The command is asked in the chat with the exact command line; Deny with a reason.
    await chat.approval.waitFor({ timeout: 30_000 });
    // The title's `code` shows as code: its text without the backticks.
    assert.match(await chat.approval.innerText(), /Run rm -rf build/);
    assert.equal(await chat.approval.locator('.approval-message code').first().innerText(), 'rm -rf build');
    assert.match(await chat.approval.innerText(), new RegExp(`Asked for by ${AGENT}, the agent of this conversation\\.`));
    await chat.approval.locator('input.approval-reason').fill(REASON);
    await screenshot('3-command-asked');
    await chat.approvalButton('Deny').click();
    await waitUntil(() => answerOf('terminal'), { describe: () => 'the agent got no answer to its command' });
    assert.equal(answerOf('terminal')?.error?.data?.code, 'PERMISSION_DENIED');
    assert.match(answerOf('terminal')?.error?.message ?? '', new RegExp(REASON));
    assert.ok(fs.existsSync(path.join(workspace, 'notes.txt')));

    const answer = await chat.waitForAnswer(turn.answer(), 60_000);
    assert.match(answer, /Reading your notes\./);
    await chat.waitForIdle();
    assert.match(await chat.frame.locator('.msg.answer').last().innerText(), /Done with the notes\./);
    await screenshot('4-done');

    // The agent's usage_update is the conversation's usage in the status line.
    assert.equal(await chat.frame.locator('.agent-usage').innerText(), 'Context 25% · 0.03 USD');
    // The editor's card names the agent in its caller badge, which fits a 300 px chat (cut with an ellipsis, the whole name in its title).
    const badge = readCard.locator('.caller-badge');
    assert.equal(await badge.textContent(), AGENT);
    assert.equal(await badge.getAttribute('title'), `Asked for by ${AGENT}, the agent of this conversation`);
    await chat.frame.locator('body').evaluate((body) => { (body as unknown as { style: { width: string } }).style.width = '300px'; });
    await waitUntil(async () => ((await readCard.boundingBox())?.width ?? 1000) <= 300, { describe: async () => `the card is ${JSON.stringify(await readCard.boundingBox())}` });
    const card = await readCard.boundingBox();
    const box = await badge.boundingBox();
    assert.ok(card && box && box.x >= card.x && box.x + box.width <= card.x + card.width + 0.5, `the badge ${JSON.stringify(box)} is outside the card ${JSON.stringify(card)}`);
    const line = readCard.locator('.card-line.secondary');
    assert.ok(await line.evaluate((el) => el.scrollWidth <= el.clientWidth + 1), 'the card line overflows');
    await screenshot('5-narrow');
  });
});
