/**
 * The real Gemini CLI (0.61.0, pinned, from the cache) in the chat of a real VS Code, against the
 * fake Gemini API (test/support/agents/fake-gemini.ts), through the shared driver
 * (test/support/agents/chat-ui.ts) with the steps of claude-chat.agent.test.ts. Configured in
 * `clientTools.agents` as its package's `gemini --acp`, so it gets its preset's launch (the admin
 * policy that asks before every read and command). What differs from Claude Code, asserted as it is:
 * the read and the commands run inside Gemini CLI once allowed (no ReadFile card, no editor
 * terminal); the reason of a denial is not in its tool result and Gemini CLI would go on with its
 * turn, so a Deny with a reason ends the turn (its preset's endTurnAtReasonedDeny) and the chat sends
 * the reason as the next prompt at once; after a partial write its model learns only that the write
 * failed. Screenshots go to test-results/gemini-chat-*.png.
 *
 * Run: node esbuild.mjs && npx mocha --no-config --require tsx/cjs --extension ts --timeout 600000 --exit test/agents/gemini-chat.agent.test.ts
 */
import assert from 'node:assert/strict';
import path from 'node:path';
import type { AgentStep } from '../support/agents/script';
import { startAgentChat, type AgentChat } from '../support/agents/chat-ui';

const AGENT = 'Gemini CLI';
const REASON = 'not this one, say allowed-run';
/** The reason as the chat sends it to the agent (src/agents/declinedReasons.ts), as it stands in a JSON request body. */
const DELIVERED = JSON.stringify(`The user declined your request to run a command, with this reason: "${REASON}"`).slice(1, -1);

