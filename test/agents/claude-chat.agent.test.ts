/**
 * The real Claude Code (claude-code-acp 0.16.2, pinned, from the cache scripts/provision-agents.mjs
 * fills) in the chat of a real VS Code (code-server, Chromium driven by playwright-core), against
 * the fake Anthropic endpoint (test/support/agents/fake-anthropic.ts). Configured in
 * `clientTools.agents` with its preset's program (so it gets the preset's launch) and picked in the
 * chat. One conversation: it reads a file (the editor's ReadFile card), writes a change reviewed per
 * hunk with one hunk rejected (the disk has exactly the kept hunk), runs a command the user denies
 * with a reason (the reason is in the model's next request) and then one the user allows, calls an
 * editor tool through the injected MCP server; in a second turn Stop while a prompt waits closes the
 * prompt and cancels the agent; after a window reload the conversation is listed and continues in
 * the agent's resumed session (the model's next request carries the earlier turns).
 *
 * The setup is the shared driver (test/support/agents/chat-ui.ts). Screenshots go to test-results/claude-chat-*.png.
 *
 * Run: node esbuild.mjs && npx mocha --no-config --require tsx/cjs --extension ts --timeout 600000 --exit test/agents/claude-chat.agent.test.ts
 */
import assert from 'node:assert/strict';
import type { AgentStep } from '../support/agents/script';
import { startAgentChat, type AgentChat } from '../support/agents/chat-ui';

const AGENT = 'Claude Code';
const REASON = 'not this one, say allowed-run';

