/**
 * The shipped backend CLI keeps the tokenizer's tables in a file of their own: run by plain Node as
 * the extension runs it, dist/backend/cli.js with the offline demo model is listening without
 * having loaded dist/backend/o200kEncoding.js, and a backend that counts (a context window set)
 * loads it from beside the bundle at start.
 */
import * as assert from 'node:assert/strict';
import { execFile, spawn } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { promisify } from 'node:util';

const run = promisify(execFile);
const ROOT = path.resolve(__dirname, '../../..');
const CLI = path.join(ROOT, 'dist/backend/cli.js');
const ENCODING = path.join(ROOT, 'dist/backend/o200kEncoding.js');

// Preloaded into the CLI: when it prints its listening line, the tokenizer modules it has loaded go to stderr.
const PRELOAD = `
const write = process.stdout.write.bind(process.stdout);
process.stdout.write = (chunk, ...rest) => {
  if (String(chunk).includes('"listening"')) {
    const loaded = Object.keys(require.cache).filter((f) => /o200k|gpt-tokenizer/.test(f));
    process.stderr.write('LOADED ' + JSON.stringify(loaded) + '\\n');
  }
  return write(chunk, ...rest);
};
`;

describe('backend bundle: the tokenizer in its own file', () => {
  let dir: string;
  before(async function () {
    this.timeout(120_000);
    if (!existsSync(CLI) || !existsSync(ENCODING)) await run(process.execPath, ['esbuild.mjs'], { cwd: ROOT });
    dir = mkdtempSync(path.join(tmpdir(), 'ct-bundle-tokenizer-'));
    writeFileSync(path.join(dir, 'preload.js'), PRELOAD);
  });
  after(() => rmSync(dir, { recursive: true, force: true }));

  /** Starts the CLI with `args` until it listens; returns the tokenizer files loaded by then. */
  function loadedAtListening(args: string[]): Promise<string[]> {
    return new Promise((resolve, reject) => {
      const child = spawn(process.execPath, ['--require', path.join(dir, 'preload.js'), CLI, '--port', '0', '--offline', '--data-dir', path.join(dir, 'data'), ...args], {
        env: { ...process.env, CLIENT_TOOLS_TOKEN: 'bundle-tokenizer-token-0123456789abcdef' },
        stdio: ['ignore', 'ignore', 'pipe'],
      });
      let stderr = '';
      const timer = setTimeout(() => child.kill(), 30_000);
      child.stderr.on('data', (chunk: Buffer) => {
        stderr += String(chunk);
        const m = /LOADED (.*)\n/.exec(stderr);
        if (m) {
          clearTimeout(timer);
          child.kill();
          resolve(JSON.parse(m[1]) as string[]);
        }
      });
      child.once('exit', (code) => {
        clearTimeout(timer);
        reject(new Error(`the CLI exited (code ${code}) before listening:\n${stderr}`));
      });
    });
  }

  it('the offline demo listens without loading the tables; a context window loads dist/backend/o200kEncoding.js at start', async function () {
    this.timeout(60_000);
    assert.deepEqual(await loadedAtListening([]), []);
    assert.deepEqual(await loadedAtListening(['--context-window', '8192']), [ENCODING]);
  });
});
