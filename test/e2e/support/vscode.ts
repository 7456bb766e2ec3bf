/**
 * Typed access to the plain-ESM scripts that start a real VS Code (scripts/vscode-harness.mjs) and
 * copy the fixture workspace (scripts/test-workspace.mjs), plus small helpers for driving the page.
 */
import type { Page } from 'playwright-core';

/** The part of the harness's `HarnessOptions` these tests use (see its JSDoc for the rest). */
export interface HarnessOptions {
  workspace: string;
  settings?: Record<string, unknown>;
  env?: Record<string, string>;
  viewport?: { width: number; height: number };
  startTimeoutMs?: number;
  onAutomationLog?: (type: string, message: string) => void;
}

export interface Harness {
  page: Page;
  /** Which VS Code runs (CLIENT_TOOLS_VSCODE): `1.100` or `newest`, its version, and its Node. */
  vscode: { name: string; version: string; codeServer: string; node: string };
  port: number;
  workspace: string;
  /** code-server's throw-away root; XDG_DATA_HOME (where a freedesktop trash would be) is its `data/`. */
  tempDir: string;
  logTail(lines?: number): string;
  stop(): Promise<void>;
}

interface HarnessModule {
  startVSCode(options: HarnessOptions): Promise<Omit<Harness, 'page'> & { page: Page | null }>;
}

interface WorkspaceModule {
  EXTENSION_ENTRY: string;
  copyFixtureWorkspace(): { workspace: string; cleanup: () => void };
}

/** Starts code-server with this extension and a headless Chromium on its workbench. */
export async function startVSCode(options: HarnessOptions): Promise<Harness> {
  // @ts-expect-error plain ESM script without type declarations (its JSDoc documents the shape)
  const harness = (await import('../../../scripts/vscode-harness.mjs')) as HarnessModule;
  const started = await harness.startVSCode(options);
  const page = started.page;
  if (!page) {
    await started.stop();
    throw new Error('the harness started no browser');
  }
  return { ...started, page };
}

export async function workspaceScripts(): Promise<WorkspaceModule> {
  // @ts-expect-error plain ESM script without type declarations
  return (await import('../../../scripts/test-workspace.mjs')) as WorkspaceModule;
}

/**
 * Polls `condition` until it returns a value other than undefined/false, or fails with `what` and
 * the last value seen. For states the page offers no event for (a status bar text changing).
 */
export async function waitUntil<T>(what: string, condition: () => Promise<T | undefined | false>, timeoutMs = 10_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  let last: unknown;
  for (;;) {
    try {
      const value = await condition();
      if (value !== undefined && value !== false) return value;
      last = value;
    } catch (e) {
      last = e;
    }
    if (Date.now() > deadline) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what} (last: ${String(last)})`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}
