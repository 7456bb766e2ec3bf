/**
 * 13. Start to ready in a real VS Code (code-server and Debian's Chromium, scripts/vscode-harness.mjs)
 *     with the extension's own bundled backend and its offline demo model, as a user without
 *     settings gets. Two figures:
 *     - window open (the target's): VS Code already running, the chat view open, the window
 *       reloaded (what "Developer: Reload Window" or opening a window does): from the navigation to
 *       the extension connected; the first reload is not counted. Not the chat view's connection
 *       dot: the view restores its saved state, "connected" included, before the extension is.
 *       The baseline is VS Code's own part of the same reload: its workbench on the page.
 *     - server start (information): from starting code-server to connected, with the chat view
 *       closed as in a fresh profile (VS Code activates the extension at onStartupFinished then);
 *       the first start is cold, the figure is the median of the others.
 *     The breakdowns come from the extension's log file and the extension host's (timestamps).
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import { pathToFileURL } from 'node:url';
import { BENCH_DIR } from './lib/paths';
import type { Page } from 'playwright-core';
import { median } from './lib/stats';

interface HarnessModule {
  startVSCode(options: { workspace: string; onAutomationLog?: (type: string, message: string) => void }): Promise<{ tempDir: string; page: Page; logTail(lines?: number): string; stop(): Promise<void> }>;
}

interface WorkspaceModule {
  copyFixtureWorkspace(): { workspace: string; cleanup: () => void };
}

export interface ReadyRound {
  /** VS Code started → the workbench on the page (the baseline). */
  workbenchMs: number;
  /** VS Code started → the extension connected to its backend. */
  readyMs: number;
  /** VS Code started → activate() began. */
  untilActivationMs: number;
  activationMs: number;
  /** "Starting the bundled backend" → its "listening" line. */
  backendStartMs: number;
  /** Backend listening → "Connected". */
  handshakeMs: number;
}

export interface WindowRound {
  /** Navigation → the workbench on the page (the baseline: VS Code's own part). */
  workbenchMs: number;
  /** Navigation → the extension host asked to activate the extension. */
  activationRequestedMs: number;
  /** The activation event VS Code names in its extension host log (onView:clientTools.chat when the chat view is open). */
  activationEvent: string;
  /** Activation requested → activate() began: dist/extension.js loading, in an extension host busy with other extensions. */
  loadMs: number;
  activationMs: number;
  /** "Starting the bundled backend" → its "listening" line. */
  backendStartMs: number;
  /** Backend listening → "Connected". */
  handshakeMs: number;
  /** Navigation → "Connected" in the extension's log: the chat can answer (the figure). */
  connectedMs: number;
}

export interface StartToReadyResult {
  rounds: ReadyRound[];
  /** Medians over the warm rounds (all but the first). */
  warm: ReadyRound;
  /** Reloads of a running VS Code with the chat view open; the first is not counted. */
  windowRounds: WindowRound[];
  /** Medians over the counted reloads. */
  window: WindowRound;
}

export const READY_TARGET_MS = 1500;

function findFiles(dir: string, match: (name: string) => boolean, out: string[] = []): string[] {
  for (const entry of fs.readdirSync(dir, { withFileTypes: true })) {
    const p = path.join(dir, entry.name);
    if (entry.isDirectory()) findFiles(p, match, out);
    else if (match(entry.name)) out.push(p);
  }
  return out;
}

/** Epoch ms of the first log line matching `pattern` (VS Code writes local time with ms: `2026-11-27 12:50:01.123 [info] …`). */
function lineTime(log: string, pattern: RegExp): { at: number; match: RegExpExecArray } | undefined {
  for (const line of log.split('\n')) {
    const m = pattern.exec(line);
    const t = /^(\d{4}-\d{2}-\d{2}) (\d{2}:\d{2}:\d{2}\.\d{3})/.exec(line);
    if (m && t) return { at: new Date(`${t[1]}T${t[2]}`).getTime(), match: m };
  }
  return undefined;
}

async function extensionLog(tempDir: string, timeoutMs: number, skip: ReadonlySet<string> = new Set()): Promise<{ file: string; text: string }> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    for (const file of findFiles(tempDir, (n) => n.endsWith('.log') && n.includes('Client Tools'))) {
      if (skip.has(file)) continue;
      const text = fs.readFileSync(file, 'utf8');
      if (/Connected to /.test(text)) return { file, text };
    }
    if (Date.now() > deadline) throw new Error('the extension did not log "Connected to" within the time limit');
    await new Promise((r) => setTimeout(r, 50));
  }
}

interface StartLines {
  activated: { at: number; match: RegExpExecArray };
  starting: { at: number };
  listening: { at: number };
  connected: { at: number };
}

function startLines(log: string): StartLines {
  const activated = lineTime(log, /Activated in ([\d.]+) ms/);
  const starting = lineTime(log, /Starting the bundled backend/);
  const listening = lineTime(log, /Bundled backend listening/);
  const connected = lineTime(log, /Connected to /);
  if (!activated || !starting || !listening || !connected) throw new Error(`the extension's log lacks a start line:\n${log.slice(0, 2000)}`);
  return { activated, starting, listening, connected };
}

const CHAT_CONNECTED = '.conn-dot.conn-connected';

