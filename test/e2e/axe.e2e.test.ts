/**
 * Accessibility by measurement (issue 29): axe-core, the standard rules engine, runs inside the
 * chat webview's own frame in a real VS Code (code-server) driven by a real Chromium, in four
 * built-in themes picked as a user picks them (Light Modern, Dark Modern, Dark High Contrast, Light
 * High Contrast) and six states this test process builds as the backend (test/support/scripted-backend.ts):
 * empty, running, prompt (a permission prompt waiting), review (an OpenDiff review per hunk), error
 * (a model's error with its actions) and history (the conversation list open). Every state of every
 * theme must have no serious or critical violation, colour contrast included; the assertion lists
 * each violation's rule, impact and elements.
 *
 * Screenshots go to test-results/axe-<theme>-<state>.png (the side bar).
 * Run alone: npm run build && npx mocha --no-config --require tsx/cjs --extension ts --timeout 300000 --exit test/e2e/axe.e2e.test.ts
 */
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import type { Frame, Page } from 'playwright-core';
import type { ScriptedBackend } from '../support/scripted-backend';
import { ChatDriver, waitUntil } from './support/chat-driver';
import { RESULTS, useScriptedVSCode } from './support/scripted-vscode';

const AXE_SOURCE = fs.readFileSync(require.resolve('axe-core/axe.min.js'), 'utf8');

/** The built-in themes of each kind and the class the workbench gets for each. */
const THEMES = [
  { label: 'Light Modern', workbenchClass: 'vs' },
  { label: 'Dark Modern', workbenchClass: 'vs-dark' },
  { label: 'Dark High Contrast', workbenchClass: 'hc-black' },
  { label: 'Light High Contrast', workbenchClass: 'hc-light' },
] as const;

const FAILING_IMPACTS = new Set(['serious', 'critical']);

interface AxeViolation {
  id: string;
  impact: string | null;
  help: string;
  nodes: { target: string[]; failureSummary?: string }[];
}

/**
 * Runs in the chat's frame: axe over the whole document (WCAG 2.x A and AA rules and axe's best
 * practices, its defaults), returning only what the assertion reports.
 */
const RUN_AXE = `axe.run(document, { resultTypes: ['violations'] }).then((r) => r.violations.map((v) => ({
  id: v.id, impact: v.impact, help: v.help,
  nodes: v.nodes.map((n) => ({ target: n.target.map(String), failureSummary: n.failureSummary })),
})))`;

