import { strict as assert } from 'node:assert';
import { spawn } from 'node:child_process';
import { randomInt } from 'node:crypto';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import * as readline from 'node:readline';
import { LogStore } from '../../../../src/backend/store/logStore';
import type { Logger } from '../../../../src/base/logger';
import { silentLogger } from '../../../../src/base/logger';

const WRITER = path.join(__dirname, 'crashWriter.ts');
const KILLS = 20;

/** Starts the writer, lets it ack at least one append, kills it with SIGKILL at a random moment; returns the acked numbers. */
function writeThenKill(dataDir: string, first: number): Promise<number[]> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['--require', 'tsx/cjs', WRITER, dataDir, String(first)], { stdio: ['ignore', 'pipe', 'inherit'] });
    const acked: number[] = [];
    let armed = false;
    readline.createInterface({ input: child.stdout }).on('line', (line) => {
      const m = /^ack (\d+)$/.exec(line);
      if (!m) return;
      acked.push(Number(m[1]));
      if (armed) return;
      armed = true;
      setTimeout(() => child.kill('SIGKILL'), randomInt(0, 150));
    });
    child.once('error', reject);
    child.once('exit', (_code, signal) => (signal === 'SIGKILL' ? resolve(acked) : reject(new Error(`the writer exited on its own (${signal ?? _code})`))));
  });
}

describe('LogStore: crash consistency under a real kill -9', () => {
  let dir: string;
  before(() => (dir = fs.mkdtempSync(path.join(os.tmpdir(), 'ct-crash-'))));
  after(() => fs.rmSync(dir, { recursive: true, force: true }));

  it(`${KILLS} writers killed mid-write: every acknowledged message loads, in order, nothing corrupt, torn tails dropped`, async function () {
    this.timeout(240_000);
    const acked: number[] = [];
    let next = 0;
    for (let i = 0; i < KILLS; i++) {
      const got = await writeThenKill(dir, next);
      assert.ok(got.length > 0);
      acked.push(...got);
      // Unacknowledged appends may have landed too; numbers stay unique by starting past anything written.
      next = got[got.length - 1] + 1000;
    }
    const warnings: string[] = [];
    const log: Logger = { ...silentLogger, warn: (m: string) => warnings.push(m) };
    const store = await LogStore.open(dir, log);
    const thread = await store.load('crash-thread');
    await store.close();
    assert.ok(thread);
    const loaded = thread.messages.map((m) => {
      const match = /^(\d+):x+$/.exec(m.content as string);
      assert.ok(match, 'every loaded message is whole');
      return Number(match[1]);
    });
    const present = new Set(loaded);
    for (const n of acked) assert.ok(present.has(n), `acknowledged message ${n} is there`);
    assert.deepEqual(loaded, [...loaded].sort((a, b) => a - b), 'in the order written');
    assert.equal(present.size, loaded.length, 'none twice');
    // The last writer's torn tail (if its kill landed mid-write) is reported on load, and nothing else is.
    assert.ok(warnings.length <= 1, warnings.join('\n'));
  });
});
