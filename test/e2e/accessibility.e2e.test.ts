/**
 * The chat from the keyboard and for every eye, in a real VS Code (code-server) driven by a real
 * Chromium, with this test process playing the backend (test/support/scripted-backend.ts):
 * Focus Chat's default key puts the keyboard in the message box; Up recalls the message sent;
 * a streamed answer is read out by the live region sentence by sentence while it still streams;
 * Escape stops the run; Ask About Selection's key attaches the selection as a removable chip; a
 * file path in an answer opens the file (and one outside the workspace does not); Copy copies an
 * answer; and the chat's text, code blocks included, keeps a readable contrast in the Light, Dark,
 * High Contrast Dark and High Contrast Light themes.
 *
 * Screenshots go to test-results/a11y-*.png (a11y-theme-*.chat.png: the side bar in each theme).
 * Run: node esbuild.mjs && npx mocha --no-config -r tsx/cjs --extension ts --timeout 300000 --exit test/e2e/accessibility.e2e.test.ts
 */
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import type { Page } from 'playwright-core';
import { activeTab, ChatDriver, quickOpen, waitUntil } from './support/chat-driver';
import type { ScriptedBackend } from '../support/scripted-backend';
import { RESULTS, useScriptedVSCode } from './support/scripted-vscode';

declare const navigator: { clipboard: { readText(): Promise<string> } };

/** The four themes VS Code ships for each kind, and the class the workbench gets for it. */
const THEMES = [
  { label: 'Light Modern', workbenchClass: 'vs' },
  { label: 'Dark Modern', workbenchClass: 'vs-dark' },
  { label: 'Dark High Contrast', workbenchClass: 'hc-black' },
  { label: 'Light High Contrast', workbenchClass: 'hc-light' },
] as const;

/** What the contrast check reads, and the least WCAG contrast each must have (4.5:1 for text). */
const CHECKED_TEXT: { what: string; selector: string; hover?: boolean }[] = [
  { what: 'answer text', selector: '.msg.answer .markdown p' },
  { what: 'code block text', selector: '.msg.answer .markdown pre code' },
  { what: 'inline code', selector: '.msg.answer .markdown p > code' },
  { what: 'file path', selector: '.msg.answer .file-link code' },
  { what: 'file path under the mouse', selector: '.msg.answer .file-link code', hover: true },
  { what: 'user message', selector: '.msg.user .user-text' },
  { what: 'header', selector: '.conn-text' },
  { what: 'Copy button', selector: '.copy-answer' },
];
const MIN_CONTRAST = 4.5;

/**
 * Runs in the chat's frame: the contrast ratio between an element's text colour and the colour
 * actually behind it (the backgrounds of it and its ancestors composited, up to an opaque one).
 * A string, not a function: tsx's transpiled helpers do not exist in the page.
 */
const CONTRAST_IN_PAGE = `(el) => {
  const parse = (c) => { const m = c.match(/rgba?\\(([^)]+)\\)/); if (!m) return [0, 0, 0, 0]; const p = m[1].split(/[ ,\\/]+/).filter(Boolean).map(Number); return [p[0], p[1], p[2], p.length > 3 ? p[3] : 1]; };
  const over = (top, under) => { const a = top[3]; return [0, 1, 2].map((i) => top[i] * a + under[i] * (1 - a)).concat(1); };
  const layers = [];
  for (let n = el; n; n = n.parentElement) { const bg = parse(getComputedStyle(n).backgroundColor); if (bg[3] > 0) layers.push(bg); if (bg[3] >= 1) break; }
  let bg = [255, 255, 255, 1];
  const bodyBg = parse(getComputedStyle(document.documentElement).backgroundColor);
  if (layers.length === 0 || layers[layers.length - 1][3] < 1) bg = bodyBg[3] >= 1 ? bodyBg : bg;
  for (let i = layers.length - 1; i >= 0; i--) bg = over(layers[i], bg);
  let fg = parse(getComputedStyle(el).color);
  const opacity = Number(getComputedStyle(el).opacity);
  fg = over([fg[0], fg[1], fg[2], fg[3] * opacity], bg);
  const lum = (c) => { const [r, g, b] = c.slice(0, 3).map((v) => { v /= 255; return v <= 0.03928 ? v / 12.92 : Math.pow((v + 0.055) / 1.055, 2.4); }); return 0.2126 * r + 0.7152 * g + 0.0722 * b; };
  const [hi, lo] = [lum(fg), lum(bg)].sort((a, b) => b - a);
  return { ratio: (hi + 0.05) / (lo + 0.05), color: getComputedStyle(el).color, background: 'rgb(' + bg.slice(0, 3).map(Math.round).join(', ') + ')' };
}`;

// Page code kept as text (see above); playwright sends this function's source to the frame.
const contrastInPage = new Function('el', `return (${CONTRAST_IN_PAGE})(el);`) as (el: unknown) => unknown;

