// Starts a real VS Code (code-server: 4.100.3 = VS Code 1.100.3 by default, or the newest, see
// VSCODE_TARGETS in provision-code-server.mjs) with this extension under development, and a
// headless Debian Chromium connected to it. Used by the extension-host test
// runner, and meant for the UI tests, `npm start` and the benchmarks as well.
//
// Why this shape (details in /work/shared/notes/real-vscode.md):
// - code-server, not @vscode/test-electron: the machines that run CI cannot download VS Code.
// - A browser must be connected, or no extension host starts.
// - The extension under development and the test entry go through the page URL's `payload`
//   parameter; code-server rejects them as command-line flags.
// - Everything code-server writes (config, sockets, logs, user data) goes into one throw-away
//   folder, and the whole process tree is in one process group, so stop() leaves nothing behind.
//
// Usage:
//   const vscode = await startVSCode({ workspace: '/abs/folder', settings: { ... }, env: { ... } });
//   try { await vscode.page.click(...); } finally { await vscode.stop(); }
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { format } from 'node:util';
import { setTimeout as delay } from 'node:timers/promises';
import { chromium } from 'playwright-core';
import { nodeFor, provisionCodeServer, vscodeTarget } from './provision-code-server.mjs';

export const REPO_ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');

/** Debian's Chromium; Playwright's own browser download is unreachable here. */
export const DEFAULT_CHROMIUM = process.env.CLIENT_TOOLS_CHROMIUM ?? '/usr/bin/chromium';

/**
 * Flags for a headless Chromium in a container: no sandbox as root, no GPU, and no background
 * traffic to Google services that cannot be reached anyway. Playwright adds --headless itself.
 */
export const CHROMIUM_ARGS = [
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
  '--disable-dev-shm-usage',
];

/** User settings every run starts from; callers add their own on top. */
export const BASE_SETTINGS = {
  'workbench.startupEditor': 'none',
  'telemetry.telemetryLevel': 'off',
  // No update checks or recommendation toasts that could cover the UI under test.
  'update.mode': 'none',
  'extensions.autoCheckUpdates': false,
  'extensions.autoUpdate': false,
  'extensions.ignoreRecommendations': true,
  'workbench.tips.enabled': false,
  'workbench.enableExperiments': false,
  // code-server, like every web build of VS Code, auto-saves after 1 s by default; desktop VS Code,
  // which the extension's users run, does not. Off, so unsaved buffers stay unsaved as they do for
  // them (a loaded machine took over a second between an edit and GetOpenEditors in a test).
  'files.autoSave': 'off',
};

/**
 * Environment variables a parent process may have set that would change how code-server behaves:
 * VSCODE_* (e.g. VSCODE_IPC_HOOK_CLI inside a VS Code terminal turns code-server into a remote CLI),
 * PASSWORD / HASHED_PASSWORD (code-server's auth), and anything pointing at the user's own folders.
 */
const SCRUBBED_ENV = /^(VSCODE_.*|ELECTRON_RUN_AS_NODE|PASSWORD|HASHED_PASSWORD|CODE_SERVER_.*|XDG_RUNTIME_DIR)$/;

