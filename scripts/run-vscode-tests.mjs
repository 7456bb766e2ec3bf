#!/usr/bin/env node
// `npm run test:vscode`: runs the extension-host suite (out/test/vscode/index.js, built from
// test/vscode/) inside a real VS Code (code-server) with this extension loaded for development,
// prints the suite's output, and exits with its result.
//
//   node scripts/run-vscode-tests.mjs                   VS Code 1.100 (the oldest supported)
//   node scripts/run-vscode-tests.mjs --vscode newest   the newest (see VSCODE_TARGETS)
//   (npm run test:vscode -- --vscode newest)
//
// Expects `npm run build` to have run. Installs code-server (and its Node) into the cache on first use.
// Environment:
//   CLIENT_TOOLS_VSCODE                  which VS Code when --vscode is not given (1.100 or newest)
//   CLIENT_TOOLS_VSCODE_TEST_TIMEOUT_MS  overall limit (default 15 minutes)
//   CLIENT_TOOLS_VERBOSE=1               echo code-server's output and the browser console
//   CLIENT_TOOLS_KEEP_TEMP=1             keep code-server's throw-away folder (logs, user data)
// The tests see CLIENT_TOOLS_TEST=1 and CLIENT_TOOLS_TEST_WORKSPACE (the workspace copy's path).
import { vscodeTarget } from './provision-code-server.mjs';
import { startVSCode } from './vscode-harness.mjs';
import { API_FIXTURE_EXTENSION, copyFixtureWorkspace, requireBuildOutputs, SUITE_ENTRY } from './test-workspace.mjs';

const TIMEOUT_MS = Number(process.env.CLIENT_TOOLS_VSCODE_TEST_TIMEOUT_MS ?? 15 * 60_000);
/** The last line index.ts prints; CI reads the counts from it, and its absence means no result. */
const SUMMARY_LINE = /^(\d+) passed, (\d+) failed$/m;
/** The first line index.ts prints; what the workbench logs before it is start-up chatter. */
const SUITE_START_LINE = /^\[client-tools\] running \d+ extension-host test file/;
/** Known harmless noise: the gallery (open-vsx.org) is unreachable without internet. */
const NOISE = /open-vsx\.org/;
const VERBOSE = process.env.CLIENT_TOOLS_VERBOSE === '1';

const target = targetFromArguments();
/** Every result line names the VS Code it ran in, so CI's matrix output says which one failed. */
const label = `VS Code ${target.vscode} (${target.name})`;

const started = Date.now();
const seconds = () => `${((Date.now() - started) / 1000).toFixed(1)} s`;

/** @returns {import('./provision-code-server.mjs').VSCodeTarget} from --vscode, else CLIENT_TOOLS_VSCODE */
function targetFromArguments() {
  const flag = process.argv.indexOf('--vscode');
  try {
    return vscodeTarget(flag >= 0 ? process.argv[flag + 1] : undefined);
  } catch (error) {
    console.error(`[test:vscode] ${error instanceof Error ? error.message : String(error)}`);
    process.exit(2);
  }
}

/** @param {number} ms */
function formatDuration(ms) {
  return ms >= 60_000 ? `${(ms / 60_000).toFixed(1)} min` : `${(ms / 1000).toFixed(1)} s`;
}

try {
  requireBuildOutputs();
} catch (error) {
  console.error(`[test:vscode] ${error instanceof Error ? error.message : String(error)}`);
  process.exit(1);
}

const { workspace, cleanup } = copyFixtureWorkspace();
// Also on Ctrl-C: the harness's signal handler stops VS Code and exits without returning here.
process.on('exit', cleanup);
/** @type {import('./vscode-harness.mjs').Harness | undefined} */
let harness;
let summary = '';
let suiteStarted = false;

// The whole run, including a cold code-server install, must end; a hung extension host would
// otherwise hold a CI job until its own much later limit, with no hint of what hung.
const timer = setTimeout(() => {
  console.error(`[test:vscode] ${label} FAILED: no result after ${formatDuration(TIMEOUT_MS)} (limit set by CLIENT_TOOLS_VSCODE_TEST_TIMEOUT_MS); stopping VS Code`);
  if (harness) console.error(`[test:vscode] last code-server output:\n${harness.logTail()}`);
  // process.exit runs the harness's exit handler, which kills code-server's process group even
  // when the harness is still starting.
  void (harness?.stop() ?? Promise.resolve()).finally(() => {
    cleanup();
    process.exit(1);
  });
}, TIMEOUT_MS);

let exitCode = 1;
try {
  harness = await startVSCode({
    vscode: target.name,
    workspace,
    extensionTestsPath: SUITE_ENTRY,
    // A second extension that uses the API and contributes a language-model tool.
    extensions: [API_FIXTURE_EXTENSION],
    // The suite may finish before the workbench is fully drawn; wait for its result only.
    waitForWorkbench: false,
    env: { CLIENT_TOOLS_TEST: '1', CLIENT_TOOLS_TEST_WORKSPACE: workspace },
    onAutomationLog(type, message) {
      if (SUITE_START_LINE.test(message)) suiteStarted = true;
      const match = SUMMARY_LINE.exec(message);
      if (match) summary = match[0];
      const isError = type === 'error' || type === 'warn' || type === 'warning';
      if (!VERBOSE && NOISE.test(message)) return;
      if (!suiteStarted && !isError && !VERBOSE) return;
      const text = suiteStarted ? message : `[workbench ${type}] ${message}`;
      if (isError) process.stderr.write(`${text}\n`);
      else process.stdout.write(`${text}\n`);
    },
  });
  console.error(`[test:vscode] ${label} started in ${seconds()} (code-server ${harness.vscode.codeServer} under Node ${harness.vscode.node} on port ${harness.port}, workspace ${workspace})`);
  const code = await harness.testsExitCode;
  if (code === 0 && !summary) {
    console.error('[test:vscode] FAILED: the suite ended without its "N passed, N failed" line (were its logs lost?)');
    exitCode = 1;
  } else {
    exitCode = code;
  }
  console.error(`[test:vscode] ${label} ${code === 0 ? 'passed' : `FAILED (exit code ${code})`}: ${summary || 'no counts'} in ${seconds()}`);
} catch (error) {
  console.error(`[test:vscode] ${label} FAILED: ${error instanceof Error ? error.message : String(error)}`);
  exitCode = 1;
} finally {
  clearTimeout(timer);
  await harness?.stop();
  cleanup();
}
process.exitCode = exitCode;