function chatFrame(page: Page) {
  return page.frameLocator('iframe.webview').frameLocator('iframe#active-frame');
}

/**
 * One code-server; the chat view opened from the activity bar (VS Code keeps it open across
 * reloads, as for a user who had it open), then `reloads` reloads of the window, each read from
 * the new extension host's logs (its folder: logs/<session>/exthostN/).
 */
async function windowOpenRounds(harness: HarnessModule, scripts: WorkspaceModule, reloads: number): Promise<WindowRound[]> {
  const { workspace, cleanup } = scripts.copyFixtureWorkspace();
  const vscode = await harness.startVSCode({ workspace, onAutomationLog: () => {} });
  const rounds: WindowRound[] = [];
  try {
    const page = vscode.page;
    await page.locator('.activitybar [aria-label^="Client Tools"]').first().click({ timeout: 30_000 });
    await chatFrame(page).locator(CHAT_CONNECTED).waitFor({ timeout: 90_000 });
    for (let i = 0; i < reloads; i++) {
      const seen = new Set(findFiles(vscode.tempDir, (n) => n.endsWith('.log') && n.includes('Client Tools')));
      const navigated = Date.now();
      await page.reload({ waitUntil: 'domcontentloaded' });
      await page.waitForSelector('.monaco-workbench', { timeout: 60_000 });
      const workbenchMs = Date.now() - navigated;
      const { file, text } = await extensionLog(vscode.tempDir, 90_000, seen);
      const lines = startLines(text);
      const hostLog = fs.readFileSync(path.join(path.dirname(path.dirname(file)), 'remoteexthost.log'), 'utf8');
      const requested = lineTime(hostLog, /_doActivateExtension client-tools\.client-tools,.*activationEvent: '([^']+)'/);
      if (!requested) throw new Error(`the extension host's log does not name the extension's activation:\n${hostLog.slice(0, 2000)}`);
      const activationMs = Number(lines.activated.match[1]);
      rounds.push({
        workbenchMs,
        activationRequestedMs: requested.at - navigated,
        activationEvent: requested.match[1],
        loadMs: lines.activated.at - activationMs - requested.at,
        activationMs,
        backendStartMs: lines.listening.at - lines.starting.at,
        handshakeMs: lines.connected.at - lines.listening.at,
        connectedMs: lines.connected.at - navigated,
      });
      // Let the window settle (the other extensions' start) before the next reload.
      await new Promise((r) => setTimeout(r, 2000));
    }
  } catch (e) {
    throw new Error(`${e instanceof Error ? e.message : String(e)}\ncode-server output:\n${vscode.logTail(30)}`);
  } finally {
    await vscode.stop();
    cleanup();
  }
  return rounds;
}

export async function benchStartToReady(options: { quick: boolean }): Promise<StartToReadyResult> {
  const script = (name: string) => import(pathToFileURL(path.join(BENCH_DIR, '..', 'scripts', name)).href);
  const harness = (await script('vscode-harness.mjs')) as HarnessModule;
  const scripts = (await script('test-workspace.mjs')) as WorkspaceModule;
  const rounds: ReadyRound[] = [];
  for (let i = 0; i < (options.quick ? 2 : 4); i++) {
    const { workspace, cleanup } = scripts.copyFixtureWorkspace();
    const started = Date.now();
    const vscode = await harness.startVSCode({ workspace, onAutomationLog: () => {} });
    const workbenchMs = Date.now() - started;
    try {
      const { activated, starting, listening, connected } = startLines((await extensionLog(vscode.tempDir, 90_000)).text);
      const activationMs = Number(activated.match[1]);
      rounds.push({
        workbenchMs,
        readyMs: connected.at - started,
        untilActivationMs: activated.at - activationMs - started,
        activationMs,
        backendStartMs: listening.at - starting.at,
        handshakeMs: connected.at - listening.at,
      });
    } catch (e) {
      throw new Error(`${e instanceof Error ? e.message : String(e)}\ncode-server output:\n${vscode.logTail(30)}`);
    } finally {
      await vscode.stop();
      cleanup();
    }
  }
  const warmRounds = rounds.slice(1);
  const med = (key: keyof ReadyRound) => median(warmRounds.map((r) => r[key]));
  const warm: ReadyRound = { workbenchMs: med('workbenchMs'), readyMs: med('readyMs'), untilActivationMs: med('untilActivationMs'), activationMs: med('activationMs'), backendStartMs: med('backendStartMs'), handshakeMs: med('handshakeMs') };
  const windowRounds = await windowOpenRounds(harness, scripts, options.quick ? 3 : 6);
  const counted = windowRounds.slice(1);
  const wmed = (key: Exclude<keyof WindowRound, 'activationEvent'>) => median(counted.map((r) => r[key]));
  const events = [...new Set(counted.map((r) => r.activationEvent))].join(', ');
  const window: WindowRound = {
    workbenchMs: wmed('workbenchMs'), activationRequestedMs: wmed('activationRequestedMs'), activationEvent: events, loadMs: wmed('loadMs'), activationMs: wmed('activationMs'),
    backendStartMs: wmed('backendStartMs'), handshakeMs: wmed('handshakeMs'), connectedMs: wmed('connectedMs'),
  };
  return { rounds, warm, windowRounds, window };
}
