/**
 * A real agent in the chat of a real VS Code (code-server, Chromium driven by playwright-core),
 * against its fake model endpoint: the fixture workspace with `notes.txt`, the agent configured in
 * `clientTools.agents` with its installed package's own bin (so it gets its preset's launch), the
 * chat opened and the agent picked. Shared by the test/agents/*-chat.agent.test.ts files, one per
 * agent; each writes its own script and asserts what its agent does at each step.
 */
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import type { Page } from 'playwright-core';
import { ChatDriver, RESULTS_DIR, waitUntil } from '../../e2e/support/chat-driver';
import { launchAgent, type AgentLaunch, type AgentName } from './agent-launch';
import type { AgentStep, ModelRequest } from './script';

const ROOT = path.resolve(__dirname, '../../..');
export const NOTES = 'alpha\nbeta\ngamma\ndelta\nepsilon\n';

interface Harness {
  page: Page | null;
  logTail(lines?: number): string;
  stop(): Promise<void>;
}

export interface AgentChatOptions {
  agent: AgentName;
  /** The name it has in `clientTools.agents` (the picker's label, the cards' caller). */
  label: string;
  /** Its program, relative to the installed package's node_modules (`.bin/gemini`), and the arguments the user would configure. */
  bin: string;
  args: string[];
  /** The model's script, given the workspace's notes.txt. */
  steps(notes: string): AgentStep[];
}

export class AgentChat {
  constructor(
    readonly options: AgentChatOptions,
    readonly page: Page,
    readonly chat: ChatDriver,
    readonly launch: AgentLaunch,
    readonly workspace: string,
    readonly notes: string,
  ) {}

  get model() {
    return this.launch.model;
  }

  screenshot(name: string): Promise<Buffer> {
    return this.page.screenshot({ path: path.join(RESULTS_DIR, `${this.options.agent}-chat-${name}.png`) });
  }

  history() {
    return this.chat.frame.locator('section.history');
  }

  /**
   * The editor's own tool, through the MCP server injected in session/new: its card succeeds and names
   * the agent, the model's request at `step` carries the workspace folder; then the turn's last answer.
   */
  async editorToolThenDone(turn: { card(tool: string): ReturnType<Page['locator']>; answer(): ReturnType<Page['locator']> }, step: number): Promise<void> {
    const toolCard = turn.card('GetWorkspaceFolders');
    await this.chat.waitForCardStatus(toolCard, 'succeeded', 60_000);
    assert.equal(await toolCard.locator('.caller-badge').textContent(), this.options.label);
    assert.ok((await this.model.requests.waitForStep(step)).toolResults.at(-1)?.includes(path.basename(this.workspace)));
    assert.match(await this.chat.waitForAnswer(turn.answer(), 60_000), /All done with the notes\./);
    await this.chat.waitForIdle();
    await this.screenshot('4-done');
  }

  /**
   * Stop while the prompt for `touch never-run` waits: the prompt goes away, the agent's card of the
   * command ends cancelled, the model was asked once for the turn (reply `reply`) and not again, and
   * nothing ran.
   */
  async stopWhilePromptWaits(reply: number): Promise<void> {
    const { chat, model } = this;
    const before = model.requests.main.length;
    await chat.send('Make a file.', []);
    await this.promptMatching(new RegExp(`Let ${this.options.label} run touch never-run`));
    await this.screenshot('5-before-stop');
    await chat.stopButton.click();
    await chat.approval.waitFor({ state: 'hidden', timeout: 30_000 });
    await chat.waitForIdle(30_000);
    const card = chat.frame.locator('.tool-card').last();
    await chat.waitForCardStatus(card, 'cancelled');
    assert.match(await card.innerText(), new RegExp(this.options.label));
    await this.screenshot('6-stopped');
    assert.deepEqual(model.requests.main.slice(before).map((r) => r.replies), [reply]);
    assert.equal(fs.existsSync(path.join(this.workspace, 'never-run')), false);
  }

