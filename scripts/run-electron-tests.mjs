#!/usr/bin/env node
// `npm run test:electron`: the same extension-host suite as `npm run test:vscode`, but in desktop
// VS Code (Electron) downloaded by @vscode/test-electron. For developer machines with internet:
// the download from update.code.visualstudio.com is unreachable on the CI machines, which use
// scripts/run-vscode-tests.mjs (code-server) instead. On a Linux machine without a display, run it
// under `xvfb-run -a`.
//
// Environment:
//   CLIENT_TOOLS_VSCODE_VERSION  VS Code to test against (default 1.100.3, the oldest version
//                                engines.vscode accepts and the one CI runs; or `stable`, `insiders`)
import { runTests } from '@vscode/test-electron';
import { API_FIXTURE_EXTENSION, copyFixtureWorkspace, requireBuildOutputs, REPO_ROOT, SUITE_ENTRY } from './test-workspace.mjs';

const version = process.env.CLIENT_TOOLS_VSCODE_VERSION ?? '1.100.3';

try {
  requireBuildOutputs();
} catch (error) {
  console.error(`[test:electron] ${error instanceof Error ? error.message : String(error)}`);
  process.exit(1);
}

const { workspace, cleanup } = copyFixtureWorkspace();
try {
  await runTests({
    version,
    // The second path is a test-only extension that uses the Client Tools API.
    extensionDevelopmentPath: [REPO_ROOT, API_FIXTURE_EXTENSION],
    extensionTestsPath: SUITE_ENTRY,
    // The same environment the code-server runner gives the suite.
    extensionTestsEnv: { CLIENT_TOOLS_TEST: '1', CLIENT_TOOLS_TEST_WORKSPACE: workspace },
    launchArgs: [
      workspace,
      // Only the extension under development: other installed extensions would slow start-up
      // and could interfere with what the tests observe.
      '--disable-extensions',
      // Matches the code-server runner; workspace-trust behaviour gets tests of its own.
      '--disable-workspace-trust',
    ],
  });
} catch (error) {
  // runTests rejects with "Test run failed with code N" when the suite fails, and with a download
  // error when VS Code cannot be fetched.
  console.error(`[test:electron] FAILED: ${error instanceof Error ? error.message : String(error)}`);
  process.exitCode = 1;
} finally {
  cleanup();
}
