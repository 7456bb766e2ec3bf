/**
 * The real opencode (1.18.33, pinned, from the cache) in the chat of a real VS Code, against the fake
 * OpenAI chat endpoint (test/support/agents/fake-openai-agents.ts), through the shared driver
 * (test/support/agents/chat-ui.ts) with the steps of claude-chat.agent.test.ts. Configured in
 * `clientTools.agents` as its package's `opencode acp`, so it gets its preset's launch (it asks
 * before every read, edit and command). What differs from Claude Code, asserted as it is: the read
 * and the commands run inside opencode once allowed (no ReadFile card, no editor terminal); its edit's
 * permission request is the per-hunk review itself (src/agents/editReview.ts): with a hunk rejected,
 * opencode is rejected, the editor writes the kept hunk and the chat tells opencode which hunks it
 * wrote as its next prompt; a denial ends its turn, and the chat then sends the reason as its next
 * prompt (its own tool result carries none); Stop leaves its waiting call "failed".
 * Screenshots go to test-results/opencode-chat-*.png.
 *
 * Run: node esbuild.mjs && npx mocha --no-config --require tsx/cjs --extension ts --timeout 600000 --exit test/agents/opencode-chat.agent.test.ts
 */
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import type { AgentStep } from '../support/agents/script';
import { startAgentChat, type AgentChat } from '../support/agents/chat-ui';

const AGENT = 'opencode';
const REASON = 'not this one, say allowed-run';
/** The reason as the chat sends it to the agent (src/agents/declinedReasons.ts), as it stands in a JSON request body. */
const DELIVERED = JSON.stringify(`The user declined your request to run a command, with this reason: "${REASON}"`).slice(1, -1);
/** What the chat tells opencode of its write after the review kept hunk 1 only (declinedReasons.ts). */
const WRITTEN = JSON.stringify('The user reviewed your change to notes.txt hunk by hunk, so your own write did not happen: the editor wrote hunk 1 and not hunk 2, with this reason: "keep the last line".').slice(1, -1);