describe('real agent in the chat: Claude Code (claude-code-acp) in a real VS Code, offline', function () {
  this.timeout(600_000);
  let stop: (() => Promise<void>) | undefined;
  let ui: AgentChat;

  before(async function () {
    const started = await startAgentChat({ agent: 'claude', label: AGENT, bin: '.bin/claude-code-acp', args: [], steps });
    stop = started.stop;
    ui = started.chat as AgentChat;
  });

  after(async () => {
    await stop?.();
  });

  /** The model's script, one reply per step, counted over the whole conversation (script.ts). */
  function steps(notes: string): AgentStep[] {
    const file = () => notes;
    return [
      { tool: 'mcp__acp__Read', args: { file_path: file() } },
      { tool: 'mcp__acp__Write', args: { file_path: file(), content: 'ALPHA\nbeta\ngamma\ndelta\nEPSILON\n' } },
      { tool: 'mcp__acp__Bash', args: { command: 'echo denied-run', description: 'Say something', timeout: 20000 } },
      { tool: 'mcp__acp__Bash', args: { command: 'echo allowed-run', description: 'Say something', timeout: 20000 } },
      { tool: 'GetWorkspaceFolders', args: {} },
      { text: 'All done with the notes.' },
      // The second turn: a command whose prompt waits until Stop.
      { tool: 'mcp__acp__Bash', args: { command: 'touch never-run', description: 'Make a file', timeout: 20000 } },
      // Never asked for: the second turn is cancelled while its command waits for the user.
      { text: 'The cancelled turn went on.' },
      // After the reload, in the resumed session (which adds Claude Code's own reply to the interruption).
      { text: 'Carrying on where we left off.' },
    ];
  }

  it('picked in the chat: reads, writes with one hunk rejected, a command denied with a reason then one allowed, an editor tool', async () => {
    const { chat, model } = ui;
    await ui.pick();

    const turn = await chat.send('Tidy up my notes.', ['ReadFile', 'OpenDiff', 'RunInTerminal', 'GetWorkspaceFolders']);

    // The read: the editor's ReadFile card, named after the agent; the model got the file.
    const readCard = turn.card('ReadFile');
    await chat.waitForCardStatus(readCard, 'succeeded', 90_000);
    assert.equal(await readCard.locator('.caller-badge').textContent(), AGENT);
    assert.match((await model.requests.waitForStep(1)).toolResults.at(-1) ?? '', /alpha\s*\n?.*beta/s);
    await ui.screenshot('1-read');

    // The write: the agent's own permission request (the file and its diff), then the per-hunk review.
    const asked = await ui.promptMatching(/Let Claude Code create notes\.txt\?/);
    assert.match(asked, /\+ALPHA\n\+beta\n\+gamma\n\+delta\n\+EPSILON/);
    await chat.approvalButton('Allow').click();
    await ui.rejectSecondHunk(turn.card('OpenDiff').locator('section.review'), 'keep the last line');
    assert.match((await model.requests.waitForStep(2)).toolResults.at(-1) ?? '', /kept hunks 1; rejected hunks 2.*keep the last line/);

    // The denied command: the agent's permission request names it exactly; allowed, the editor's
    // RunInTerminal asks again with the exact command line, and is denied with a reason.
    assert.match(await ui.promptMatching(/Let Claude Code run echo denied-run/), /Command: echo denied-run/);
    await chat.approvalButton('Allow').click();
    assert.match(await ui.promptMatching(/Run echo denied-run in the workspace folder\?/), /Asked for by Claude Code, the agent of this conversation\./);
    await chat.approval.locator('input.approval-reason').fill(REASON);
    await ui.screenshot('3-command-asked');
    await chat.approvalButton('Deny').click();
    assert.match((await model.requests.waitForStep(3)).toolResults.at(-1) ?? '', new RegExp(REASON));

    // The allowed command runs in the editor's terminal and its output reaches the model.
    await ui.promptMatching(/Let Claude Code run echo allowed-run/);
    await chat.approvalButton('Allow').click();
    await ui.promptMatching(/Run echo allowed-run in the workspace folder\?/);
    await chat.approvalButton('Allow').click();
    assert.match((await model.requests.waitForStep(4)).toolResults.at(-1) ?? '', /allowed-run/);

    // The editor's own tool, through the MCP server injected in session/new: its card names the agent.
    await ui.editorToolThenDone(turn, 5);
  });

  it('Stop while a prompt waits: the prompt goes away and the agent is cancelled', async () => {
    // The agent asked the model once for this turn, and not again once cancelled; nothing ran.
    await ui.stopWhilePromptWaits(6);
  });

  it('after a window reload the conversation is listed and continues in the resumed session', async () => {
    const { chat, model } = ui;
    const before = model.requests.main.length;
    await ui.reloadAndListHistory('Tidy up my notes.', ['Tidy up my notes.', 'Make a file.'], 'All done with the notes.');
    // The status line names the agent (and its mode once the agent reports one: "Claude Code · Default").
    assert.match((await chat.frame.locator('.model-name').innerText()).trim(), /^Claude Code( · \w+)?$/);

    const turn = await chat.send('Carry on.', []);
    assert.match(await chat.waitForAnswer(turn.answer(), 90_000), /Carrying on where we left off\./);
    await chat.waitForIdle();
    // The agent's resumed session: the model's request carries both earlier turns, the cancelled
    // tool call answered with the cancel's AbortError (step 7 was never asked for: the cancelled turn
    // did not go on). Claude Code may also add its own "[Request interrupted by user for tool use]"
    // line, but whether it reaches the saved session before the reload ends the agent is its own race
    // (CI saw it missing once, with the AbortError result present), so it is not asserted.
    const resumed = model.requests.main.slice(before);
    assert.deepEqual(resumed.map((r) => r.replies), [8]);
    const results = resumed[0]?.toolResults ?? [];
    assert.ok(results.some((t) => /allowed-run/.test(t)), JSON.stringify(results));
    assert.ok(results.some((t) => /AbortError/.test(t)), JSON.stringify(results));
    assert.match(JSON.stringify(resumed[0]?.body.messages), /Make a file\./);
    assert.equal(await chat.frame.locator('.event.notice', { hasText: 'Started a new session' }).count(), 0);
    await ui.screenshot('8-continued');
  });
});
