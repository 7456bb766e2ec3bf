#!/usr/bin/env node
// Runs a command with CLIENT_TOOLS_VSCODE set, so that `npm run test:e2e:newest` works the same
// from every shell (an inline `VAR=value command` in package.json does not work on Windows).
//
//   node scripts/with-vscode.mjs newest mocha --config test/e2e/.mocharc.json
import { spawnSync } from 'node:child_process';
import { vscodeTarget } from './provision-code-server.mjs';

const [name, command, ...args] = process.argv.slice(2);
if (!name || !command) {
  console.error('usage: node scripts/with-vscode.mjs <1.100|newest> <command> [args...]');
  process.exit(2);
}
// Fails early, with the list of known names, on a typo.
const target = vscodeTarget(name);
const result = spawnSync(command, args, {
  stdio: 'inherit',
  shell: process.platform === 'win32',
  env: { ...process.env, CLIENT_TOOLS_VSCODE: target.name },
});
process.exitCode = result.status ?? 1;
