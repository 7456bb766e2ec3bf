import { strict as assert } from 'node:assert';
import { execFileSync, spawn } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { writeDiscoveryFile } from '../../../../src/backend/transport/discovery';
import { PROTOCOL } from '../../../../src/protocol';

const ROOT = path.resolve(__dirname, '../../../..');
const DEAD_PID = 2 ** 22 + 12345;

describe('backend discovery file: what is at the path and who owns the folder', () => {
  let tmp: string;
  const removers: (() => void)[] = [];

  beforeEach(() => {
    tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'ct-discovery-'));
  });
  afterEach(() => {
    for (const r of removers.splice(0)) r();
    fs.rmSync(tmp, { recursive: true, force: true });
  });

  const write = (file: string) => {
    const remove = writeDiscoveryFile(file, 1234, 'token-0123456789abcdef');
    removers.push(remove);
    return remove;
  };

  it('writes 0600 in its own 0700 folder and removes its own file', () => {
    const file = path.join(tmp, 'sub', 'backend.json');
    const remove = write(file);
    assert.equal(fs.statSync(file).mode & 0o777, 0o600);
    assert.deepEqual(JSON.parse(fs.readFileSync(file, 'utf8')), { port: 1234, token: 'token-0123456789abcdef', pid: process.pid, protocol: PROTOCOL });
    remove();
    assert.equal(fs.existsSync(file), false);
  });

  it('T-DISC-01 refuses a world-writable folder (0777) and a group-writable one (0770), saying so, and writes nothing', () => {
    const open = path.join(tmp, 'open');
    fs.mkdirSync(open);
    fs.chmodSync(open, 0o777);
    assert.throws(() => write(path.join(open, 'backend.json')), /may be written by every user \(mode 0777\)/);
    fs.chmodSync(open, 0o770);
    assert.throws(() => write(path.join(open, 'backend.json')), /may be written by its group \(mode 0770\)/);
    assert.deepEqual(fs.readdirSync(open), []);
  });

  it('T-DISC-02 refuses a folder that belongs to another user', () => {
    const uid = process.getuid?.();
    const foreign = path.join(tmp, 'foreign');
    fs.mkdirSync(foreign, { mode: 0o755 });
    // As root the folder can be given away; otherwise a folder of root's stands in (the root of the file system).
    const dir = uid === 0 ? foreign : '/';
    if (uid === 0) fs.chownSync(foreign, 65534, 65534);
    assert.throws(() => write(path.join(dir, `ct-discovery-${process.pid}.json`)), /belongs to another user/);
  });

  it('T-DISC-03 refuses a symbolic link at the path, even one to a stale discovery file, and leaves both alone', () => {
    const target = path.join(tmp, 'elsewhere.json');
    const stale = JSON.stringify({ port: 1, token: 'old', pid: DEAD_PID, protocol: PROTOCOL });
    fs.writeFileSync(target, stale);
    const file = path.join(tmp, 'backend.json');
    fs.symlinkSync(target, file);
    assert.throws(() => write(file), /is a symbolic link/);
    assert.equal(fs.lstatSync(file).isSymbolicLink(), true);
    assert.equal(fs.readFileSync(target, 'utf8'), stale);
    const dangling = path.join(tmp, 'dangling.json');
    fs.symlinkSync(path.join(tmp, 'nowhere'), dangling);
    assert.throws(() => write(dangling), /is a symbolic link/);
  });

  it('T-DISC-04 says what a foreign file is instead of blaming a running backend: a folder, a non-discovery file', () => {
    const folder = path.join(tmp, 'folder.json');
    fs.mkdirSync(folder);
    assert.throws(() => write(folder), /is a folder, not a discovery file/);
    const notes = path.join(tmp, 'notes.json');
    fs.writeFileSync(notes, 'my notes');
    assert.throws(() => write(notes), (e: Error) => /not a discovery file/.test(e.message) && !/running backend/.test(e.message));
    assert.equal(fs.readFileSync(notes, 'utf8'), 'my notes');
  });

  it('T-DISC-05 blames a running backend only when the file names a live process', () => {
    const file = path.join(tmp, 'backend.json');
    fs.writeFileSync(file, JSON.stringify({ port: 1, token: 'theirs', pid: process.ppid, protocol: PROTOCOL }));
    assert.throws(() => write(file), new RegExp(`belongs to a running backend \\(pid ${process.ppid}\\)`));
  });

  it('replaces a stale file of its own user', () => {
    const file = path.join(tmp, 'backend.json');
    fs.writeFileSync(file, JSON.stringify({ port: 1, token: 'old', pid: DEAD_PID, protocol: PROTOCOL }));
    write(file);
    assert.equal(JSON.parse(fs.readFileSync(file, 'utf8')).port, 1234);
  });

  it('T-DISC-06 a FIFO at the path makes the CLI exit at once with an error naming it, instead of hanging start-up', async function () {
    this.timeout(30_000);
    const fifo = path.join(tmp, 'backend.json');
    execFileSync('mkfifo', [fifo]);
    const env = { ...process.env, CLIENT_TOOLS_TOKEN: '' };
    const child = spawn(process.execPath, ['-r', 'tsx/cjs', 'src/backend/cli.ts', '--offline', '--discovery-file', fifo], { cwd: ROOT, env, stdio: ['ignore', 'pipe', 'pipe'] });
    let stderr = '';
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    // Generous: start-up takes a second or two; before, it blocked in open() for ever.
    const killer = setTimeout(() => child.kill('SIGKILL'), 20_000);
    const code = await new Promise<number | null>((resolve) => child.once('exit', (c) => resolve(c)));
    clearTimeout(killer);
    assert.equal(code, 1, `exit ${code}; stderr: ${stderr}`);
    assert.match(stderr, /is a FIFO \(named pipe\), not a discovery file/);
    assert.equal(fs.lstatSync(fifo).isFIFO(), true);
  });
});