describe('real agent in the chat: Gemini CLI in a real VS Code, offline', function () {
  this.timeout(600_000);
  let stop: (() => Promise<void>) | undefined;
  let ui: AgentChat;

  before(async function () {
    const started = await startAgentChat({ agent: 'gemini', label: AGENT, bin: '.bin/gemini', args: ['--acp'], steps });
    stop = started.stop;
    ui = started.chat as AgentChat;
  });

  after(async () => {
    await stop?.();
  });

  /** The model's script, one reply per step, counted over the whole conversation (script.ts). */
  function steps(notes: string): AgentStep[] {
    const folder = path.dirname(notes);
    return [
      { tool: 'read_file', args: { file_path: notes } },
      { tool: 'write_file', args: { file_path: notes, content: 'ALPHA\nbeta\ngamma\ndelta\nEPSILON\n' } },
      { tool: 'run_shell_command', args: { command: 'echo denied-run', dir_path: folder } },
      // Denied with a reason: the turn ends there; the chat sends the reason, whose request gets this step.
      { tool: 'run_shell_command', args: { command: 'echo allowed-run', dir_path: folder } },
      // The editor's tools are collapsed for Gemini CLI: its model expands the group first.
      { tool: 'Workspace', args: {} },
      { tool: 'GetWorkspaceFolders', args: {} },
      { text: 'All done with the notes.' },
      // The next turn: a command whose prompt waits until Stop.
      { tool: 'run_shell_command', args: { command: 'touch never-run', dir_path: folder } },
      // After the reload, in the loaded session (the Stop test asserts the cancelled turn never asked for more).
      { text: 'Carrying on where we left off.' },
    ];
  }

  it('picked in the chat: reads (in Gemini, once allowed), writes with one hunk rejected (its model learns only that the write failed), a command denied with a reason (the turn ends there and the reason is in its model\'s very next request, sent by the chat) then one allowed (in Gemini\'s shell), an editor tool', async () => {
    const { chat, model } = ui;
    await ui.pick();

    const turn = await chat.send('Tidy up my notes.', ['OpenDiff', 'GetWorkspaceFolders']);

    // The read: Gemini's own permission request names the file; allowed, Gemini reads it itself.
    await ui.promptMatching(/Let Gemini CLI read notes\.txt\?/);
    await ui.screenshot('1-read-asked');
    await chat.approvalButton('Allow').click();
    assert.match((await model.requests.waitForStep(1)).toolResults.at(-1) ?? '', /alpha\s*\n?.*beta/s);

    // The write: Gemini's permission request with its diff, then the per-hunk review of the editor.
    const asked = await ui.promptMatching(/Let Gemini CLI change notes\.txt\?/);
    assert.match(asked, /\+ALPHA/);
    await chat.approvalButton('Allow').click();
    await ui.rejectSecondHunk(turn.card('OpenDiff').locator('section.review'), 'keep the last line');
    // Gemini CLI 0.61 shows a client's error to its model as "[object Object]" (docs/AGENTS.md).
    assert.match((await model.requests.waitForStep(2)).toolResults.at(-1) ?? '', /Error writing to file/);

    // The denied command: Gemini's permission request names it exactly. Gemini CLI would tell its
    // model only that the user cancelled the call and go on, so a Deny with a reason ends its turn
    // (not as Stop: the turn's card says why) and the chat sends the reason as the next prompt at
    // once, shown as what it is (a card, not a message of the user's): the model's very next request
    // after the denial carries it.
    await ui.promptMatching(/Let Gemini CLI run echo denied-run/);
    await chat.approval.locator('input.approval-reason').fill(REASON);
    await ui.screenshot('3-command-asked');
    await chat.approvalButton('Deny').click();
    const told = await model.requests.waitForStep(3);
    assert.ok(JSON.stringify(told.body).includes(DELIVERED), JSON.stringify(told.body).slice(-1500));
    assert.deepEqual(model.requests.main.map((r) => r.replies), [0, 1, 2, 3], 'the reason is in the model\'s very next request after the denial');
    await chat.frame.locator('.tool-card', { hasText: 'Turn ended at your Deny' }).waitFor({ timeout: 30_000 });
    await chat.frame.locator('.tool-card', { hasText: 'Your reason, sent to Gemini CLI' }).waitFor({ timeout: 30_000 });
    assert.deepEqual(await chat.frame.locator('.msg.user .user-text').allInnerTexts(), ['Tidy up my notes.']);
    assert.equal(await chat.frame.locator('.event.notice', { hasText: 'Stopped.' }).count(), 0, 'the turn ended at the Deny is not the user\'s Stop');
    await ui.screenshot('3-reason-sent');

    // The allowed command runs in Gemini's own shell (no editor prompt or terminal); its output reaches the model.
    await ui.promptMatching(/Let Gemini CLI run echo allowed-run/);
    await chat.approvalButton('Allow').click();
    assert.match((await model.requests.waitForStep(4)).toolResults.at(-1) ?? '', /allowed-run/);

    // The editor's own tool, through the MCP server injected in session/new: its card names the agent.
    await ui.editorToolThenDone(turn, 6);
    assert.deepEqual(model.requests.main.map((r) => r.replies), [0, 1, 2, 3, 4, 5, 6], 'no request more: the reason went once');
    assert.equal(await chat.frame.locator('.tool-card', { hasText: 'Your reason, sent to Gemini CLI' }).count(), 1);
  });

  it('Stop while a prompt waits: the prompt goes away and the agent is cancelled', async () => {
    await ui.stopWhilePromptWaits(7);
  });

  it('after a window reload the conversation is listed and continues: in the loaded session (regrouped: the calls of a turn in one model message, the cancelled call dropped) or, when Gemini CLI fails to load it, in a new session the chat announces', async () => {
    const { chat, model } = ui;
    const before = model.requests.main.length;
    await ui.reloadAndListHistory('Tidy up my notes.', ['Tidy up my notes.', 'Make a file.'], 'All done with the notes.');
    assert.match((await chat.frame.locator('.model-name').innerText()).trim(), /^Gemini CLI( · \w+)?$/);
    // Gemini CLI's loaded session holds the earlier turns regrouped, so its model is asked with 1 to
    // 8 replies in the history; a new session has none.
    model.setSteps([{ text: 'Carrying on in a new session.' }, ...Array.from({ length: 8 }, () => ({ text: 'Carrying on where we left off.' }))]);

    const turn = await chat.send('Carry on.', []);
    const answer = await chat.waitForAnswer(turn.answer(), 90_000);
    await chat.waitForIdle();
    const resumed = model.requests.main.slice(before);
    const history = JSON.stringify(resumed[0]?.body.contents);
    assert.equal(resumed.length, 1, history.slice(-2000));
    const announced = await chat.frame.locator('.tool-card, .event.notice').filter({ hasText: 'Started a new session' }).count();
    await ui.screenshot('8-continued');
    if (resumed[0]?.replies === 0) {
      // Gemini CLI 0.61 could not load its session: the chat says the agent does not remember.
      assert.match(answer, /Carrying on in a new session\./);
      assert.equal(announced, 1);
      return;
    }
    // The loaded session: the model's request carries the earlier turns and their results; the call
    // cancelled by Stop is not among them; no new session was announced.
    assert.match(answer, /Carrying on where we left off\./);
    assert.equal(announced, 0);
    const results = resumed[0]?.toolResults ?? [];
    assert.ok(results.some((t) => /allowed-run/.test(t)), JSON.stringify(results));
    for (const said of ['Tidy up my notes.', 'Make a file.', 'Carry on.']) assert.ok(history.includes(said), `${said} is not in ${history.slice(-2000)}`);
    assert.doesNotMatch(history, /never-run/);
  });
});
