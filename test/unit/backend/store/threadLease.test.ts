import { strict as assert } from 'node:assert';
import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { FolderLeases } from '../../../../src/backend/store/threadLease';

describe('store/threadLease: per-thread writer leases in a folder', () => {
  let dir: string;
  beforeEach(() => (dir = fs.mkdtempSync(path.join(os.tmpdir(), 'ct-lease-'))));
  afterEach(() => fs.rmSync(dir, { recursive: true, force: true }));

  it('one holder at a time: a second taker (another store, as in another process) gets none until the first releases', async () => {
    const [one, two] = [new FolderLeases(dir), new FolderLeases(dir)];
    const held = await one.take('k');
    assert.ok(held);
    assert.equal((fs.statSync(path.join(dir, 'k.lease')).mode & 0o777).toString(8), '600');
    assert.equal(await two.take('k'), undefined);
    assert.ok(await two.take('other'), 'leases are per thread');
    await held.release();
    assert.ok(await two.take('k'));
  });

  it('breaks a lease whose process is gone', async () => {
    const dead = spawnSync(process.execPath, ['-e', 'process.stdout.write(String(process.pid))']).stdout.toString();
    fs.writeFileSync(path.join(dir, 'k.lease'), JSON.stringify({ pid: Number(dead), nonce: 'gone' }), { mode: 0o600 });
    assert.ok(await new FolderLeases(dir).take('k'));
  });

  it('breaks a lease not renewed within its expiry, even when its pid is alive (pids are reused)', async () => {
    const file = path.join(dir, 'k.lease');
    fs.writeFileSync(file, JSON.stringify({ pid: process.pid, nonce: 'someone' }), { mode: 0o600 });
    const old = new Date(Date.now() - 120_000);
    fs.utimesSync(file, old, old);
    assert.ok(await new FolderLeases(dir).take('k'));
  });

  it('renews a held lease, so it never expires while held', async () => {
    const leases = new FolderLeases(dir, { renewMs: 20, expireMs: 100 });
    const held = await leases.take('k');
    assert.ok(held);
    await new Promise((resolve) => setTimeout(resolve, 250));
    assert.equal(await new FolderLeases(dir, { renewMs: 20, expireMs: 100 }).take('k'), undefined);
    await held.release();
  });

  it('a release never removes a lease someone else took after an expiry', async () => {
    const first = new FolderLeases(dir, { renewMs: 60_000, expireMs: 50 });
    const held = await first.take('k');
    assert.ok(held);
    await new Promise((resolve) => setTimeout(resolve, 120));
    const second = await new FolderLeases(dir, { renewMs: 60_000, expireMs: 50 }).take('k');
    assert.ok(second, 'the expired lease was broken');
    await held.release();
    assert.ok(fs.existsSync(path.join(dir, 'k.lease')), "the second holder's lease is still there");
  });
});