/**
 * @typedef {object} HarnessOptions
 * @property {string} workspace absolute path of the folder to open
 * @property {string | null} [extensionDevelopmentPath] folder of the extension under development
 *   (default: this repository); null loads none
 * @property {string[]} [extensions] folders of further unpacked extensions to install for this run
 *   (e.g. test fixtures that use this extension's API). code-server's `payload` keeps only one
 *   `extensionDevelopmentPath` (it is read into a Map), so these are linked into the throw-away
 *   extensions folder as `publisher.name-version` instead, which code-server scans at start.
 * @property {string} [extensionTestsPath] absolute path of a compiled test entry exporting run();
 *   when set, the extension host runs it and `testsExitCode` settles with its result
 * @property {Record<string, unknown>} [settings] user settings added to BASE_SETTINGS
 * @property {Record<string, string>} [env] extra environment for code-server; it reaches the
 *   extension host (process.env there)
 * @property {string[]} [codeServerArgs] extra code-server flags
 * @property {boolean} [launchBrowser=true] false: start only code-server (e.g. `npm start` prints
 *   the URL for the user's own browser); page, context and browser are then null
 * @property {boolean} [headless=true]
 * @property {{ width: number, height: number }} [viewport]
 * @property {boolean} [waitForWorkbench=true] resolve only once `.monaco-workbench` is on the page
 * @property {number} [startTimeoutMs=60000] limit for code-server's /healthz and the workbench
 * @property {(type: string, message: string) => void} [onAutomationLog] receives what the workbench
 *   sends to window.codeAutomationLog (with extensionTestsPath: the tests' console output); the
 *   default prints errors and warnings to stderr and the rest to stdout
 * @property {boolean} [verbose] echo code-server's output and the browser console to stderr
 *   (also CLIENT_TOOLS_VERBOSE=1)
 * @property {boolean} [keepTemp] keep the throw-away folder after stop() (also CLIENT_TOOLS_KEEP_TEMP=1)
 * @property {string} [vscode] which VS Code: `1.100` or `newest` (default: CLIENT_TOOLS_VSCODE,
 *   else 1.100); each runs its own code-server under the Node it requires
 * @property {string} [codeServerPath] binary to run (default: provisioned into the cache on demand)
 * @property {string} [chromiumPath] default /usr/bin/chromium or CLIENT_TOOLS_CHROMIUM
 */

/**
 * @typedef {object} Harness
 * @property {string} url the workbench URL the page was opened at
 * @property {{ name: string, version: string, codeServer: string, node: string }} vscode what runs:
 *   the target's name (1.100 or newest), VS Code and code-server versions, and the Node under it
 * @property {string} workspace the folder the workbench opened
 * @property {number} port code-server's port on 127.0.0.1
 * @property {string} baseUrl http://127.0.0.1:PORT
 * @property {import('playwright-core').Page | null} page
 * @property {import('playwright-core').BrowserContext | null} context
 * @property {import('playwright-core').Browser | null} browser
 * @property {number} codeServerPid also the process group id
 * @property {string} tempDir throw-away root (HOME, XDG_*, TMPDIR, user data, extensions, log)
 * @property {string} userDataDir
 * @property {string} extensionsDir
 * @property {string} logFile code-server's stdout and stderr
 * @property {Promise<number>} testsExitCode the code passed to window.codeAutomationExit (0 when
 *   the extension-host suite passed); rejects when code-server, the page or the browser dies first
 * @property {(lines?: number) => string} logTail last lines of code-server's output, for failures
 * @property {() => Promise<void>} stop closes the browser, kills code-server's process group,
 *   removes the throw-away folder; safe to call more than once
 */

/** @type {Set<{ stopSync: () => void, stop: () => Promise<void> }>} */
const liveHarnesses = new Set();

/**
 * Starts code-server and (by default) a browser on its workbench.
 * @param {HarnessOptions} options
 * @returns {Promise<Harness>}
 */
