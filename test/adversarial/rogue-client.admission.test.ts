/**
 * A rogue client tries to lock real users out of the real backend by holding its doors: TCP
 * sockets that never finish their request (slowloris), upgraded connections that never say hello,
 * sessions that hold every attached slot, and a churn of new sessions meant to evict a real session
 * that is briefly disconnected. The real user always gets in (or, for a new session at a real
 * limit, a clear SERVER_BUSY), and a resumable session is never the price.
 */
import * as assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import * as net from 'node:net';
import * as path from 'node:path';
import { ErrorCode } from '../../src/protocol';
import { helloMessage, TestClient } from '../support/backend-client';
import { startBackend, TOKEN, type BackendRig } from './support/backend-rig';
import { until } from './support/core-rig';

/** A TCP connection that sends half an upgrade request and then nothing (slowloris). */
function slowSocket(port: number): Promise<{ socket: net.Socket; closed: () => boolean }> {
  return new Promise((resolve, reject) => {
    let closed = false;
    const socket = net.connect(port, '127.0.0.1', () => {
      socket.write(`GET / HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\nUpgrade: websocket\r\n`);
      resolve({ socket, closed: () => closed });
    });
    socket.on('close', () => (closed = true));
    socket.on('error', (e) => {
      if (!closed) reject(e);
    });
  });
}