describe('axe-core in the chat webview: four themes, six states (real VS Code)', function () {
  this.timeout(300_000);
  const session = useScriptedVSCode({ name: 'axe', allowBackgroundCalls: true });
  let backend: ScriptedBackend;
  let page: Page;
  let chat: ChatDriver;
  let runs = 0;

  /** The chat's document: the webview's inner frame (VS Code nests it in iframe.webview). */
  async function chatFrame(): Promise<Frame> {
    const outer = await (await page.locator('iframe.webview').elementHandle())?.contentFrame();
    const inner = await (await outer?.locator('iframe#active-frame').elementHandle())?.contentFrame();
    if (!inner) throw new Error('the chat webview has no frame');
    return inner;
  }

  /** axe's serious and critical violations in the chat as it is now, one line each. */
  async function violations(): Promise<{ failing: string[]; other: string[] }> {
    const frame = await chatFrame();
    if (!(await frame.evaluate('typeof axe !== "undefined"'))) await frame.evaluate(`${AXE_SOURCE};void 0`);
    const found = (await frame.evaluate(RUN_AXE)) as AxeViolation[];
    const line = (v: AxeViolation) => `${v.id} (${v.impact}): ${v.help} at ${v.nodes.map((n) => n.target.join(' ')).join(', ')}${v.nodes[0]?.failureSummary ? ` [${v.nodes[0].failureSummary.replace(/\s+/g, ' ')}]` : ''}`;
    return {
      failing: found.filter((v) => FAILING_IMPACTS.has(v.impact ?? '')).map(line),
      other: found.filter((v) => !FAILING_IMPACTS.has(v.impact ?? '')).map(line),
    };
  }

  /** Preferences: Color Theme (Ctrl+K Ctrl+T), as a user picks one. */
  async function pickTheme(label: string, workbenchClass: string): Promise<void> {
    await page.locator('.part.editor').click({ position: { x: 300, y: 300 } });
    await page.keyboard.press('Control+K');
    await page.keyboard.press('Control+T');
    const widget = page.locator('.quick-input-widget');
    await widget.waitFor({ state: 'visible', timeout: 10_000 });
    await page.keyboard.type(label);
    await widget.locator('.monaco-list-row.focused', { hasText: label }).first().waitFor({ timeout: 10_000 });
    await page.keyboard.press('Enter');
    await page.locator(`.monaco-workbench.${workbenchClass}`).waitFor({ timeout: 20_000 });
    // The webview takes the theme's variables a moment after the workbench repaints: wait for its body class.
    const bodyClass = { vs: 'vscode-light', 'vs-dark': 'vscode-dark', 'hc-black': 'vscode-high-contrast', 'hc-light': 'vscode-high-contrast-light' }[workbenchClass];
    await waitUntil(async () => (await chat.frame.locator('body').getAttribute('class'))?.split(/\s+/).includes(bodyClass ?? '') && (workbenchClass !== 'hc-black' || !(await chat.frame.locator('body').getAttribute('class'))?.includes('vscode-high-contrast-light')), {
      timeoutMs: 15_000,
      describe: async () => `the chat's body is "${await chat.frame.locator('body').getAttribute('class')}"`,
    });
  }

  /** Answers the next user message with a started run; returns its ids. */
  async function startRun(from: number): Promise<{ threadId: string; runId: string }> {
    const sent = await backend.waitFor((m) => m.type === 'userMessage', 15_000, from);
    assert.equal(sent.type, 'userMessage');
    const ref = { threadId: sent.threadId, runId: `run-axe-${++runs}` };
    backend.send({ type: 'runStarted', ...ref, model: 'gpt-test' });
    return ref;
  }

  before(async () => {
    ({ backend, page } = session());
    chat = new ChatDriver(page);
    await chat.open();
  });

  for (const theme of THEMES) {
    it(`no serious or critical violation in ${theme.label}: empty, running, prompt, review, error, history`, async () => {
      await pickTheme(theme.label, theme.workbenchClass);
      await chat.newChat();
      const found: Record<string, { failing: string[]; other: string[] }> = {};
      const check = async (state: string) => {
        await page.mouse.move(0, 0);
        found[state] = await violations();
        await page.locator('.part.sidebar').screenshot({ path: path.join(RESULTS, `axe-${theme.workbenchClass}-${state}.png`) });
      };

      await chat.frame.locator('.empty').waitFor({ timeout: 15_000 });
      await check('empty');

      const from = backend.received.length;
      await chat.send('Tidy up hello.txt, please.', []);
      const run = await startRun(from);
      backend.send({ type: 'textDelta', ...run, text: 'I will read the file first, then propose a change. Reading' });
      const read = await backend.call('ReadFile', { path: 'hello.txt' }, { threadId: run.threadId });
      assert.equal(read.success, true, read.errorMessage);
      await chat.waitForCardStatus(chat.cards('ReadFile').last(), 'succeeded');
      // A failed call (its error in words) and a call from outside the run (the Background badge).
      const missing = await backend.call('ReadFile', { path: 'no-such-file.txt' }, { threadId: run.threadId });
      assert.equal(missing.success, false);
      await chat.waitForCardStatus(chat.cards('ReadFile').last(), 'failed');
      const background = await backend.call('GetOpenEditors', {});
      assert.equal(background.success, true, background.errorMessage);
      await chat.frame.locator('.background-badge:not([hidden])').last().waitFor({ timeout: 10_000 });
      await chat.stopButton.waitFor({ state: 'visible', timeout: 10_000 });
      await check('running');

      const deletion = backend.startCall('DeleteFile', { path: 'hello.txt' }, { threadId: run.threadId });
      await chat.approval.waitFor({ state: 'visible', timeout: 30_000 });
      await check('prompt');
      await chat.approvalButton('Deny').click();
      assert.equal((await deletion.response).success, false, 'the denied DeleteFile succeeded');

      const proposal = backend.startCall('OpenDiff', { path: 'hello.txt', newContent: 'Tidied by the agent.\n' }, { threadId: run.threadId });
      const review = chat.cards('OpenDiff').last().locator('section.review');
      await review.waitFor({ timeout: 30_000 });
      await check('review');
      await review.getByRole('button', { name: 'Reject', exact: true }).click();
      await proposal.response;

      backend.send({ type: 'runError', ...run, code: 'MODEL_ERROR', message: 'Could not reach gpt-test at http://127.0.0.1:9/v1: connection refused (is the server running?)', retryable: true });
      backend.send({ type: 'runFinished', ...run, reason: 'error' });
      await chat.frame.locator('.error-item').waitFor({ timeout: 15_000 });
      await chat.waitForIdle(15_000);
      await check('error');

      await chat.openHistory();
      await chat.frame.locator('section.history').waitFor({ state: 'visible', timeout: 10_000 });
      await chat.frame.locator('section.history .thread-row').first().waitFor({ timeout: 10_000 });
      await check('history');
      await chat.frame.locator('section.history').getByRole('button', { name: 'Close the conversation list' }).click();

      const report = Object.entries(found).map(([state, v]) => `${theme.label} / ${state}: ${v.failing.length} serious or critical${v.failing.length ? `\n    ${v.failing.join('\n    ')}` : ''}${v.other.length ? `\n    (moderate/minor: ${v.other.join('; ')})` : ''}`);
      console.log(`      ${report.join('\n      ')}`);
      const failing = Object.entries(found).flatMap(([state, v]) => v.failing.map((f) => `${state}: ${f}`));
      assert.deepEqual(failing, [], `axe found serious or critical violations in ${theme.label}`);
    });
  }
});