describe('chat keyboard and accessibility in a real VS Code', function () {
  this.timeout(180_000);
  const session = useScriptedVSCode({ name: 'a11y' });
  let backend: ScriptedBackend;
  let page: Page;
  let chat: ChatDriver;
  let screenshot: (label: string) => Promise<Buffer>;
  let workspace: string;
  let runs = 0;

  const announced = async (): Promise<string> => (await chat.frame.locator('.sr-only[aria-live="polite"]').innerText()).replace(/\s+/g, ' ');
  const chip = () => chat.frame.locator('.attachment-chip');

  /** Answers the next user message the extension sends with a run; returns its thread and run ids. */
  async function answerNextMessage(from: number): Promise<{ threadId: string; runId: string; text: string; context: unknown }> {
    const sent = await backend.waitFor((m) => m.type === 'userMessage', 15_000, from);
    assert.equal(sent.type, 'userMessage');
    const ref = { threadId: sent.threadId, runId: `run-a11y-${++runs}` };
    backend.send({ type: 'runStarted', ...ref, model: 'gpt-test' });
    return { ...ref, text: sent.text, context: sent.context };
  }

  /** Preferences: Color Theme (Ctrl+K Ctrl+T), as a user picks one. */
  async function pickTheme(label: string): Promise<void> {
    await page.locator('.part.editor').click({ position: { x: 300, y: 300 } });
    await page.keyboard.press('Control+K');
    await page.keyboard.press('Control+T');
    const widget = page.locator('.quick-input-widget');
    await widget.waitFor({ state: 'visible', timeout: 10_000 });
    await page.keyboard.type(label);
    await widget.locator('.monaco-list-row.focused', { hasText: label }).first().waitFor({ timeout: 10_000 });
    await page.keyboard.press('Enter');
  }

  before(async () => {
    ({ backend, page, screenshot, workspace } = session());
    chat = new ChatDriver(page);
    await chat.open();
  });

  it('Ctrl+Alt+K (Focus Chat) from the editor puts the keyboard in the message box', async () => {
    await quickOpen(page, 'hello.txt');
    await page.keyboard.press('Control+Alt+K');
    await waitUntil(() => chat.input.evaluate((el) => {
      const doc = (el as { ownerDocument: { activeElement: unknown; hasFocus(): boolean } }).ownerDocument;
      return doc.activeElement === el && doc.hasFocus();
    }), { timeoutMs: 15_000, describe: () => 'the message box never got the keyboard' });
    await page.keyboard.type('typed after the key');
    await waitUntil(async () => (await chat.input.inputValue()) === 'typed after the key', {
      timeoutMs: 15_000,
      describe: async () => `the message box holds "${await chat.input.inputValue()}"`,
    });
    await chat.input.fill('');
  });

  it('a streamed answer is read out sentence by sentence while it streams; Escape stops the run; Up recalls the message', async () => {
    const from = backend.received.length;
    const turn = await chat.send('Explain the first file', []);
    const run = await answerNextMessage(from);
    backend.send({ type: 'textDelta', ...run, text: 'The first sentence arrives on its own. The second one' });
    await waitUntil(async () => (await announced()).includes('The first sentence arrives on its own.'), {
      timeoutMs: 15_000,
      describe: async () => `the live region says "${await announced()}"`,
    });
    assert.ok(!(await announced()).includes('The second one'), 'an unfinished sentence is not read out yet');
    assert.match((await turn.answer().getAttribute('class')) ?? '', /\bstreaming\b/, 'the answer still streams');

    await chat.input.click();
    await chat.input.press('Escape');
    const cancel = await backend.waitFor((m) => m.type === 'cancel', 15_000, from);
    assert.equal(cancel.type === 'cancel' ? cancel.threadId : undefined, run.threadId);
    backend.send({ type: 'runFinished', ...run, reason: 'cancelled' });
    await chat.waitForIdle(15_000);
    await chat.frame.locator('.event.notice', { hasText: 'Stopped.' }).waitFor({ timeout: 15_000 });
    await waitUntil(async () => (await announced()).includes('The second one'), {
      timeoutMs: 15_000,
      describe: async () => `the rest was not read out when the answer ended: "${await announced()}"`,
    });

    await chat.input.click();
    await chat.input.press('ArrowUp');
    assert.equal(await chat.input.inputValue(), 'Explain the first file');
    await chat.input.press('ArrowDown');
    assert.equal(await chat.input.inputValue(), '');
    await screenshot('stopped');
  });

  it('Ctrl+Shift+Alt+K attaches the selection as a chip; × removes it; the question is sent with the selection attached', async () => {
    await quickOpen(page, 'hello.txt');
    await page.keyboard.press('Shift+End');
    await page.keyboard.press('Control+Shift+Alt+K');
    await chip().waitFor({ timeout: 15_000 });
    assert.equal(await chip().locator('.attachment-label').innerText(), 'hello.txt:1');
    await chip().getByRole('button', { name: /Remove the attached selection/ }).click();
    await chip().waitFor({ state: 'detached', timeout: 10_000 });

    await quickOpen(page, 'hello.txt');
    await page.keyboard.press('Shift+End');
    await page.keyboard.press('Control+Shift+Alt+K');
    await chip().waitFor({ timeout: 15_000 });
    await screenshot('chip');
    await page.locator('.part.sidebar').screenshot({ path: path.join(RESULTS, 'a11y-chip.chat.png') });
    // The key left the keyboard in the message box: the question is typed straight away.
    await page.keyboard.type('What does this line say?');
    const from = backend.received.length;
    await page.keyboard.press('Enter');
    const run = await answerNextMessage(from);
    assert.equal(run.text, 'What does this line say?');
    const selected = fs.readFileSync(path.join(workspace, 'hello.txt'), 'utf8').split('\n')[0];
    assert.deepEqual(run.context, { file: 'hello.txt', language: 'plaintext', selection: { startLine: 0, startCharacter: 0, endLine: 0, endCharacter: selected.length }, selectedText: selected });
    await chip().waitFor({ state: 'detached', timeout: 10_000 });
    backend.send({ type: 'runFinished', ...run, reason: 'completed' });
    await chat.waitForIdle(15_000);
  });

  it('a file path in an answer opens the file; one outside the workspace opens nothing and says why; Copy copies the answer', async () => {
    const from = backend.received.length;
    const turn = await chat.send('Where are the notes?', []);
    const run = await answerNextMessage(from);
    const answer = 'The notes are in `notes.md:2`, not in `../outside.md`; call `answer()`.\n\nIn a block:\n\n```ts\nconst answer = 42;\n```\n\nSee [the docs](https://example.com).';
    backend.send({ type: 'textDelta', ...run, text: answer });
    backend.send({ type: 'runFinished', ...run, reason: 'completed' });
    await chat.waitForAnswer(turn.answer(), 15_000);
    await chat.waitForIdle(15_000);

    await turn.answer().locator('.file-link', { hasText: 'notes.md:2' }).click();
    await activeTab(page, 'notes.md').waitFor({ timeout: 15_000 });
    await page.locator('.statusbar').getByText(/^Ln 2, Col 1/).waitFor({ timeout: 10_000 });

    await turn.answer().locator('.file-link', { hasText: '../outside.md' }).click();
    await page.locator('.notifications-toasts .notification-toast', { hasText: 'cannot open ../outside.md from the chat' }).waitFor({ timeout: 15_000 });
    assert.equal(await activeTab(page, 'notes.md').count(), 1, 'the editor still shows notes.md');
    await screenshot('outside-path');

    await page.context().grantPermissions(['clipboard-read', 'clipboard-write'], { origin: new URL(page.url()).origin });
    await turn.answer().locator('.copy-answer').click();
    await turn.answer().locator('.copy-answer', { hasText: 'Copied' }).waitFor({ timeout: 5_000 });
    const copied = await waitUntil(async () => {
      const text = await page.evaluate(() => navigator.clipboard.readText());
      return text === answer ? text : undefined;
    }, { timeoutMs: 10_000, describe: async () => `the clipboard holds "${await page.evaluate(() => navigator.clipboard.readText())}"` });
    assert.equal(copied, answer);
  });

  for (const theme of THEMES) {
    it(`every text of the chat has a contrast of at least ${MIN_CONTRAST}:1 in ${theme.label}`, async () => {
      await pickTheme(theme.label);
      await page.locator(`.monaco-workbench.${theme.workbenchClass}`).waitFor({ timeout: 20_000 });
      const failures: string[] = [];
      // The view's colours follow the theme's variables a moment after the workbench repaints.
      await waitUntil(async () => {
        failures.length = 0;
        await page.mouse.move(0, 0);
        for (const { what, selector, hover } of CHECKED_TEXT) {
          const el = chat.frame.locator(selector).last();
          if ((await el.count()) === 0) {
            failures.push(`${what}: nothing matches ${selector}`);
            continue;
          }
          if (hover) await el.hover();
          const c = (await el.evaluate(contrastInPage)) as { ratio: number; color: string; background: string };
          if (c.ratio < MIN_CONTRAST) failures.push(`${what}: ${c.color} on ${c.background} is ${c.ratio.toFixed(2)}:1`);
        }
        return failures.length === 0;
      }, { timeoutMs: 10_000, describe: () => `${theme.label}: ${failures.join('; ')}` });
      await page.locator('.part.sidebar').screenshot({ path: path.join(RESULTS, `a11y-theme-${theme.workbenchClass}.chat.png`) });
    });
  }
});
