/**
 * A real VS Code (code-server) with this extension, driven by a real Chromium, connected to the
 * scripted backend this test process plays (test/support/scripted-backend.ts): the extension gets
 * the backend's URL as `clientTools.backendUrl` and its token through CLIENT_TOOLS_BACKEND_TOKEN,
 * on a fresh copy of the fixture workspace. `useScriptedVSCode` gives a UI test file one of them
 * for all its tests, with the checks and failure reports every such file wants.
 */
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import type { Page } from 'playwright-core';
import { ScriptedBackend } from '../../support/scripted-backend';
import { startVSCode, workspaceScripts, type Harness } from './vscode';

export const RESULTS = path.resolve(__dirname, '../../../test-results');

export interface ScriptedVSCodeOptions {
  /** Names the token and the screenshots (test-results/<name>-*.png). */
  name: string;
  /**
   * Let background calls through. The scripted backend calls tools with no chat run, which by
   * default (`ask`) opens a prompt first; only background-call tests keep the default.
   */
  allowBackgroundCalls?: boolean;
  /** Prepares the workspace copy (files in it or next to it) before VS Code opens it. */
  prepare?: (workspace: string) => void;
  /** More user settings (e.g. `clientTools.permissions.promptStyle: modal` for tests of the dialog). */
  settings?: Record<string, unknown>;
  /** Where the workbench's log goes; by default into `workbenchLog`, shown when a test fails. */
  onAutomationLog?: (type: string, message: string) => void;
  /** Folders of further test-only extensions to install (e.g. test/fixtures/mcp-conformance-extension). */
  extensions?: string[];
}

export interface ScriptedVSCode {
  backend: ScriptedBackend;
  vscode: Harness;
  page: Page;
  workspace: string;
  /** What the workbench logged (extension host errors show up here), for failure reports. */
  workbenchLog: string[];
  /** Saves a screenshot of the page as test-results/<name>-<label>.png. */
  screenshot(label: string): Promise<Buffer>;
  /** Stops VS Code and the backend and deletes the workspace copy. */
  stop(): Promise<void>;
}

/** Starts the backend, then VS Code on a fixture copy, and waits for the extension's hello. */
export async function startScriptedVSCode(options: ScriptedVSCodeOptions): Promise<ScriptedVSCode> {
  fs.mkdirSync(RESULTS, { recursive: true });
  const token = `e2e-${options.name}-${process.pid}-${Date.now()}`;
  const backend = await ScriptedBackend.start({ token, defaultTimeoutMs: 30_000, undecodable: 'record' });
  const scripts = await workspaceScripts();
  const copy = scripts.copyFixtureWorkspace();
  let vscode: Harness | undefined;
  const stop = async () => {
    await vscode?.stop();
    await backend.close();
    copy.cleanup();
  };
  try {
    assert.ok(fs.existsSync(scripts.EXTENSION_ENTRY), 'dist/extension.js is missing: run `npm run build` first');
    options.prepare?.(copy.workspace);
    const workbenchLog: string[] = [];
    const settings: Record<string, unknown> = { ...options.settings, 'clientTools.backendUrl': backend.url };
    if (options.allowBackgroundCalls) settings['clientTools.permissions.backgroundCalls'] = 'allow';
    vscode = await startVSCode({
      workspace: copy.workspace,
      settings,
      env: { CLIENT_TOOLS_BACKEND_TOKEN: token },
      ...(options.extensions ? { extensions: options.extensions } : {}),
      onAutomationLog: options.onAutomationLog ?? ((type, message) => {
        if (!/open-vsx\.org/.test(message)) workbenchLog.push(`[${type}] ${message}`);
      }),
    });
    const page = vscode.page;
    await backend.hello(0, 120_000);
    const screenshot = (label: string) => page.screenshot({ path: path.join(RESULTS, `${options.name}-${label}.png`) });
    return { backend, vscode, page, workspace: copy.workspace, workbenchLog, screenshot, stop };
  } catch (error) {
    await stop();
    throw error;
  }
}

/**
 * One scripted VS Code for the tests of the enclosing `describe`: started before the first, stopped
 * after the last. After each test, the extension must have sent nothing the protocol codec refuses,
 * and a failed test leaves a screenshot and the tail of code-server's and the workbench's logs.
 * Returns the started session (call it from a hook or a test).
 */
export function useScriptedVSCode(options: ScriptedVSCodeOptions): () => ScriptedVSCode {
  let session: ScriptedVSCode | undefined;

  before(async function () {
    this.timeout(240_000);
    session = await startScriptedVSCode(options);
  });

  afterEach(async function () {
    if (!session) return;
    assert.deepEqual(session.backend.protocolErrors, [], 'the extension sent messages the protocol codec refuses');
    if (this.currentTest?.state !== 'failed') return;
    const name = this.currentTest.title.replace(/[^A-Za-z0-9]+/g, '-').slice(0, 60).toLowerCase();
    await session.screenshot(`failed-${name}`).catch(() => undefined);
    console.error(`code-server output:\n${session.vscode.logTail(30)}\nworkbench log:\n${session.workbenchLog.slice(-30).join('\n')}`);
  });

  after(async function () {
    this.timeout(60_000);
    await session?.stop();
  });

  return () => {
    if (!session) throw new Error('the scripted VS Code has not started (use it from a hook or a test)');
    return session;
  };
}