describe('rogue client: admission', () => {
  let rig: BackendRig | undefined;
  const sockets: net.Socket[] = [];
  /** False where a test fills every session slot on purpose (it proves liveness itself). */
  let checkAlive = true;

  afterEach(async () => {
    for (const s of sockets.splice(0)) s.destroy();
    if (rig) {
      if (checkAlive) await rig.assertAlive();
      checkAlive = true;
      await rig.close();
    }
    rig = undefined;
  });

  it('T-ADM-01 a socket that never completes its request is dropped at the header deadline, not on a 30 s sweep', async () => {
    rig = await startBackend({ headersTimeoutMs: 300 });
    const slow = await Promise.all(Array.from({ length: 20 }, () => slowSocket(rig!.backend.port)));
    sockets.push(...slow.map((s) => s.socket));
    // Generous: the deadline is 0.3 s; before, Node's sweep ran every 30 s on a 10 s deadline.
    await until(() => slow.every((s) => s.closed()), 'every slow socket closed', 8_000);
  });

  it('T-ADM-02 a flood of 600 slowloris sockets keeps at most maxPendingSockets open, and the editor still connects and runs', async () => {
    rig = await startBackend({ maxPendingSockets: 50 });
    const slow: { socket: net.Socket; closed: () => boolean }[] = [];
    for (let i = 0; i < 600; i++) slow.push(await slowSocket(rig.backend.port));
    sockets.push(...slow.map((s) => s.socket));
    // The oldest waiting sockets were dropped as new ones arrived; the file descriptors they held are free.
    await until(() => slow.filter((s) => !s.closed()).length <= 50, 'at most 50 slow sockets open', 8_000);
    const editor = await rig.open();
    const { finished } = await editor.run('t', 'hello');
    assert.equal(finished.reason, 'completed');
    assert.ok(rig.logs.some((l) => /dropped a connection before its upgrade/.test(l)), 'the drops are logged');
  });

  it('T-ADM-03 maxConnections upgraded connections that never say hello cannot keep the editor out: the oldest silent one makes room', async () => {
    rig = await startBackend({ maxConnections: 4 });
    const silent: TestClient[] = [];
    for (let i = 0; i < 4; i++) silent.push(await TestClient.connect(rig.backend.url, TOKEN));
    rig.clients.push(...silent);
    const editor = await rig.open();
    const { finished } = await editor.run('t', 'hello');
    assert.equal(finished.reason, 'completed');
    const first = await silent[0].closed;
    assert.equal(first.code, 1013);
    assert.equal(silent[0].all('error')[0]?.code, ErrorCode.ServerBusy);
  });

  it('T-ADM-04 with every attached slot held by other sessions, a briefly disconnected session still resumes; a new session gets SERVER_BUSY and 1013, not a bare 503', async () => {
    rig = await startBackend({ maxConnections: 3 });
    const editor = await rig.open();
    const { sessionId, resumeSecret } = editor.all('welcome')[0];
    await editor.run('mine', 'hello');
    await editor.drop();
    for (let i = 0; i < 3; i++) await rig.open();

    const back = await TestClient.connect(rig.backend.url, TOKEN);
    rig.clients.push(back);
    const welcome = await back.hello({ resumeSession: sessionId, resumeSecret });
    assert.equal(welcome.sessionId, sessionId);
    assert.equal(welcome.resumed, true);

    const stranger = await TestClient.connect(rig.backend.url, TOKEN);
    rig.clients.push(stranger);
    stranger.send(helloMessage());
    const refused = await stranger.next('error');
    assert.equal(refused.code, ErrorCode.ServerBusy);
    assert.match(refused.message, /connected/);
    assert.equal((await stranger.closed).code, 1013);
    // Room again once two of them leave (the resume went past the cap, as resumes may).
    let gone = 0;
    rig.backend.on('disconnect', () => gone++);
    await back.close();
    await rig.clients[1].close();
    await until(() => gone >= 2, 'two disconnects');
  });

  it('T-ADM-05 a churn of new sessions that each leave a thread behind never evicts a real session waiting for its resume: they get SERVER_BUSY', async () => {
    // maxConnections 2 → 8 sessions in all, the cap the old code also derived.
    rig = await startBackend({ maxConnections: 2 });
    checkAlive = false;
    const editor = await rig.open();
    const { sessionId, resumeSecret } = editor.all('welcome')[0];
    await editor.run('mine', 'hello');
    await editor.drop();

    const codes: string[] = [];
    for (let i = 0; i < 24; i++) {
      const c = await TestClient.connect(rig.backend.url, TOKEN);
      c.send(helloMessage());
      const first = await Promise.race([c.next('welcome').then(() => 'welcome'), c.next('error').then((e) => e.code)]);
      codes.push(first);
      if (first === 'welcome') await c.run(`t${i}`, 'hello');
      await c.drop();
    }
    assert.ok(codes.includes(ErrorCode.ServerBusy), `no SERVER_BUSY among ${codes.join(', ')}`);

    const back = await TestClient.connect(rig.backend.url, TOKEN);
    rig.clients.push(back);
    const welcome = await back.hello({ resumeSession: sessionId, resumeSecret });
    assert.equal(welcome.resumed, true, 'the real session was evicted');
    assert.equal(back.all('error').length, 0);
    // The thread is still there: a run on it continues its history.
    const { finished } = await back.run('mine', 'hello again');
    assert.equal(finished.reason, 'completed');
  });

  it('T-ADM-06 a churn of idle sessions (no thread, no call) makes room by evicting idle ones, never the real session with a thread', async () => {
    rig = await startBackend({ maxConnections: 2 });
    const editor = await rig.open();
    const { sessionId, resumeSecret } = editor.all('welcome')[0];
    await editor.run('mine', 'hello');
    await editor.drop();
    for (let i = 0; i < 40; i++) {
      const c = await TestClient.connect(rig.backend.url, TOKEN);
      assert.equal((await c.hello()).resumed, false);
      await c.drop();
    }
    const back = await TestClient.connect(rig.backend.url, TOKEN);
    rig.clients.push(back);
    assert.equal((await back.hello({ resumeSession: sessionId, resumeSecret })).resumed, true, 'the real session was evicted');
  });

  it('T-ADM-07 the CLI under a 256 file limit: 500 slowloris sockets do not exhaust it, and the editor still connects and runs', async function () {
    this.timeout(60_000);
    const env: NodeJS.ProcessEnv = { ...process.env, CLIENT_TOOLS_TOKEN: TOKEN };
    delete env.OPENAI_API_KEY;
    delete env.OPENAI_BASE_URL;
    delete env.CLIENT_TOOLS_MODEL;
    const child = spawn('sh', ['-c', 'ulimit -n 256 && exec "$0" "$@"', process.execPath, '-r', 'tsx/cjs', 'src/backend/cli.ts', '--offline', '--log-level', 'error'], {
      cwd: path.join(__dirname, '..', '..'),
      env,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    try {
      const port = await new Promise<number>((resolve, reject) => {
        let out = '';
        child.stdout.on('data', (d: Buffer) => {
          out += d.toString();
          const m = /"port":(\d+)/.exec(out);
          if (m) resolve(Number(m[1]));
        });
        child.once('exit', (code) => reject(new Error(`the backend exited (${code})`)));
      });
      for (let i = 0; i < 500; i++) {
        try {
          sockets.push((await slowSocket(port)).socket);
        } catch {
          // A refused connection is the backend defending itself, not a failure of the attack loop.
        }
      }
      // Generous: a connection and a run take well under a second; before, the backend could not accept one.
      const editor = await Promise.race([
        TestClient.open(`ws://127.0.0.1:${port}`, TOKEN),
        new Promise<never>((_, reject) => setTimeout(() => reject(new Error('the editor could not connect within 15 s')), 15_000)),
      ]);
      const { finished } = await editor.client.run('t', 'hello');
      assert.equal(finished.reason, 'completed');
      await editor.client.drop();
    } finally {
      child.kill('SIGKILL');
    }
  });
});
