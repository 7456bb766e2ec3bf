/**
 * Drives the Client Tools chat view and the parts of the workbench around it (palette, quick input,
 * modal dialog, editor tabs) the way a user does: clicks and keys in a real page. Every wait is for
 * a condition on the page or the disk, never a fixed sleep.
 */
import assert from 'node:assert/strict';
import { existsSync, mkdirSync } from 'node:fs';
import path from 'node:path';
import type { FrameLocator, Locator, Page } from 'playwright-core';
import { startFakeOpenAI, type FakeOpenAI } from '../../support/fake-openai';
import { startVSCode, workspaceScripts, type Harness } from './vscode';

export const RESULTS_DIR = path.resolve(__dirname, '../../../test-results');

/** The labels a tool card shows for each status (src/webview/format.ts), as the user reads them. */
export type CardStatus = 'pending' | 'awaiting-permission' | 'running' | 'succeeded' | 'failed' | 'denied' | 'skipped' | 'cancelled';

/** Polls `condition` until it returns a truthy value; fails with `describe()` of the last state. */
export async function waitUntil<T>(
  condition: () => T | Promise<T>,
  options: { timeoutMs?: number; intervalMs?: number; describe: () => string | Promise<string> },
): Promise<NonNullable<T>> {
  const deadline = Date.now() + (options.timeoutMs ?? 30_000);
  for (;;) {
    const value = await condition();
    if (value) return value as NonNullable<T>;
    if (Date.now() > deadline) throw new Error(`timed out: ${await options.describe()}`);
    await new Promise((resolve) => setTimeout(resolve, options.intervalMs ?? 100));
  }
}

/** What one message sent from the chat produced: its tool cards and answer, told apart from earlier ones. */
export interface Turn {
  /** The first card for `toolName` this turn added. */
  card(toolName: string): Locator;
  /** The first answer this turn added. */
  answer(): Locator;
}

export class ChatDriver {
  readonly frame: FrameLocator;
  readonly input: Locator;
  readonly sendButton: Locator;
  readonly stopButton: Locator;
  readonly banner: Locator;
  readonly runState: Locator;
  /** The permission prompt shown in the chat (src/webview/approvalCard.ts). */
  readonly approval: Locator;

  constructor(readonly page: Page) {
    this.frame = page.frameLocator('iframe.webview').frameLocator('iframe#active-frame');
    this.input = this.frame.locator('textarea.input');
    this.sendButton = this.frame.locator('button.send');
    this.stopButton = this.frame.locator('button.stop');
    this.banner = this.frame.locator('.banner');
    this.runState = this.frame.locator('.run-state');
    this.approval = this.frame.locator('section.approval');
  }

  /** Opens the chat from the activity bar and waits until it is connected to the bundled backend. */
  async open(): Promise<void> {
    await this.page.locator('.activitybar [aria-label^="Client Tools"]').first().click({ timeout: 30_000 });
    await this.frame.locator('.conn-dot.conn-connected').waitFor({ timeout: 60_000 });
  }

  cards(toolName: string): Locator {
    return this.frame.locator('.tool-card').filter({ has: this.frame.locator('.tool-name', { hasText: new RegExp(`^${toolName}$`) }) });
  }

  answers(): Locator {
    return this.frame.locator('.msg.answer');
  }

  notices(): Locator {
    return this.frame.locator('.event.notice');
  }

  /**
   * Returns a Turn that finds what appears after this moment: call it before the action that makes
   * the chat answer (typing a message, or a command that sends one).
   */
  async beginTurn(toolNames: string[]): Promise<Turn> {
    const cardsBefore = new Map<string, number>();
    for (const name of toolNames) cardsBefore.set(name, await this.cards(name).count());
    const answersBefore = await this.answers().count();
    return {
      card: (toolName) => {
        const before = cardsBefore.get(toolName);
        if (before === undefined) throw new Error(`beginTurn was not told about ${toolName}`);
        return this.cards(toolName).nth(before);
      },
      answer: () => this.answers().nth(answersBefore),
    };
  }

  /** Types `text` into the chat and presses Enter, as a user does. */
  async send(text: string, toolNames: string[]): Promise<Turn> {
    const turn = await this.beginTurn(toolNames);
    await this.input.click();
    await this.input.fill(text);
    await this.input.press('Enter');
    return turn;
  }

  /** Waits until the card shows `status` (its class and its label), and returns its text. */
  async waitForCardStatus(card: Locator, status: CardStatus, timeoutMs = 30_000): Promise<string> {
    await card.waitFor({ timeout: timeoutMs });
    await waitUntil(async () => (await card.getAttribute('class'))?.split(/\s+/).includes(`status-${status}`), {
      timeoutMs,
      describe: async () => `card never reached ${status}; it shows "${await card.innerText()}" (class ${await card.getAttribute('class')})`,
    });
    return card.innerText();
  }