export async function startVSCode(options) {
  const {
    workspace,
    extensionDevelopmentPath = REPO_ROOT,
    extensionTestsPath,
    extensions = [],
    settings = {},
    env = {},
    codeServerArgs = [],
    launchBrowser = true,
    headless = true,
    viewport = { width: 1400, height: 900 },
    waitForWorkbench = true,
    startTimeoutMs = 60_000,
    onAutomationLog = defaultAutomationLog,
    verbose = process.env.CLIENT_TOOLS_VERBOSE === '1',
    keepTemp = process.env.CLIENT_TOOLS_KEEP_TEMP === '1',
    chromiumPath = DEFAULT_CHROMIUM,
  } = options;
  if (!workspace || !path.isAbsolute(workspace)) throw new Error('startVSCode: `workspace` must be an absolute path');
  if (!fs.existsSync(workspace)) throw new Error(`startVSCode: workspace ${workspace} does not exist`);
  if (launchBrowser && !fs.existsSync(chromiumPath)) {
    throw new Error(`Chromium not found at ${chromiumPath}: install the Debian package \`chromium\` (apt-get install -y chromium) or set CLIENT_TOOLS_CHROMIUM`);
  }
  const target = vscodeTarget(options.vscode);
  const codeServerPath = options.codeServerPath ?? await provisionCodeServer({ target });
  // code-server's launcher is a `#!/usr/bin/env node` script; the newest needs Node 24, which is
  // not the Node that runs the tests.
  const node = nodeFor(target);

  const tempDir = fs.mkdtempSync(path.join(os.tmpdir(), 'client-tools-vscode-'));
  const dirs = {
    home: path.join(tempDir, 'home'),
    config: path.join(tempDir, 'config'),
    data: path.join(tempDir, 'data'),
    cache: path.join(tempDir, 'cache'),
    tmp: path.join(tempDir, 'tmp'),
    userData: path.join(tempDir, 'user-data'),
    extensions: path.join(tempDir, 'extensions'),
  };
  for (const dir of Object.values(dirs)) fs.mkdirSync(dir, { recursive: true });
  fs.mkdirSync(path.join(dirs.userData, 'User'), { recursive: true });
  for (const folder of extensions) linkExtension(folder, dirs.extensions);
  const settingsJson = `${JSON.stringify({ ...BASE_SETTINGS, ...settings }, null, 2)}\n`;
  fs.writeFileSync(path.join(dirs.userData, 'User', 'settings.json'), settingsJson);
  // The same settings as the remote ("Machine") settings too: code-server is a remote window, and
  // VS Code after 1.100 reads machine-scoped settings (clientTools.backendUrl) only from there;
  // 1.100 also took them from the user settings. Both files cover both versions.
  fs.mkdirSync(path.join(dirs.userData, 'Machine'), { recursive: true });
  fs.writeFileSync(path.join(dirs.userData, 'Machine', 'settings.json'), settingsJson);
  const logFile = path.join(tempDir, 'code-server.log');

  /** @type {import('node:child_process').ChildProcess | undefined} */
  let server;
  /** @type {import('playwright-core').Browser | null} */
  let browser = null;
  /** @type {Promise<void> | undefined} */
  let stopping;
  const log = createLogBuffer(logFile, verbose);

  /** Last-resort cleanup from a process 'exit' handler, where nothing asynchronous runs. */
  const stopSync = () => {
    if (server?.pid) killGroup(server.pid, 'SIGKILL');
    if (!keepTemp) fs.rmSync(tempDir, { recursive: true, force: true });
  };
  const stop = () => {
    stopping ??= (async () => {
      try {
        if (browser) await withTimeout(browser.close(), 10_000).catch(() => undefined);
        if (server?.pid) await killGroupAndWait(server.pid);
      } finally {
        log.close();
        if (keepTemp) console.error(`[vscode-harness] kept ${tempDir}`);
        else fs.rmSync(tempDir, { recursive: true, force: true });
        untrack(handle);
      }
    })();
    return stopping;
  };
  const handle = { stop, stopSync };
  track(handle);

  try {
    const childEnv = {
      ...scrubEnv(process.env),
      // Keep code-server out of the real home: it writes a password file under ~/.config,
      // machine ids and logs under ~/.local, and sockets under /tmp otherwise.
      HOME: dirs.home,
      XDG_CONFIG_HOME: dirs.config,
      XDG_DATA_HOME: dirs.data,
      XDG_CACHE_HOME: dirs.cache,
      TMPDIR: dirs.tmp,
      // The Node code-server runs under also comes first for what it starts by name.
      PATH: `${node.binDir}${path.delimiter}${process.env.PATH ?? ''}`,
      ...env,
    };
    const started = await startCodeServer({
      nodePath: node.binary, codeServerPath, dirs, childEnv, codeServerArgs, log, startTimeoutMs,
      onSpawn: (child) => { server = child; },
    });
    const { port } = started;
    server = started.child;
    const baseUrl = `http://127.0.0.1:${port}`;
    const url = workbenchUrl({ baseUrl, port, workspace, extensionDevelopmentPath, extensionTestsPath });

    /** @type {(code: number) => void} */
    let resolveExit = () => undefined;
    /** @type {(error: Error) => void} */
    let rejectExit = () => undefined;
    /** @type {Promise<number>} */
    const testsExitCode = new Promise((resolve, reject) => { resolveExit = resolve; rejectExit = reject; });
    // Callers that never run tests never await this; keep its rejection from being "unhandled".
    testsExitCode.catch(() => undefined);
    server.on('exit', (code, signal) => {
      rejectExit(new Error(`code-server exited (${signal ?? `code ${code}`}) before the tests finished\n${log.tail()}`));
    });

    let page = null;
    let context = null;
    if (launchBrowser) {
      browser = await chromium.launch({ executablePath: chromiumPath, headless, args: CHROMIUM_ARGS });
      browser.on('disconnected', () => rejectExit(new Error('the browser closed before the tests finished')));
      context = await browser.newContext({ viewport });
      page = await context.newPage();
      page.on('crash', () => rejectExit(new Error('the workbench page crashed')));
      if (verbose) {
        page.on('console', (msg) => console.error(`[browser ${msg.type()}] ${msg.text()}`));
        page.on('pageerror', (error) => console.error(`[browser pageerror] ${error.message}`));
      }
      // Both must exist before the workbench script runs, so before goto.
      await page.exposeFunction('codeAutomationLog', (/** @type {string} */ type, /** @type {unknown} */ args) => {
        onAutomationLog(type, Array.isArray(args) ? format(...args) : format(args));
      });
      await page.exposeFunction('codeAutomationExit', (/** @type {number} */ code) => {
        resolveExit(typeof code === 'number' ? code : 1);
      });
      await page.goto(url, { waitUntil: 'domcontentloaded', timeout: startTimeoutMs });
      if (waitForWorkbench) await page.waitForSelector('.monaco-workbench', { timeout: startTimeoutMs });
    }

    return {
      url,
      vscode: { name: target.name, version: target.vscode, codeServer: target.codeServer, node: node.version },
      workspace,
      port,
      baseUrl,
      page,
      context,
      browser,
      codeServerPid: /** @type {number} */ (server.pid),
      tempDir,
      userDataDir: dirs.userData,
      extensionsDir: dirs.extensions,
      logFile,
      testsExitCode,
      logTail: (lines) => log.tail(lines),
      stop,
    };
  } catch (error) {
    await stop();
    throw error;
  }
}

