/**
 * The kit's size check against backends that close correctly but end TCP first: a close frame with
 * 1009 sent while the kit is still writing the oversized message, then a half-close and no more
 * reading. Python's `websockets` closes this way; before the kit read the close frame itself it
 * reported "the connection closed first" about half the time. Twenty runs each, all must pass.
 */
import * as assert from 'node:assert/strict';
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import * as path from 'node:path';
import * as readline from 'node:readline';
import { checkBackend } from '../../../src/conformance/backend';
import { startHalfCloseBackend, type HalfCloseBackend } from '../../support/halfCloseBackend';

/** Far more than the socket buffers take on loopback, so the kit is still writing when the close comes. */
const LIMIT = 16 * 1024 * 1024;
const RUNS = 20;
/** Debian's python3 has python3-websockets (scripts/ensure-system.mjs installs it); a pyenv python3 on PATH may not. */
const PYTHON = process.env.CLIENT_TOOLS_PYTHON ?? '/usr/bin/python3';

async function sizeCheckRuns(url: string, token: string): Promise<string[]> {
  const outcomes: string[] = [];
  for (let i = 0; i < RUNS; i++) {
    const report = await checkBackend({ url, token, originCheck: false, prompt: '', waitMs: 10_000, checks: ['limits.message-too-large'] });
    assert.equal(report.results.length, 1);
    outcomes.push(`${report.results[0].status}: ${report.results[0].actual}`);
  }
  return outcomes;
}

describe('conformance kit: the size check against a backend that half-closes', function () {
  this.timeout(240_000);

  it(`a Node socket that ends right after its 1009 close frame: ${RUNS} of ${RUNS} pass`, async () => {
    let backend: HalfCloseBackend | undefined;
    try {
      backend = await startHalfCloseBackend(LIMIT);
      const outcomes = await sizeCheckRuns(backend.url, backend.token);
      assert.deepEqual(outcomes, Array<string>(RUNS).fill('pass: closed with 1009'));
    } finally {
      await backend?.close();
    }
  });

  it(`a Python websockets server: ${RUNS} of ${RUNS} pass`, async () => {
    const probe = spawnSync(PYTHON, ['-c', 'import websockets'], { encoding: 'utf8' });
    assert.equal(probe.status, 0, `${PYTHON} cannot import websockets (apt-get install python3-websockets, or set CLIENT_TOOLS_PYTHON): ${probe.stderr ?? probe.error?.message}`);
    let child: ChildProcess | undefined;
    try {
      child = spawn(PYTHON, [path.join(__dirname, '../../support/halfCloseBackend.py'), String(LIMIT)], { stdio: ['ignore', 'pipe', 'inherit'] });
      const line = await new Promise<string>((resolve, reject) => {
        child!.once('exit', (code) => reject(new Error(`the Python backend exited with ${code}`)));
        readline.createInterface({ input: child!.stdout! }).once('line', resolve);
      });
      const { port } = JSON.parse(line) as { port: number };
      const outcomes = await sizeCheckRuns(`ws://127.0.0.1:${port}`, 'python-accepts-any-token');
      assert.deepEqual(outcomes, Array<string>(RUNS).fill('pass: closed with 1009'));
    } finally {
      child?.kill('SIGKILL');
    }
  });
});
