/**
 * 13. Start to ready in a real VS Code (code-server and Debian's Chromium, scripts/vscode-harness.mjs)
 *     with the extension's own bundled backend and its offline demo model, as a user without
 *     settings gets: from starting VS Code to the extension connected (the chat can answer), in
 *     rounds (the first is cold: disk caches; the figure is the median of the others). The
 *     breakdown comes from the extension's log file (timestamps): VS Code until it activates the
 *     extension, activate(), the backend's start (spawn to its "listening" line) and the handshake
 *     (to "Connected"). The baseline in the same run is VS Code's own start: until the workbench
 *     is on the page.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import { pathToFileURL } from 'node:url';
import { BENCH_DIR } from './lib/paths';
import { median } from './lib/stats';

interface HarnessModule {
  startVSCode(options: { workspace: string; onAutomationLog?: (type: string, message: string) => void }): Promise<{ tempDir: string; logTail(lines?: number): string; stop(): Promise<void> }>;
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

export interface StartToReadyResult {
  rounds: ReadyRound[];
  /** Medians over the warm rounds (all but the first). */
  warm: ReadyRound;
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

async function extensionLog(tempDir: string, timeoutMs: number): Promise<string> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    for (const file of findFiles(tempDir, (n) => n.endsWith('.log') && n.includes('Client Tools'))) {
      const text = fs.readFileSync(file, 'utf8');
      if (/Connected to /.test(text)) return text;
    }
    if (Date.now() > deadline) throw new Error('the extension did not log "Connected to" within the time limit');
    await new Promise((r) => setTimeout(r, 50));
  }
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
      const log = await extensionLog(vscode.tempDir, 90_000);
      const activated = lineTime(log, /Activated in ([\d.]+) ms/);
      const starting = lineTime(log, /Starting the bundled backend/);
      const listening = lineTime(log, /Bundled backend listening/);
      const connected = lineTime(log, /Connected to /);
      if (!activated || !starting || !listening || !connected) throw new Error(`the extension's log lacks a start line:\n${log.slice(0, 2000)}`);
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
  return { rounds, warm };
}