/**
 * The workbench URL that opens `workspace` and loads the extension under development.
 * The payload's URIs must name the host:port the page itself is loaded from.
 * @param {{ baseUrl: string, port: number, workspace: string, extensionDevelopmentPath?: string | null, extensionTestsPath?: string }} args
 * @returns {string}
 */
export function workbenchUrl({ baseUrl, port, workspace, extensionDevelopmentPath, extensionTestsPath }) {
  const remote = (/** @type {string} */ p) => `vscode-remote://127.0.0.1:${port}${encodePath(p)}`;
  /** @type {[string, string][]} */
  const payload = [];
  if (extensionDevelopmentPath) payload.push(['extensionDevelopmentPath', remote(path.resolve(extensionDevelopmentPath))]);
  if (extensionTestsPath) payload.push(['extensionTestsPath', remote(path.resolve(extensionTestsPath))]);
  let url = `${baseUrl}/?folder=${encodeURIComponent(workspace)}`;
  if (payload.length > 0) url += `&payload=${encodeURIComponent(JSON.stringify(payload))}`;
  return url;
}

/**
 * Links an unpacked extension folder into an extensions folder under the name VS Code expects.
 * @param {string} folder
 * @param {string} extensionsDir
 */
function linkExtension(folder, extensionsDir) {
  const manifest = JSON.parse(fs.readFileSync(path.join(folder, 'package.json'), 'utf8'));
  if (!manifest.publisher || !manifest.name || !manifest.version) throw new Error(`startVSCode: ${folder}/package.json needs publisher, name and version`);
  fs.symlinkSync(path.resolve(folder), path.join(extensionsDir, `${manifest.publisher}.${manifest.name}-${manifest.version}`), 'dir');
}

/** @param {string} absPath */
function encodePath(absPath) {
  return absPath.split('/').map(encodeURIComponent).join('/');
}

/**
 * Spawns code-server in its own process group and waits for /healthz. Retries on a new port when
 * the free port we picked was taken in between (the race is rare but real on a busy CI machine).
 * @param {{
 *   nodePath: string, codeServerPath: string, dirs: Record<string, string>, childEnv: NodeJS.ProcessEnv,
 *   codeServerArgs: string[], log: LogBuffer, startTimeoutMs: number,
 *   onSpawn: (child: import('node:child_process').ChildProcess) => void,
 * }} args
 * @returns {Promise<{ child: import('node:child_process').ChildProcess, port: number }>}
 */
