/**
 * 5. In a real VS Code (code-server 4.100.3 with Debian's Chromium, scripts/vscode-harness.mjs):
 *    the extension's activation time (activate() logs it to its log channel; read from the log
 *    file), and OpenFile and GetSelection round trips driven from a scripted backend in this
 *    process (the extension connects to it through the `clientTools.backendUrl` setting and
 *    CLIENT_TOOLS_BACKEND_TOKEN), one call at a time.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import { pathToFileURL } from 'node:url';
import { ScriptedBackend } from '../test/support/scripted-backend';
import { BENCH_DIR } from './lib/paths';
import { median, percentile } from './lib/stats';

interface HarnessModule {
  startVSCode(options: {
    workspace: string;
    settings?: Record<string, unknown>;
    env?: Record<string, string>;
    onAutomationLog?: (type: string, message: string) => void;
  }): Promise<{ tempDir: string; port: number; logTail(lines?: number): string; stop(): Promise<void> }>;
}

interface WorkspaceModule {
  copyFixtureWorkspace(): { workspace: string; cleanup: () => void };
}

export interface VSCodeResult {
  startMs: number;
  activationMs: number;
  openFile: { medianUs: number; p99Us: number; calls: number };
  getSelection: { medianUs: number; p99Us: number; calls: number };
}

const TOKEN = `bench-vscode-${process.pid}-${Date.now()}`;

function findFiles(dir: string, match: (name: string) => boolean, out: string[] = []): string[] {
  for (const entry of fs.readdirSync(dir, { withFileTypes: true })) {
    const p = path.join(dir, entry.name);
    if (entry.isDirectory()) findFiles(p, match, out);
    else if (match(entry.name)) out.push(p);
  }
  return out;
}

async function activationFromLog(tempDir: string, timeoutMs: number): Promise<number> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    for (const file of findFiles(tempDir, (n) => n.endsWith('.log') && n.includes('Client Tools'))) {
      const m = /Activated in ([\d.]+) ms/.exec(fs.readFileSync(file, 'utf8'));
      if (m) return Number(m[1]);
    }
    if (Date.now() > deadline) throw new Error('no "Activated in … ms" line in the extension\'s log');
    await new Promise((r) => setTimeout(r, 200));
  }
}

export async function benchVSCode(options: { quick: boolean }): Promise<VSCodeResult> {
  // Loaded at run time by path (plain ESM scripts, their JSDoc documents the shapes), so that the
  // bundled benchmark uses the repository's copies instead of bundling them.
  const script = (name: string) => import(pathToFileURL(path.join(BENCH_DIR, '..', 'scripts', name)).href);
  const harness = (await script('vscode-harness.mjs')) as HarnessModule;
  const scripts = (await script('test-workspace.mjs')) as WorkspaceModule;
  const { workspace, cleanup } = scripts.copyFixtureWorkspace();
  const backend = await ScriptedBackend.start({ token: TOKEN, defaultTimeoutMs: 20_000 });
  const t0 = performance.now();
  const vscode = await harness.startVSCode({
    workspace,
    // The scripted backend calls tools outside any chat run: let those background calls through.
    settings: { 'clientTools.backendUrl': backend.url, 'clientTools.permissions.backgroundCalls': 'allow' },
    env: { CLIENT_TOOLS_BACKEND_TOKEN: TOKEN },
    onAutomationLog: () => {},
  });
  try {
    await backend.first('hello', () => true, 90_000);
    const startMs = performance.now() - t0;
    const activationMs = await activationFromLog(vscode.tempDir, 20_000);
    let n = 0;
    const call = async (toolName: string, args: Record<string, unknown>): Promise<number> => {
      const requestId = `bench-${++n}`;
      const started = performance.now();
      const res = await backend.call(toolName, args, { requestId });
      const us = (performance.now() - started) * 1000;
      if (!res.success) throw new Error(`${toolName} failed: ${res.errorCode} ${res.errorMessage}`);
      return us;
    };
    const calls = options.quick ? 20 : 50;
    const openArgs = { path: 'src/sample.ts', startLine: 1, startColumn: 1, endLine: 2, endColumn: 1 };
    for (let i = 0; i < 5; i++) await call('OpenFile', openArgs);
    const openFile: number[] = [];
    for (let i = 0; i < calls; i++) openFile.push(await call('OpenFile', openArgs));
    for (let i = 0; i < 5; i++) await call('GetSelection', {});
    const getSelection: number[] = [];
    for (let i = 0; i < calls; i++) getSelection.push(await call('GetSelection', {}));
    return {
      startMs,
      activationMs,
      openFile: { medianUs: median(openFile), p99Us: percentile(openFile, 99), calls },
      getSelection: { medianUs: median(getSelection), p99Us: percentile(getSelection, 99), calls },
    };
  } catch (e) {
    throw new Error(`${e instanceof Error ? e.message : String(e)}\ncode-server output:\n${vscode.logTail(30)}`);
  } finally {
    await vscode.stop();
    await backend.close();
    cleanup();
  }
}
