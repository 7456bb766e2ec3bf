/**
 * RunInTerminal as a user meets it, in a real VS Code (code-server) driven by a real Chromium: the
 * extension with default settings starts its bundled backend with the offline demo model; the user
 * asks in the chat to run a command; a modal names the exact command; Allow runs exactly that
 * command in a terminal of its own, named after the command, which shows a dim header, the command
 * in bold, its output and a dim exit line, and the chat reports the exit code and output. Deny runs
 * nothing and opens no terminal. One VS Code for both cases; Deny goes first, so a terminal the
 * panel shows afterwards can only be the allowed command's.
 *
 * The terminal is read from the DOM: `terminal.integrated.gpuAcceleration: off` makes xterm render
 * its rows as HTML instead of on a canvas, with `xterm-dim` and `xterm-bold` on styled text.
 *
 * Screenshots go to test-results/run-in-terminal-*.png.
 *
 * Run alone: npm run build && npx mocha --no-config --require tsx/cjs --timeout 300000 test/e2e/run-in-terminal.e2e.test.ts
 */
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import type { Locator } from 'playwright-core';
import { MODAL_PROMPTS, modalDialog, waitUntil } from './support/chat-driver';
import { useDemoChatSession } from './support/demo-session';

const escapeRegExp = (s: string): string => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

describe('RunInTerminal through the permission modal and its own terminal, asked for in the chat (offline demo model)', function () {
  this.timeout(300_000);
  const session = useDemoChatSession('run-in-terminal', { 'terminal.integrated.gpuAcceleration': 'off', ...MODAL_PROMPTS });
  const dialog = (): Locator => modalDialog(session.page);
  const terminalRows = (): Locator => session.page.locator('.part.panel .xterm-rows');
  /** The text of the terminal panel's visible rows. */
  const terminalText = async (): Promise<string> => (await terminalRows().allInnerTexts()).join('\n');
  const terminals = (): Locator => session.page.locator('.part.panel .xterm');
  /** With one terminal open, the panel's title bar shows its name. */
  const terminalTab = (): Locator => session.page.locator('.part.panel .single-terminal-tab');

  /** The modal names the exact command, in its message and in its detail. */
  async function assertPromptNames(command: string): Promise<void> {
    await dialog().waitFor({ timeout: 30_000 });
    assert.equal((await dialog().locator('.dialog-message-text').textContent())?.trim(), `Run \`${command}\` in the ${path.basename(session.workspace)} folder?`);
    assert.match((await dialog().locator('.dialog-message-detail').textContent()) ?? '', new RegExp(`Command:\\s*${escapeRegExp(command)}\\s*Folder:`));
  }

  it('Deny runs nothing: the modal names the exact command, no terminal opens, and the chat says it was not run', async () => {
    const marker = path.join(session.workspace, 'ran.txt');
    const command = 'echo denied > ran.txt';
    const turn = await session.chat.send(`run \`${command}\``, ['RunInTerminal']);

    await assertPromptNames(command);
    assert.match(await session.chat.waitForCardStatus(turn.card('RunInTerminal'), 'awaiting-permission'), /Awaiting permission/);
    await session.screenshot('1-asked');
    await dialog().getByRole('button', { name: 'Deny', exact: true }).click();

    assert.match(await session.chat.waitForCardStatus(turn.card('RunInTerminal'), 'denied'), /Denied/);
    assert.match(await session.chat.waitForAnswer(turn.answer()), /You declined, so I did not run echo denied > ran\.txt\./);
    await session.chat.waitForIdle();
    assert.equal(fs.existsSync(marker), false, 'the command ran although the user clicked Deny');
    // The terminal is created before the command starts, so a run would have left one behind by now.
    assert.equal(await terminals().count(), 0, 'a terminal opened although the user clicked Deny');
    await session.screenshot('2-denied');
  });

  it('Allow runs exactly that command in a terminal named after it, which shows a dim header, the command in bold, its output and a dim exit line; the chat reports exit code and output', async () => {
    const command = 'echo hello-from-the-agent && echo $((6*7)) > answer.txt && (exit 4)';
    const turn = await session.chat.send(`run \`${command}\``, ['RunInTerminal']);

    await assertPromptNames(command);
    await dialog().getByRole('button', { name: 'Allow', exact: true }).click();

    assert.match(await session.chat.waitForCardStatus(turn.card('RunInTerminal'), 'succeeded'), /Succeeded/);
    const answer = await session.chat.waitForAnswer(turn.answer());
    assert.ok(answer.startsWith(`Exit code 4 from ${command}:`), answer);
    // The output in a code block (with its Copy button).
    // The answer may end there now that the demo note is in the header only.
    assert.match(answer, /:\s*(?:Copy\s*)?hello-from-the-agent(?:\s|$)/);
    assert.equal(fs.readFileSync(path.join(session.workspace, 'answer.txt'), 'utf8'), '42\n', 'the command that ran is not the one approved');

    // The terminal of the call shows the command, the output and how it ended.
    const shown = await waitUntil(async () => {
      const text = await terminalText();
      return /\[exit code 4\]/.test(text) ? text : undefined;
    }, { timeoutMs: 30_000, describe: async () => `the terminal shows ${JSON.stringify(await terminalText())}` });
    const lines = shown.split('\n').map((l) => l.trimEnd());
    const at = lines.indexOf(`$ ${command}`);
    assert.ok(at >= 1, `the command line is not shown as approved: ${JSON.stringify(lines)}`);
    const header = lines[at - 1];
    const cwd = /^Client Tools runs, in (.+):$/.exec(header)?.[1];
    assert.ok(cwd !== undefined && fs.realpathSync(cwd) === fs.realpathSync(session.workspace), `the header does not name the workspace folder: ${header}`);
    assert.deepEqual(lines.slice(at + 1, at + 3), ['hello-from-the-agent', '[exit code 4]']);
    // Header and exit line dim, the command bold, so the output stands out between them.
    const styled = async (cls: string) => (await terminalRows().locator(`span.${cls}`).allInnerTexts()).map((t) => t.trim());
    assert.deepEqual(await styled('xterm-dim'), [header, '[exit code 4]']);
    assert.deepEqual(await styled('xterm-bold'), [`$ ${command}`]);
    assert.equal(await terminals().count(), 1, 'one terminal, this command\'s');
    // Named after the command (long ones are cut short), so the user can tell it from their own terminals.
    assert.ok((await terminalTab().innerText()).trim().startsWith('Client Tools: echo hello-from-the-agent && '), `the terminal is named ${JSON.stringify(await terminalTab().innerText())}`);
    await session.chat.waitForIdle();
    await session.screenshot('3-allowed');
  });
});