async function startCodeServer({ nodePath, codeServerPath, dirs, childEnv, codeServerArgs, log, startTimeoutMs, onSpawn }) {
  for (let attempt = 1; ; attempt++) {
    const port = await freePort();
    const args = [
      '--auth', 'none',
      '--bind-addr', `127.0.0.1:${port}`,
      '--user-data-dir', dirs.userData,
      '--extensions-dir', dirs.extensions,
      '--disable-telemetry',
      '--disable-update-check',
      '--disable-workspace-trust',
      '--disable-getting-started-override',
      '--ignore-last-opened',
      ...codeServerArgs,
    ];
    // detached = setsid(): code-server, its extension hosts and pty hosts share one new process
    // group that stop() can kill as a whole.
    const child = spawn(nodePath, [codeServerPath, ...args], { env: childEnv, cwd: dirs.home, detached: true, stdio: ['ignore', 'pipe', 'pipe'] });
    onSpawn(child);
    child.stdout?.on('data', (chunk) => log.write(chunk));
    child.stderr?.on('data', (chunk) => log.write(chunk));
    const exited = new Promise((resolve) => child.once('exit', (code, signal) => resolve(signal ?? `code ${code}`)));
    child.once('error', (error) => log.write(Buffer.from(`spawn error: ${error.message}\n`)));

    const outcome = await Promise.race([
      waitForHealthz(port, startTimeoutMs).then((ok) => (ok ? 'healthy' : 'timeout')),
      exited.then((how) => `exited (${how})`),
    ]);
    if (outcome === 'healthy') return { child, port };
    if (child.pid) await killGroupAndWait(child.pid);
    if (outcome.startsWith('exited') && /EADDRINUSE/.test(log.tail()) && attempt < 3) continue;
    throw new Error(`code-server did not become ready on port ${port}: ${outcome}\n${log.tail()}`);
  }
}

/**
 * @param {number} port
 * @param {number} timeoutMs
 * @returns {Promise<boolean>}
 */
async function waitForHealthz(port, timeoutMs) {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    try {
      const response = await fetch(`http://127.0.0.1:${port}/healthz`, { signal: AbortSignal.timeout(2000) });
      if (response.ok) return true;
    } catch {
      // not listening yet
    }
    await delay(100);
  }
  return false;
}

/** @returns {Promise<number>} a port that was free on 127.0.0.1 a moment ago */
function freePort() {
  return new Promise((resolve, reject) => {
    const server = net.createServer();
    server.unref();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      const port = typeof address === 'object' && address ? address.port : 0;
      server.close(() => resolve(port));
    });
  });
}

/**
 * @param {number} pgid
 * @param {NodeJS.Signals | 0} signal
 * @returns {boolean} false when no process of the group is left
 */
function killGroup(pgid, signal) {
  try {
    process.kill(-pgid, signal);
    return true;
  } catch (error) {
    return /** @type {NodeJS.ErrnoException} */ (error).code !== 'ESRCH';
  }
}

/**
 * SIGTERM to the whole group, then SIGKILL for whatever is still there after 5 s. Waits until the
 * group is empty, so a following run cannot meet an extension host of this one.
 * @param {number} pgid
 */
async function killGroupAndWait(pgid) {
  if (!killGroup(pgid, 'SIGTERM')) return;
  if (await groupGone(pgid, 5000)) return;
  killGroup(pgid, 'SIGKILL');
  await groupGone(pgid, 5000);
}

/**
 * @param {number} pgid
 * @param {number} timeoutMs
 * @returns {Promise<boolean>} true once no process of the group is left
 */
async function groupGone(pgid, timeoutMs) {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (!groupHasLiveMembers(pgid)) return true;
    await delay(50);
  }
  return false;
}

/**
 * Like kill(-pgid, 0), but a zombie does not count: an extension host whose parent died first
 * waits to be reaped by PID 1, which in some containers takes seconds or never happens.
 * @param {number} pgid
 * @returns {boolean}
 */
