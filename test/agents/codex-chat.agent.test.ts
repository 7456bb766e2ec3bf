/**
 * The real Codex (codex-acp 0.16.0, pinned, from the cache) in the chat of a real VS Code, against
 * the fake OpenAI Responses endpoint (test/support/agents/fake-openai-agents.ts), through the shared
 * driver (test/support/agents/chat-ui.ts) with the steps of claude-chat.agent.test.ts. Configured in
 * `clientTools.agents` as its package's `codex-acp`, so it gets its preset's launch (it asks before
 * every command it does not deem read-only), plus `sandbox_mode="danger-full-access"` in the entry's
 * own arguments: Codex's sandbox needs bubblewrap, which this machine lacks (every command would exit
 * 101), as a user without it would configure. What differs from Claude Code, asserted as it is (its
 * gaps, docs/AGENTS.md): its reads and commands run in Codex (no ReadFile card, no editor terminal);
 * a read-only command runs without asking; a patch's permission request is the per-hunk review (the
 * editor writes what was kept, Codex is rejected and told which hunks were written in its next
 * prompt); a denial aborts its turn (its model told only "aborted by user"), and the chat sends the
 * reason as its next prompt. Screenshots go to test-results/codex-chat-*.png.
 *
 * Run: node esbuild.mjs && npx mocha --no-config --require tsx/cjs --extension ts --timeout 600000 --exit test/agents/codex-chat.agent.test.ts
 */
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import type { AgentStep } from '../support/agents/script';
import { startAgentChat, type AgentChat } from '../support/agents/chat-ui';

const AGENT = 'Codex';
const REASON = 'not this one, say allowed-run';
/** The reason as the chat sends it to the agent (src/agents/declinedReasons.ts), as it stands in a JSON request body. */
const DELIVERED = JSON.stringify(`The user declined your request to run a command, with this reason: "${REASON}"`).slice(1, -1);
/** Two hunks: line 1 and line 5 of notes.txt. */
const PATCH = "apply_patch <<'EOF'\n*** Begin Patch\n*** Update File: notes.txt\n@@\n-alpha\n+ALPHA\n beta\n@@\n delta\n-epsilon\n+EPSILON\n*** End Patch\nEOF\n";
/** What the chat tells Codex of its patch after the review kept hunk 1 only (declinedReasons.ts). */
const TOLD = JSON.stringify('The user reviewed your change to notes.txt hunk by hunk, so your own write did not happen: the editor wrote hunk 1 and not hunk 2, with this reason: "keep the last line".').slice(1, -1);