  /** Waits until the answer stopped streaming, and returns its text as shown. */
  async waitForAnswer(answer: Locator, timeoutMs = 30_000): Promise<string> {
    await answer.waitFor({ timeout: timeoutMs });
    await waitUntil(async () => !(await answer.getAttribute('class'))?.split(/\s+/).includes('streaming'), {
      timeoutMs,
      describe: async () => `answer still streaming: "${await answer.innerText()}"`,
    });
    return (await answer.locator('.markdown').innerText()).trim();
  }

  /** A button of the permission prompt in the chat, by its label. */
  approvalButton(label: string): Locator {
    return this.approval.getByRole('button', { name: label, exact: true });
  }

  /** Waits until no run is active: Send is back in Stop's place. */
  async waitForIdle(timeoutMs = 30_000): Promise<void> {
    await this.sendButton.waitFor({ state: 'visible', timeout: timeoutMs });
    await this.stopButton.waitFor({ state: 'hidden', timeout: timeoutMs });
  }

  /**
   * An action of the chat view's title bar (New Chat, Show Chat History), the one place for them:
   * the header's toolbar shows while the pointer is over the view, which the click's move does.
   */
  titleAction(label: string): Locator {
    return this.page.locator('.part.sidebar .pane-header', { hasText: 'Chat' }).locator(`.actions .action-label[aria-label="${label}"]`);
  }

  /** New Chat from the view's title bar. */
  /** New Chat from the view's title bar, until the transcript is empty (a click while the title bar is redrawn, after a theme change, can miss). */
  async newChat(): Promise<void> {
    const messages = this.frame.locator('.msg');
    let clickedAt = 0;
    await waitUntil(async () => {
      if (Date.now() - clickedAt > 3_000) {
        await this.page.locator('.part.sidebar .pane-header', { hasText: 'Chat' }).hover();
        await this.titleAction('New Chat').click();
        clickedAt = Date.now();
      }
      return (await messages.count()) === 0;
    }, { timeoutMs: 15_000, describe: async () => `New Chat left ${await messages.count()} messages in the transcript` });
  }

  /** History from the view's title bar. */
  async openHistory(): Promise<void> {
    await this.page.locator('.part.sidebar .pane-header', { hasText: 'Chat' }).hover();
    await this.titleAction('Show Chat History').click();
  }

  /**
   * Saves the whole window to test-results/chat-flow-NAME.png (dialogs, tabs and notifications
   * included) and the side bar with the chat, at its own size, to chat-flow-NAME.chat.png.
   */
  async screenshot(name: string): Promise<void> {
    mkdirSync(RESULTS_DIR, { recursive: true });
    await this.page.screenshot({ path: path.join(RESULTS_DIR, `chat-flow-${name}.png`) });
    await this.page.locator('.part.sidebar').screenshot({ path: path.join(RESULTS_DIR, `chat-flow-${name}.chat.png`) });
  }
}

/** The computed CSS background colour of the element, e.g. `rgba(0, 0, 0, 0)`. */
export function backgroundColor(locator: Locator): Promise<string> {
  return locator.evaluate((el) => {
    const view = (globalThis as unknown as { getComputedStyle(e: unknown): { backgroundColor: string } });
    return view.getComputedStyle(el).backgroundColor;
  });
}

/**
 * Settings for the UI tests of the permission dialog itself: prompts in a modal, as with
 * `clientTools.permissions.promptStyle: modal` (the default shows them in the chat).
 */
export const MODAL_PROMPTS: Record<string, unknown> = { 'clientTools.permissions.promptStyle': 'modal' };

/** The workbench's modal dialog (the permission prompt with promptStyle `modal`). */
export function modalDialog(page: Page): Locator {
  return page.locator('.monaco-dialog-box');
}

/** Runs a palette command: F1, type its title, Enter on the matching entry. */
export async function runPaletteCommand(page: Page, title: string): Promise<void> {
  await page.keyboard.press('F1');
  const widget = page.locator('.quick-input-widget');
  await widget.waitFor({ state: 'visible', timeout: 10_000 });
  await page.keyboard.type(title);
  // Enter only once the entry is listed and focused, or Enter would run whatever was first.
  await widget.locator('.monaco-list-row.focused', { hasText: title }).first().waitFor({ timeout: 10_000 });
  await page.keyboard.press('Enter');
}

