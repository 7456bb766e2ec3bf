// Shared by the extension-host test runners (code-server and @vscode/test-electron): checks that
// the build ran, and gives each run its own copy of the fixture workspace, because tests may edit
// files there and the checked-in fixture must stay as it is.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

export const REPO_ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
export const FIXTURE_WORKSPACE = path.join(REPO_ROOT, 'test', 'fixtures', 'workspace');
export const EXTENSION_ENTRY = path.join(REPO_ROOT, 'dist', 'extension.js');
export const SUITE_ENTRY = path.join(REPO_ROOT, 'out', 'test', 'vscode', 'index.js');
/** A test-only extension that registers tools through the Client Tools API (test/vscode/catalog.test.ts). */
export const API_FIXTURE_EXTENSION = path.join(REPO_ROOT, 'test', 'fixtures', 'api-extension');

/**
 * Throws a message that says what to run when the bundles the suite needs are missing.
 * (The runners do not build by themselves: `npm test` builds once, before the unit tests.)
 */
export function requireBuildOutputs() {
  const missing = [EXTENSION_ENTRY, SUITE_ENTRY].filter((file) => !fs.existsSync(file));
  if (missing.length > 0) {
    throw new Error(
      `missing build output:\n  ${missing.map((f) => path.relative(REPO_ROOT, f)).join('\n  ')}\n`
      + 'run `npm run build` first (it bundles the extension and test/vscode/*.ts into out/test/vscode/)',
    );
  }
}

/**
 * Copies test/fixtures/workspace to a fresh temporary folder.
 * @returns {{ workspace: string, cleanup: () => void }} workspace is the copy's absolute, real path
 *   (named `workspace`, as the explorer shows it); cleanup removes the copy
 */
export function copyFixtureWorkspace() {
  // realpath: on machines where the temp folder is a symlink, VS Code reports the real path.
  const parent = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'client-tools-ws-')));
  const workspace = path.join(parent, 'workspace');
  fs.cpSync(FIXTURE_WORKSPACE, workspace, { recursive: true });
  return { workspace, cleanup: () => fs.rmSync(parent, { recursive: true, force: true }) };
}
