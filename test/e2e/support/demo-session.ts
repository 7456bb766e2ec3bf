/**
 * The set-up the UI tests of the offline demo model share: a copy of the fixture workspace, a real
 * VS Code (code-server) with the extension on default settings (so it starts its bundled backend
 * with the demo model), and the chat open and connected. Registers mocha's before/after/afterEach
 * hooks; the returned object is filled in once `before` has run.
 */
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import type { Page } from 'playwright-core';
import { ChatDriver, RESULTS_DIR } from './chat-driver';
import { startVSCode, workspaceScripts, type Harness } from './vscode';

const ROOT = path.resolve(__dirname, '../../..');

export interface DemoSession {
  harness: Harness;
  page: Page;
  chat: ChatDriver;
  /** The workspace copy VS Code has open. */
  workspace: string;
  /** Saves test-results/<prefix>-<name>.png. */
  screenshot(name: string): Promise<void>;
}

export function useDemoChatSession(prefix: string, settings: Record<string, unknown> = {}): DemoSession {
  const session = {} as DemoSession;
  let harness: Harness | undefined;
  let cleanupWorkspace: (() => void) | undefined;
  session.screenshot = async (name) => {
    await session.page.screenshot({ path: path.join(RESULTS_DIR, `${prefix}-${name}.png`) });
  };

  before(async function () {
    this.timeout(300_000);
    for (const built of ['dist/extension.js', 'dist/backend/cli.js', 'media/chat.js']) {
      assert.ok(fs.existsSync(path.join(ROOT, built)), `${built} is missing: run \`npm run build\` first`);
    }
    fs.mkdirSync(RESULTS_DIR, { recursive: true });
    const copy = (await workspaceScripts()).copyFixtureWorkspace();
    cleanupWorkspace = copy.cleanup;
    session.workspace = copy.workspace;
    harness = await startVSCode({ workspace: copy.workspace, startTimeoutMs: 120_000, settings });
    session.harness = harness;
    session.page = harness.page;
    session.chat = new ChatDriver(harness.page);
    try {
      await session.chat.open();
      await session.chat.frame.getByText('Offline demo model').waitFor({ timeout: 30_000 });
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