/** Opens a workspace file with Quick Open (Ctrl+P) and waits until its editor is active and has the keyboard. */
export async function quickOpen(page: Page, fileName: string): Promise<void> {
  await page.keyboard.press('Control+P');
  const widget = page.locator('.quick-input-widget');
  await widget.waitFor({ state: 'visible', timeout: 10_000 });
  await page.keyboard.type(fileName);
  await widget.locator('.monaco-list-row.focused', { hasText: fileName }).first().waitFor({ timeout: 10_000 });
  await page.keyboard.press('Enter');
  await activeTab(page, fileName).waitFor({ timeout: 10_000 });
  await page.locator('.part.editor .monaco-editor.focused').waitFor({ timeout: 10_000 });
}

/** Waits for the status bar's cursor item, e.g. "Ln 2, Col 7 (6 selected)". */
export async function waitForCursor(page: Page, text: string): Promise<void> {
  await page.locator('.statusbar').getByText(text, { exact: true }).waitFor({ timeout: 10_000 });
}

export function activeTab(page: Page, fileName: string): Locator {
  return page.locator(`.tabs-container div.tab.active[data-resource-name="${fileName}"]`);
}

/** What a UI test's chat set-up (`useChatSession`) gives its tests, filled in once `before` has run. */
export interface ChatSession {
  harness: Harness;
  page: Page;
  chat: ChatDriver;
  /** The copy of the fixture workspace VS Code has open. */
  workspace: string;
  /** Saves test-results/<prefix>-<name>.png. */
  screenshot(name: string): Promise<void>;
}

export interface ChatSessionOptions {
  /** The settings VS Code starts with; given the workspace copy, which the test may write into first. */
  settings(workspace: string): Record<string, unknown> | Promise<Record<string, unknown>>;
  /** What must be built first (default: the extension, the bundled backend and the chat). */
  built?: readonly string[];
  startTimeoutMs?: number;
  /** Waited for once the chat is open (the demo model's name, say). */
  ready?(chat: ChatDriver): Promise<unknown>;
}

const ROOT = path.resolve(__dirname, '../../..');

/**
 * The set-up UI tests of the chat share: a copy of the fixture workspace, a real VS Code
 * (code-server) with the extension and `options.settings`, the chat open and connected. Registers
 * mocha's before/after/afterEach hooks (a failed test leaves a screenshot and the code-server log).
 */
export function useChatSession(prefix: string, options: ChatSessionOptions): ChatSession {
  const session = {} as ChatSession;
  let harness: Harness | undefined;
  let cleanupWorkspace: (() => void) | undefined;
  session.screenshot = async (name) => {
    await session.page.screenshot({ path: path.join(RESULTS_DIR, `${prefix}-${name}.png`) });
  };

  before(async function () {
    this.timeout(300_000);
    for (const built of options.built ?? ['dist/extension.js', 'dist/backend/cli.js', 'media/chat.js']) {
      assert.ok(existsSync(path.join(ROOT, built)), `${built} is missing: run \`npm run build\` first`);
    }
    mkdirSync(RESULTS_DIR, { recursive: true });
    const copy = (await workspaceScripts()).copyFixtureWorkspace();
    cleanupWorkspace = copy.cleanup;
    session.workspace = copy.workspace;
    harness = await startVSCode({ workspace: copy.workspace, startTimeoutMs: options.startTimeoutMs, settings: await options.settings(copy.workspace) });
    session.harness = harness;
    session.page = harness.page;
    session.chat = new ChatDriver(harness.page);
    try {
      await session.chat.open();
      await options.ready?.(session.chat);
    } catch (e) {
      // Mocha runs no afterEach for a failed `before`: leave the evidence here.
      await session.screenshot('failed-open').catch(() => undefined);
      throw new Error(`the chat did not connect: ${(e as Error).message}\ncode-server log:\n${harness.logTail(30)}`);
    }
  });

  after(async () => {
    await harness?.stop();
    cleanupWorkspace?.();
  });

  afterEach(async function () {
    if (this.currentTest?.state !== 'failed' || !harness) return;
    await session.screenshot(`failed-${this.currentTest.title.replace(/\W+/g, '-').slice(0, 60)}`).catch(() => undefined);
    console.error(`code-server log:\n${harness.logTail(30)}`);
  });

  return session;
}

/**
 * The chat's set-up with the bundled backend's model at the fake OpenAI endpoint
 * (test/support/fake-openai.ts), started before VS Code and closed after it; `settings` are added.
 */
export function useFakeModelChatSession(prefix: string, settings: Record<string, unknown> = {}): ChatSession & { fake: FakeOpenAI } {
  let fake: FakeOpenAI | undefined;
  const session = useChatSession(prefix, {
    settings: async () => {
      fake = await startFakeOpenAI();
      return { 'clientTools.model.baseUrl': fake.baseURL, 'clientTools.model.name': 'fake-model', ...settings };
    },
  });
  after(async () => {
    await fake?.close();
  });
  return Object.defineProperty(session, 'fake', { get: () => fake, enumerable: true }) as ChatSession & { fake: FakeOpenAI };
}