  /** Waits for the chat's permission prompt whose text matches `expected`, and returns its text. */
  async promptMatching(expected: RegExp): Promise<string> {
    let text = '';
    try {
      await waitUntil(async () => {
        if (!(await this.chat.approval.isVisible())) return false;
        text = await this.chat.approval.innerText().catch(() => '');
        return expected.test(text);
      }, { timeoutMs: 60_000, describe: () => `no prompt matching ${expected}; the chat shows ${JSON.stringify(text)}` });
    } catch (e) {
      await this.screenshot('no-prompt').catch(() => undefined);
      throw e;
    }
    return text;
  }

  /** Picks the agent in the chat's picker; the status line names it. */
  async pick(): Promise<void> {
    const picker = this.chat.frame.locator('select.agent-picker');
    await picker.waitFor({ state: 'visible', timeout: 30_000 });
    await picker.selectOption({ label: this.options.label });
    await waitUntil(async () => (await this.chat.frame.locator('.model-name').innerText()).trim() === this.options.label, {
      describe: async () => `the status line names "${await this.chat.frame.locator('.model-name').innerText()}"`,
    });
  }

  /**
   * The per-hunk review of the turn's OpenDiff card: rejects hunk 2 with a reason and accepts the rest;
   * notes.txt then holds the kept hunk, or one of `alsoAccepted` (an agent that writes on its own too).
   */
  async rejectSecondHunk(review: ReturnType<Page['locator']>, reason: string, alsoAccepted: readonly string[] = []): Promise<void> {
    await review.waitFor({ timeout: 60_000 });
    assert.equal(await review.locator('li.hunk').count(), 2, await review.innerText());
    await review.getByRole('button', { name: 'Reject hunk 2', exact: true }).click();
    await review.locator('li.hunk-rejected').waitFor({ timeout: 30_000 });
    await review.locator('input.review-reason').fill(reason);
    await this.screenshot('2-hunk-rejected');
    await review.getByRole('button', { name: 'Accept', exact: true }).click();
    await waitUntil(() => ['ALPHA\nbeta\ngamma\ndelta\nepsilon\n', ...alsoAccepted].includes(fs.readFileSync(this.notes, 'utf8')), {
      describe: () => `notes.txt is ${JSON.stringify(fs.readFileSync(this.notes, 'utf8'))}`,
    });
  }

  /**
   * Reloads the window, opens the history: the one conversation is listed; closes it again and waits
   * until the transcript shows `userTexts` and `lastAnswer` (so a turn begun next counts its answers).
   */
  async reloadAndListHistory(title: string, userTexts: string[], lastAnswer: string): Promise<void> {
    await this.page.reload();
    await this.page.locator('.monaco-workbench').waitFor({ timeout: 60_000 });
    await this.chat.frame.locator('.conn-dot.conn-connected').waitFor({ timeout: 60_000 });
    await this.chat.openHistory();
    await this.history().waitFor({ state: 'visible', timeout: 10_000 });
    assert.deepEqual(await this.history().locator('.thread-row .thread-title').allInnerTexts(), [title]);
    await this.screenshot('7-history');
    await this.history().locator('button.history-close').click();
    await waitUntil(async () => (await this.chat.frame.locator('.msg.user .user-text').allInnerTexts()).join('|') === userTexts.join('|'), {
      describe: async () => `after the reload the transcript shows ${JSON.stringify(await this.chat.frame.locator('.msg.user .user-text').allInnerTexts())}`,
    });
    await this.chat.answers().filter({ hasText: lastAnswer }).last().waitFor({ timeout: 30_000 });
  }