describe('real agent in the chat: Codex in a real VS Code, offline', function () {
  this.timeout(600_000);
  let stop: (() => Promise<void>) | undefined;
  let ui: AgentChat;

  before(async function () {
    const started = await startAgentChat({
      agent: 'codex',
      label: AGENT,
      bin: '@zed-industries/codex-acp-linux-x64/bin/codex-acp',
      args: ['-c', 'sandbox_mode="danger-full-access"'],
      steps,
    });
    stop = started.stop;
    ui = started.chat as AgentChat;
  });

  after(async () => {
    await stop?.();
  });

  /** The model's script, one reply per step, counted over the whole conversation (script.ts). */
  function steps(): AgentStep[] {
    return [
      { tool: 'exec_command', args: { cmd: 'cat notes.txt' } },
      // A patch (Codex runs apply_patch given as a command as its own patch tool, and asks with the diff).
      { tool: 'exec_command', args: { cmd: PATCH } },
      { tool: 'exec_command', args: { cmd: 'touch denied-run' } },
      // The turn the chat sends with the reason, once Codex aborted its own at the denial.
      { tool: 'exec_command', args: { cmd: 'touch allowed-run' } },
      // The editor's tools are flat for Codex.
      { tool: 'GetWorkspaceFolders', args: {} },
      { text: 'All done with the notes.' },
      // The next turn: a command whose prompt waits until Stop.
      { tool: 'exec_command', args: { cmd: 'touch never-run' } },
      { text: 'Carrying on where we left off.' },
    ];
  }

  it('picked in the chat: reads on its own (a read-only command, no prompt); its patch\'s permission request is the per-hunk review: hunk 2 rejected, only the kept hunk on disk, and its model\'s next request says which hunks were written; a denied command aborts its turn and the chat sends the reason as its next prompt, where the next command is allowed (in Codex\'s own shell); an editor tool', async () => {
    const { chat, model } = ui;
    await ui.pick();
    const turn = await chat.send('Tidy up my notes.', ['GetWorkspaceFolders', 'OpenDiff']);

    // The read: `cat` is read-only for Codex, so it runs without asking; its output reaches the model.
    assert.match((await model.requests.waitForStep(1)).toolResults.at(-1) ?? '', /alpha\nbeta/);

    // The write is a patch: Codex's permission request with its diff is the editor's per-hunk review
    // itself (src/agents/editReview.ts, no other prompt): hunk 2 rejected with a reason. Codex is
    // rejected (its only way to decline aborts its turn), the editor writes the kept hunk, and the
    // chat tells Codex which hunks it wrote as the next prompt: in its model's very next request.
    const diffCard = turn.card('OpenDiff');
    await diffCard.waitFor({ timeout: 60_000 });
    assert.equal(await chat.approval.isVisible(), false, 'the review is the only question for the patch');
    await ui.rejectSecondHunk(diffCard.locator('section.review'), 'keep the last line');
    const written = await model.requests.waitForStep(2);
    assert.match(written.toolResults.at(-1) ?? '', /aborted by user/);
    assert.ok(JSON.stringify(written.body).includes(TOLD), JSON.stringify(written.body).slice(-1500));
    assert.equal(fs.readFileSync(ui.notes, 'utf8'), 'ALPHA\nbeta\ngamma\ndelta\nepsilon\n', 'only the kept hunk reached the disk');

    // The denied command: Codex's only way to decline aborts its turn, its model told only "aborted
    // by user"; the chat sends the reason as the next prompt at once, shown as a card, not as the user's.
    await ui.promptMatching(/Let Codex run \/bin\/bash -lc touch denied-run/);
    await chat.approval.locator('input.approval-reason').fill(REASON);
    await ui.screenshot('3-command-asked');
    await chat.approvalButton('Deny').click();
    const told = await model.requests.waitForStep(3);
    assert.match(told.toolResults.at(-1) ?? '', /aborted by user/);
    assert.ok(JSON.stringify(told.body).includes(DELIVERED), JSON.stringify(told.body).slice(-1500));
    assert.deepEqual(model.requests.main.map((r) => r.replies), [0, 1, 2, 3], 'the hunks written and the reason are each in the model\'s very next request');
    assert.doesNotMatch(JSON.stringify(model.requests.main[2]?.body), new RegExp(REASON));
    await chat.frame.locator('.tool-card', { hasText: 'Your reason, sent to Codex' }).nth(1).waitFor({ timeout: 30_000 });
    assert.deepEqual(await chat.frame.locator('.msg.user .user-text').allInnerTexts(), ['Tidy up my notes.']);
    assert.equal(fs.existsSync(path.join(ui.workspace, 'denied-run')), false);

    // The allowed command runs in Codex's own shell (no editor terminal).
    await ui.promptMatching(/Let Codex run \/bin\/bash -lc touch allowed-run/);
    await chat.approvalButton('Allow').click();
    await model.requests.waitForStep(4);
    assert.equal(fs.existsSync(path.join(ui.workspace, 'allowed-run')), true);

    // The editor's own tool: Codex asks its own permission, answered without a prompt; the card names it.
    const toolCard = turn.card('GetWorkspaceFolders');
    await chat.waitForCardStatus(toolCard, 'succeeded', 60_000);
    assert.equal(await toolCard.locator('.caller-badge').textContent(), AGENT);
    assert.ok((await model.requests.waitForStep(5)).toolResults.at(-1)?.includes(path.basename(ui.workspace)));
    // Codex's first answer of a session is its own notice about the fake model's metadata.
    await chat.answers().filter({ hasText: 'All done with the notes.' }).waitFor({ timeout: 60_000 });
    await chat.waitForIdle();
    assert.equal(ui.model.requests.main.length, 6);
    await ui.screenshot('4-done');
  });

  it('Stop while a prompt waits: the prompt goes away and the agent is cancelled', async () => {
    const { chat, model } = ui;
    const before = model.requests.main.length;
    await chat.send('Make a file.', []);
    await ui.promptMatching(/Let Codex run \/bin\/bash -lc touch never-run/);
    await ui.screenshot('5-before-stop');
    await chat.stopButton.click();
    await chat.approval.waitFor({ state: 'hidden', timeout: 30_000 });
    await chat.waitForIdle(30_000);
    const card = chat.frame.locator('.tool-card').last();
    await chat.waitForCardStatus(card, 'cancelled');
    await ui.screenshot('6-stopped');
    assert.deepEqual(model.requests.main.slice(before).map((r) => r.replies), [6]);
    assert.equal(fs.existsSync(path.join(ui.workspace, 'never-run')), false);
  });

  it('after a window reload the conversation is listed and continues in the resumed session', async () => {
    const resumed = await ui.reloadAndContinue();
    const history = JSON.stringify(resumed[0]?.body);
    for (const said of ['Tidy up my notes.', 'Make a file.', 'Carry on.', DELIVERED]) assert.ok(history.includes(said), `${said} is not in ${history.slice(-2000)}`);
  });
});
