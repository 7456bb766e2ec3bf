// Entry the extension host calls when VS Code starts with extensionTestsPath pointing at the
// bundle of this file (out/test/vscode/index.js). It runs every out/test/vscode/*.test.js (one
// bundle per test/vscode/*.test.ts, see esbuild.mjs) with mocha, inside the extension host, so the
// tests get the real `vscode` API.
//
// mocha stays external in the bundle: it is required at run time from this repository's
// node_modules, next to the extension under development.
import * as fs from 'node:fs';
import * as path from 'node:path';
import Mocha from 'mocha';

/** Optional filter for a local run, e.g. CLIENT_TOOLS_TEST_GREP="activates". */
const GREP = process.env.CLIENT_TOOLS_TEST_GREP;

export async function run(): Promise<void> {
  // The bundles carry inline source maps; this makes failure stacks point at test/vscode/*.ts.
  process.setSourceMapsEnabled(true);
  const mocha = new Mocha({
    ui: 'bdd',
    reporter: 'spec',
    // The output is forwarded through the workbench's log, not a terminal.
    color: false,
    // Extension activation and first file-system calls in a cold extension host can take seconds.
    timeout: 20_000,
    slow: 2_000,
  });
  if (GREP) mocha.grep(GREP);

  const files = fs.readdirSync(__dirname).filter((name) => name.endsWith('.test.js')).sort();
  if (files.length === 0) throw new Error(`no *.test.js files in ${__dirname}; did \`npm run build\` run?`);
  for (const name of files) mocha.addFile(path.join(__dirname, name));
  // Marks where the suite's own output begins; the runner hides the workbench's start-up chatter
  // that comes through the same channel before it.
  console.log(`[client-tools] running ${files.length} extension-host test file(s): ${files.join(', ')}`);

  const stats = await new Promise<Mocha.Stats>((resolve, reject) => {
    try {
      const runner = mocha.run(() => resolve(runner.stats ?? emptyStats()));
    } catch (error) {
      reject(error instanceof Error ? error : new Error(String(error)));
    }
  });

  // The last line, alone: scripts/run-vscode-tests.mjs and CI read the counts from it.
  if (stats.pending > 0) console.log(`${stats.pending} pending`);
  console.log(`${stats.passes} passed, ${stats.failures} failed`);
  if (stats.failures > 0) throw new Error(`${stats.failures} extension-host test(s) failed`);
  if (stats.passes === 0) throw new Error('no extension-host test ran');
}

function emptyStats(): Mocha.Stats {
  return { suites: 0, tests: 0, passes: 0, pending: 0, failures: 0 };
}