describe('real agent in the chat: opencode in a real VS Code, offline', function () {
  this.timeout(600_000);
  let stop: (() => Promise<void>) | undefined;
  let ui: AgentChat;

  before(async function () {
    const started = await startAgentChat({ agent: 'opencode', label: AGENT, bin: 'opencode-linux-x64/bin/opencode', args: ['acp'], steps });
    stop = started.stop;
    ui = started.chat as AgentChat;
  });

  after(async () => {
    await stop?.();
  });

  /** The model's script, one reply per step, counted over the whole conversation (script.ts). */
  function steps(notes: string): AgentStep[] {
    return [
      { tool: 'read', args: { filePath: notes } },
      { tool: 'write', args: { filePath: notes, content: 'ALPHA\nbeta\ngamma\ndelta\nEPSILON\n' } },
      { tool: 'bash', args: { command: 'echo denied-run', description: 'Say something' } },
      { tool: 'bash', args: { command: 'echo allowed-run', description: 'Say something' } },
      // The editor's tools are collapsed for opencode: its model expands the group first.
      { tool: 'Workspace', args: {} },
      { tool: 'GetWorkspaceFolders', args: {} },
      { text: 'All done with the notes.' },
      // The second turn: a command whose prompt waits until Stop.
      { tool: 'bash', args: { command: 'touch never-run', description: 'Make a file' } },
      { text: 'Carrying on where we left off.' },
    ];
  }

  it('picked in the chat: reads (in opencode, once allowed); its edit\'s permission request is the per-hunk review: hunk 2 rejected, only the kept hunk on disk, and its model\'s next request says which hunks were written; a denied command ends its turn and the chat sends the reason as its next prompt, shown as a card (its own tool result has none), so the next command is allowed in that turn (in opencode\'s shell); an editor tool', async () => {
    const { chat, model } = ui;
    await ui.pick();
    const turn = await chat.send('Tidy up my notes.', ['OpenDiff', 'bash', 'GetWorkspaceFolders']);

    await ui.promptMatching(/Let opencode read notes\.txt\?/);
    await ui.screenshot('1-read-asked');
    await chat.approvalButton('Allow').click();
    assert.match((await model.requests.waitForStep(1)).toolResults.at(-1) ?? '', /alpha\s*\n?.*beta/s);

    // The write: opencode's permission request with its diff is the editor's per-hunk review itself
    // (src/agents/editReview.ts; no other prompt): hunk 2 rejected with a reason. opencode is
    // rejected, so its own tool writes nothing; the editor writes the kept hunk; opencode ends its
    // turn at the rejection and the chat tells it which hunks it wrote as the next prompt, so its
    // model's very next request says so.
    const diffCard = turn.card('OpenDiff');
    await diffCard.waitFor({ timeout: 60_000 });
    assert.equal(await chat.approval.isVisible(), false, 'the review is the only question for the edit');
    await ui.rejectSecondHunk(diffCard.locator('section.review'), 'keep the last line');
    const told = await model.requests.waitForStep(2);
    assert.equal(told.toolResults.at(-1), 'The user rejected permission to use this specific tool call.');
    assert.ok(JSON.stringify(told.body).includes(WRITTEN), JSON.stringify(told.body).slice(-1500));
    assert.equal(fs.readFileSync(ui.notes, 'utf8'), 'ALPHA\nbeta\ngamma\ndelta\nepsilon\n', 'only the kept hunk reached the disk');

    // The denied command: opencode ends its turn at a denial, its tool result without the reason;
    // the chat sends the reason as the next prompt at once, and shows it as what it is (a card, not
    // a message of the user's).
    await ui.promptMatching(/Let opencode run echo denied-run/);
    await chat.approval.locator('input.approval-reason').fill(REASON);
    await ui.screenshot('3-command-asked');
    await chat.approvalButton('Deny').click();
    await chat.waitForCardStatus(turn.card('bash'), 'failed');
    const again = await model.requests.waitForStep(3);
    assert.equal(again.toolResults.at(-1), 'The user rejected permission to use this specific tool call.');
    assert.ok(JSON.stringify(again.body).includes(DELIVERED), JSON.stringify(again.body).slice(-1500));
    assert.deepEqual(model.requests.main.map((r) => r.replies), [0, 1, 2, 3], 'the hunks written and the reason are each in the model\'s very next request');
    const sent = chat.frame.locator('.tool-card', { hasText: 'Your reason, sent to opencode' });
    await sent.nth(1).waitFor({ timeout: 30_000 });
    assert.equal(await sent.count(), 2, 'one card for the hunks written, one for the reason');
    assert.deepEqual(await chat.frame.locator('.msg.user .user-text').allInnerTexts(), ['Tidy up my notes.']);
    await ui.screenshot('3-reason-sent');

    // The allowed command runs in opencode's own shell (no editor terminal); its output reaches the model.
    await ui.promptMatching(/Let opencode run echo allowed-run/);
    await chat.approvalButton('Allow').click();
    assert.match((await model.requests.waitForStep(4)).toolResults.at(-1) ?? '', /allowed-run/);

    await ui.editorToolThenDone(turn, 6);
  });

  it('Stop while a prompt waits: the prompt goes away and the agent is cancelled (opencode reports the waiting call as failed, not cancelled)', async () => {
    const { chat, model } = ui;
    const before = model.requests.main.length;
    await chat.send('Make a file.', []);
    await ui.promptMatching(/Let opencode run touch never-run/);
    await ui.screenshot('5-before-stop');
    await chat.stopButton.click();
    await chat.approval.waitFor({ state: 'hidden', timeout: 30_000 });
    await chat.waitForIdle(30_000);
    // opencode reports the call Stop cancelled as failed, so its card says Failed, not Cancelled.
    const card = chat.frame.locator('.tool-card').last();
    await chat.waitForCardStatus(card, 'failed');
    assert.match(await card.innerText(), /opencode/);
    await ui.screenshot('6-stopped');
    assert.deepEqual(model.requests.main.slice(before).map((r) => r.replies), [7]);
    assert.equal(fs.existsSync(path.join(ui.workspace, 'never-run')), false);
  });

  it('after a window reload the conversation is listed and continues in the loaded session', async () => {
    const resumed = await ui.reloadAndContinue();
    const results = resumed[0]?.toolResults ?? [];
    assert.ok(results.some((t) => /allowed-run/.test(t)), JSON.stringify(results));
  });
});