  /**
   * After the first turns (`Tidy up my notes.`, `Make a file.`): reloads the window, finds the
   * conversation listed, says `Carry on.` and waits for the agent's `Carrying on where we left off.`;
   * no new session was announced. Returns the model's requests of that last turn.
   */
  async reloadAndContinue(): Promise<ModelRequest[]> {
    const { chat, model } = this;
    const before = model.requests.main.length;
    await this.reloadAndListHistory('Tidy up my notes.', ['Tidy up my notes.', 'Make a file.'], 'All done with the notes.');
    const turn = await chat.send('Carry on.', []);
    assert.match(await chat.waitForAnswer(turn.answer(), 90_000), /Carrying on where we left off\./);
    await chat.waitForIdle();
    assert.equal(await chat.frame.locator('.tool-card, .event.notice').filter({ hasText: 'Started a new session' }).count(), 0);
    await this.screenshot('8-continued');
    return model.requests.main.slice(before);
  }
}

/** Starts the agent's fake model, VS Code with the agent configured, and opens the chat. */
export async function startAgentChat(options: AgentChatOptions): Promise<{ chat?: AgentChat; stop(): Promise<void> }> {
  for (const built of ['dist/extension.js', 'media/chat.js']) {
    assert.ok(fs.existsSync(path.join(ROOT, built)), `${built} is missing: run \`node esbuild.mjs\` first`);
  }
  fs.mkdirSync(RESULTS_DIR, { recursive: true });
  // @ts-expect-error plain ESM script without types
  const { copyFixtureWorkspace } = (await import('../../../scripts/test-workspace.mjs')) as {
    copyFixtureWorkspace(): { workspace: string; cleanup: () => void };
  };
  // @ts-expect-error plain ESM script without types
  const { startVSCode } = (await import('../../../scripts/vscode-harness.mjs')) as {
    startVSCode(options: { workspace: string; settings: Record<string, unknown> }): Promise<Harness>;
  };
  let harness: Harness | undefined;
  let launch: AgentLaunch | undefined;
  const copy = copyFixtureWorkspace();
  let page: Page | undefined;
  const stop = async () => {
    if (page) await page.screenshot({ path: path.join(RESULTS_DIR, `${options.agent}-chat-last.png`) }).catch(() => undefined);
    await harness?.stop();
    await launch?.dispose();
    copy.cleanup();
  };
  try {
    const workspace = fs.realpathSync(copy.workspace);
    const notes = path.join(workspace, 'notes.txt');
    fs.writeFileSync(notes, NOTES);
    launch = await launchAgent(options.agent, options.steps(notes));
    // The installed package's own program (named as the preset's), so the extension gives it its preset's launch.
    // opencode's is its platform package's binary: opencode-ai's .bin is a stub until its postinstall runs, which provisioning skips.
    const entry = [...launch.args, launch.command].find((part) => part.includes(`${path.sep}node_modules${path.sep}`)) ?? '';
    const bin = path.join(entry.slice(0, entry.indexOf(`${path.sep}node_modules${path.sep}`)), 'node_modules', options.bin);
    assert.ok(fs.existsSync(bin), `${bin} is missing`);
    // `node` on the agent's PATH first: a bin's `#!/usr/bin/env node` runs the Node of this test.
    const env = { ...launch.env, PATH: `${path.dirname(process.execPath)}${path.delimiter}${launch.env.PATH}` };
    harness = await startVSCode({ workspace, settings: { 'clientTools.agents': [{ name: options.label, command: bin, args: options.args, env }] } });
    assert.ok(harness.page, 'the harness opened no page');
    page = harness.page;
    const chat = new ChatDriver(page);
    try {
      await chat.open();
    } catch (e) {
      await page.screenshot({ path: path.join(RESULTS_DIR, `${options.agent}-chat-failed-open.png`) }).catch(() => undefined);
      throw new Error(`the chat did not open: ${(e as Error).message}\ncode-server log:\n${harness.logTail(30)}`);
    }
    return { chat: new AgentChat(options, page, chat, launch, workspace, notes), stop };
  } catch (e) {
    await stop();
    throw e;
  }
}