function groupHasLiveMembers(pgid) {
  if (!killGroup(pgid, 0)) return false;
  if (process.platform !== 'linux') return true;
  for (const entry of fs.readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    let stat;
    try {
      stat = fs.readFileSync(`/proc/${entry}/stat`, 'utf8');
    } catch {
      continue; // exited while we looked
    }
    // "pid (comm) state ppid pgrp ...": comm may hold spaces and parentheses, so split after it.
    const [state, , pgrp] = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    if (Number(pgrp) === pgid && state !== 'Z' && state !== 'X') return true;
  }
  return false;
}

/**
 * @template T
 * @param {Promise<T>} promise
 * @param {number} ms
 * @returns {Promise<T>}
 */
function withTimeout(promise, ms) {
  // ref: false, or the pending timer would keep the caller's process alive after a fast close.
  const timeout = delay(ms, undefined, { ref: false }).then(() => { throw new Error(`timed out after ${ms} ms`); });
  return Promise.race([promise, timeout]);
}

/**
 * @param {NodeJS.ProcessEnv} env
 * @returns {NodeJS.ProcessEnv}
 */
function scrubEnv(env) {
  return Object.fromEntries(Object.entries(env).filter(([key]) => !SCRUBBED_ENV.test(key)));
}

/** @param {string} type @param {string} message */
function defaultAutomationLog(type, message) {
  if (type === 'error' || type === 'warn' || type === 'warning') process.stderr.write(`${message}\n`);
  else process.stdout.write(`${message}\n`);
}

/**
 * @typedef {{ write: (chunk: Buffer) => void, tail: (lines?: number) => string, close: () => void }} LogBuffer
 */

/**
 * code-server's output goes to a file (kept with CLIENT_TOOLS_KEEP_TEMP=1) and a small in-memory
 * tail that failures print, so a red CI run says why without rerunning it verbose.
 * @param {string} file
 * @param {boolean} echo
 * @returns {LogBuffer}
 */
function createLogBuffer(file, echo) {
  const stream = fs.createWriteStream(file);
  /** @type {string[]} */
  let lines = [];
  let partial = '';
  return {
    write(chunk) {
      stream.write(chunk);
      if (echo) process.stderr.write(chunk);
      const parts = (partial + chunk.toString('utf8')).split('\n');
      partial = parts.pop() ?? '';
      lines.push(...parts);
      if (lines.length > 400) lines = lines.slice(-200);
    },
    tail(count = 40) {
      const all = partial ? [...lines, partial] : lines;
      return all.slice(-count).map((line) => `  | ${line}`).join('\n');
    },
    close() {
      stream.end();
    },
  };
}

// Signals: stop every live harness before exiting, so an interrupted run (Ctrl-C, CI timeout)
// leaves no code-server, extension host or browser behind. Installed only while a harness runs,
// so importing this module does not change how the caller's process reacts to signals.
/** @type {Map<NodeJS.Signals, () => void>} */
const signalHandlers = new Map();
const exitHandler = () => { for (const h of liveHarnesses) h.stopSync(); };

/** @param {{ stop: () => Promise<void>, stopSync: () => void }} handle */
function track(handle) {
  if (liveHarnesses.size === 0) {
    for (const signal of /** @type {NodeJS.Signals[]} */ (['SIGINT', 'SIGTERM', 'SIGHUP'])) {
      const handler = () => {
        console.error(`[vscode-harness] ${signal}: stopping VS Code`);
        void Promise.allSettled([...liveHarnesses].map((h) => h.stop()))
          .finally(() => process.exit(128 + (os.constants.signals[signal] ?? 1)));
      };
      signalHandlers.set(signal, handler);
      process.on(signal, handler);
    }
    process.on('exit', exitHandler);
  }
  liveHarnesses.add(handle);
}

/** @param {{ stop: () => Promise<void>, stopSync: () => void }} handle */
function untrack(handle) {
  liveHarnesses.delete(handle);
  if (liveHarnesses.size === 0) {
    for (const [signal, handler] of signalHandlers) process.off(signal, handler);
    signalHandlers.clear();
    process.off('exit', exitHandler);
  }
}
