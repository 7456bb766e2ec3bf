/**
 * The real opencode (1.18.33, pinned, from the cache) in the chat of a real VS Code, against the fake
 * OpenAI chat endpoint (test/support/agents/fake-openai-agents.ts), through the shared driver
 * (test/support/agents/chat-ui.ts) with the steps of claude-chat.agent.test.ts. Configured in
 * `clientTools.agents` as its package's `opencode acp`, so it gets its preset's launch (it asks
 * before every read, edit and command). What differs from Claude Code, asserted as it is: the read
 * and the commands run inside opencode once allowed (no ReadFile card, no editor terminal); it writes
 * with its own tool once its own prompt is allowed, and the fs/write_text_file it sends alongside
 * (without waiting for it) races that write and mostly finds it done, so there is no per-hunk review
 * (when the review does open, what it keeps is written after the fact, unknown to its model); a denial
 * ends its turn, and the chat then sends the reason as its next prompt (its own tool result carries
 * none); Stop leaves its waiting call "failed".
 * Screenshots go to test-results/opencode-chat-*.png.
 *
 * Run: node esbuild.mjs && npx mocha --no-config --require tsx/cjs --extension ts --timeout 600000 --exit test/agents/opencode-chat.agent.test.ts
 */
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import type { AgentStep } from '../support/agents/script';
import { startAgentChat, type AgentChat } from '../support/agents/chat-ui';
import { waitUntil } from '../e2e/support/chat-driver';

const AGENT = 'opencode';
const REASON = 'not this one, say allowed-run';
/** The reason as the chat sends it to the agent (src/agents/declinedReasons.ts), as it stands in a JSON request body. */
const DELIVERED = JSON.stringify(`The user declined your request to run a command, with this reason: "${REASON}"`).slice(1, -1);

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

  it('picked in the chat: reads (in opencode, once allowed); writes the whole change with its own tool after its own prompt (no per-hunk review as a rule: the editor\'s OpenDiff races that write and mostly finds it unchanged; when it opens, opencode\'s own write may still land after it and its model never hears what was kept); a denied command ends its turn and the chat sends the reason as its next prompt, shown as a card (its own tool result has none), so the next command is allowed in that turn (in opencode\'s shell); an editor tool', async () => {
    const { chat, model } = ui;
    await ui.pick();
    const turn = await chat.send('Tidy up my notes.', ['OpenDiff', 'bash', 'GetWorkspaceFolders']);

    await ui.promptMatching(/Let opencode read notes\.txt\?/);
    await ui.screenshot('1-read-asked');
    await chat.approvalButton('Allow').click();
    assert.match((await model.requests.waitForStep(1)).toolResults.at(-1) ?? '', /alpha\s*\n?.*beta/s);

    // The write: opencode's permission request with its diff (both hunks). Once allowed, opencode
    // writes the whole change with its own tool and tells its model so; the fs/write_text_file it
    // sends alongside (without waiting for it) races that write. Usually it finds the file already
    // changed: the editor's OpenDiff is "Unchanged", no per-hunk review. When it reads the file
    // first, the review opens after the fact; what it keeps is written, but opencode's own write may
    // land after it (seen in CI), and its model never hears what was kept: the review does not
    // decide what reaches the disk for opencode.
    const asked = await ui.promptMatching(/Let opencode change notes\.txt\?/);
    assert.match(asked, /\+ALPHA[\s\S]*\+EPSILON/);
    await chat.approvalButton('Allow').click();
    assert.match((await model.requests.waitForStep(2)).toolResults.at(-1) ?? '', /Wrote file successfully/);
    const diffCard = turn.card('OpenDiff');
    await diffCard.waitFor({ timeout: 30_000 });
    await waitUntil(async () => /status-succeeded|review-open/.test((await diffCard.getAttribute('class')) ?? ''), {
      describe: async () => `the OpenDiff card is ${await diffCard.getAttribute('class')}`,
    });
    if (/review-open/.test((await diffCard.getAttribute('class')) ?? '')) {
      await ui.rejectSecondHunk(diffCard.locator('section.review'), 'keep the last line', ['ALPHA\nbeta\ngamma\ndelta\nEPSILON\n']);
      // What the review kept is written, unless opencode's own write landed while the review was
      // open: then the editor's check finds the file changed since the review and writes nothing.
      await waitUntil(async () => /status-(succeeded|failed)/.test((await diffCard.getAttribute('class')) ?? ''), {
        describe: async () => `the OpenDiff card is ${await diffCard.getAttribute('class')}`,
      });
      if (/status-failed/.test((await diffCard.getAttribute('class')) ?? '')) {
        assert.match(await diffCard.innerText(), /its content changed since you reviewed it; nothing was done/);
        assert.equal(fs.readFileSync(ui.notes, 'utf8'), 'ALPHA\nbeta\ngamma\ndelta\nEPSILON\n');
      }
    } else {
      assert.match(await diffCard.innerText(), /Unchanged/);
      assert.equal(await chat.frame.locator('section.review').count(), 0);
      assert.equal(fs.readFileSync(ui.notes, 'utf8'), 'ALPHA\nbeta\ngamma\ndelta\nEPSILON\n');
    }

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
    assert.deepEqual(model.requests.main.map((r) => r.replies), [0, 1, 2, 3], 'the reason is in the model\'s very next request');
    const sent = chat.frame.locator('.tool-card', { hasText: 'Your reason, sent to opencode' });
    await sent.waitFor({ timeout: 30_000 });
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
