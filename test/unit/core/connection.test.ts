import * as assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import * as http from 'node:http';
import * as net from 'node:net';
import type { AddressInfo } from 'node:net';
import { CodedError, ErrorCode, PROTOCOL, SUBPROTOCOL, type Welcome } from '../../../src/protocol';
import { backoffDelay, Connection, isLoopbackHost, validateBackendUrl, type ConnectionOptions, type ConnectionState } from '../../../src/core/connection';
import { ScriptedBackend } from '../../support/scripted-backend';
import { hello } from './hello-fixture';

/** Short intervals so every scenario finishes in well under a second. */
const FAST = { handshakeTimeoutMs: 300, heartbeatMs: 40, reconnect: { initialDelayMs: 20, maxDelayMs: 80, maxAttempts: 5 } };

function waitForState(conn: Connection, match: (s: ConnectionState) => boolean, timeoutMs = 3000): Promise<ConnectionState> {
  if (match(conn.state)) return Promise.resolve(conn.state);
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      sub.dispose();
      reject(new Error(`state never matched; last: ${JSON.stringify(conn.state)}`));
    }, timeoutMs);
    const sub = conn.onDidChangeState((s) => {
      if (!match(s)) return;
      clearTimeout(timer);
      sub.dispose();
      resolve(s);
    });
  });
}

const is = (kind: ConnectionState['kind']) => (s: ConnectionState) => s.kind === kind;

describe('connection', () => {
  const cleanups: (() => unknown)[] = [];
  afterEach(async () => {
    for (const c of cleanups.splice(0).reverse()) await c();
  });

  async function backend(options: Parameters<typeof ScriptedBackend.start>[0] = {}): Promise<ScriptedBackend> {
    const b = await ScriptedBackend.start(options);
    cleanups.push(() => b.close());
    return b;
  }

  function connect(url: string, extra: Partial<ConnectionOptions> = {}): Connection {
    const conn = new Connection({ url, token: 'test-token', buildHello: hello, ...FAST, ...extra });
    cleanups.push(() => conn.dispose());
    return conn;
  }

  describe('URL and token checks', () => {
    it('allows ws:// only for loopback hosts and needs wss:// elsewhere (FORBIDDEN)', () => {
      for (const url of ['ws://127.0.0.1:1', 'ws://127.1.2.3:1/path', 'ws://localhost:1', 'ws://[::1]:1', 'wss://example.com/agent', 'wss://10.0.0.5:443']) {
        assert.doesNotThrow(() => validateBackendUrl(url), url);
      }
      for (const url of ['ws://example.com:80', 'ws://10.0.0.5:1', 'ws://0.0.0.0:1', 'ws://127.0.0.1.evil.com:1', 'ws://localhost.evil.com:1', 'http://127.0.0.1:1', 'https://example.com', 'file:///tmp/sock', 'not a url', 'ws://user:pw@127.0.0.1:1']) {
        assert.throws(() => validateBackendUrl(url), (e: unknown) => e instanceof CodedError && e.code === ErrorCode.Forbidden, url);
      }
      assert.equal(isLoopbackHost('[::ffff:7f00:1]'), true);
      assert.equal(isLoopbackHost('128.0.0.1'), false);
    });

    it('refuses a missing token with UNAUTHORIZED', () => {
      assert.throws(() => new Connection({ url: 'ws://127.0.0.1:1', token: '', buildHello: hello }), (e: unknown) => e instanceof CodedError && e.code === ErrorCode.Unauthorized);
    });
  });

  it('connects with the token header and subprotocol, sends hello, and becomes connected on welcome', async () => {
    const b = await backend();
    const conn = connect(b.url);
    const states: string[] = [];
    conn.onDidChangeState((s) => states.push(s.kind));
    const welcomed = new Promise<Welcome>((resolve) => conn.onWelcome(resolve));
    conn.start();
    const welcome = await welcomed;
    assert.deepEqual(states, ['connecting', 'connected']);
    assert.equal(b.tokens[0], 'test-token');
    assert.equal(b.socket.protocol, SUBPROTOCOL);
    assert.equal(b.hellos.length, 1);
    assert.equal(b.hellos[0].resumeSession, undefined);
    assert.equal(conn.sessionId, welcome.sessionId);
    const state = conn.state;
    assert.ok(state.kind === 'connected' && !state.resumed);
  });

  it('stops at once on a wrong token (401 → UNAUTHORIZED), without retrying', async () => {
    const b = await backend({ token: 'other' });
    const conn = connect(b.url);
    conn.start();
    const s = await waitForState(conn, is('stopped'));
    assert.ok(s.kind === 'stopped' && s.code === ErrorCode.Unauthorized, JSON.stringify(s));
    assert.equal(b.hellos.length, 0);
  });

  it('does not follow a redirect; stops with FORBIDDEN', async () => {
    let followed = false;
    const target = http.createServer(() => (followed = true));
    const redirector = http.createServer((_req, res) => {
      res.writeHead(302, { location: `http://127.0.0.1:${(target.address() as AddressInfo).port}/` }).end();
    });
    for (const s of [target, redirector]) {
      await new Promise<void>((r) => s.listen(0, '127.0.0.1', r));
      cleanups.push(() => new Promise((r) => s.close(r)));
    }
    const conn = connect(`ws://127.0.0.1:${(redirector.address() as AddressInfo).port}`);
    conn.start();
    const s = await waitForState(conn, is('stopped'));
    assert.ok(s.kind === 'stopped' && s.code === ErrorCode.Forbidden && /redirect/.test(s.reason), JSON.stringify(s));
    assert.equal(followed, false);
  });

  it('times out a handshake without welcome and retries', async () => {
    const b = await backend({ silentHello: true });
    const conn = connect(b.url, { handshakeTimeoutMs: 60 });
    conn.start();
    const s = await waitForState(conn, is('reconnecting'));
    assert.ok(s.kind === 'reconnecting' && s.reason.includes(ErrorCode.HandshakeTimeout), JSON.stringify(s));
  });

  it('reconnects with backoff after the server drops the connection, and resumes the session', async () => {
    const b = await backend();
    const conn = connect(b.url);
    conn.start();
    await waitForState(conn, is('connected'));
    const first = conn.sessionId;
    const reconnecting = waitForState(conn, is('reconnecting'));
    b.dropClients();
    const r = await reconnecting;
    assert.ok(r.kind === 'reconnecting' && r.attempt === 1 && r.delayMs <= 20, JSON.stringify(r));
    const s = await waitForState(conn, is('connected'));
    assert.ok(s.kind === 'connected' && s.resumed && s.sessionId === first);
    assert.equal(b.hellos[1].resumeSession, first);
  });

  it('reconnects after the server is closed and restarted on the same port, sending resumeSession', async () => {
    const sessions = new Set<string>();
    const b1 = await ScriptedBackend.start({ sessions });
    const conn = connect(b1.url);
    conn.start();
    await waitForState(conn, is('connected'));
    const first = conn.sessionId as string;
    await b1.close();
    await waitForState(conn, (s) => s.kind === 'reconnecting' && s.attempt >= 2); // at least one refused attempt
    const b2 = await backend({ port: b1.port, sessions });
    const s = await waitForState(conn, is('connected'));
    assert.equal(b2.hellos[0].resumeSession, first);
    assert.ok(s.kind === 'connected' && s.resumed && s.sessionId === first);
  });

  it('starts a new session when the backend does not know the old one', async () => {
    const b1 = await ScriptedBackend.start();
    const conn = connect(b1.url);
    conn.start();
    await waitForState(conn, is('connected'));
    const first = conn.sessionId;
    await b1.close();
    await waitForState(conn, is('reconnecting'));
    const b2 = await backend({ port: b1.port }); // a fresh backend process: no sessions
    const s = await waitForState(conn, is('connected'));
    assert.equal(b2.hellos[0].resumeSession, first);
    assert.ok(s.kind === 'connected' && !s.resumed && s.sessionId !== first);
  });

  it('stops after maxAttempts failures in a row, with a reason; retry() starts again', async () => {
    const b1 = await ScriptedBackend.start();
    const port = b1.port;
    await b1.close();
    const conn = connect(`ws://127.0.0.1:${port}`, { reconnect: { initialDelayMs: 10, maxDelayMs: 20, maxAttempts: 2 } });
    const attempts: number[] = [];
    conn.onDidChangeState((s) => s.kind === 'reconnecting' && attempts.push(s.attempt));
    conn.start();
    const s = await waitForState(conn, is('stopped'));
    assert.ok(s.kind === 'stopped' && s.code === ErrorCode.Disconnected && /gave up after 2 attempts/.test(s.reason), JSON.stringify(s));
    assert.deepEqual(attempts, [1, 2]);
    await backend({ port });
    conn.retry();
    await waitForState(conn, is('connected'));
  });

  it('detects a silent peer with heartbeats (the server stops reading) and reconnects', async () => {
    const b = await backend();
    const conn = connect(b.url, { heartbeatMs: 30 });
    conn.start();
    await waitForState(conn, is('connected'));
    const frozenAt = Date.now();
    b.freezeClients();
    const s = await waitForState(conn, is('reconnecting'));
    const took = Date.now() - frozenAt;
    assert.ok(s.kind === 'reconnecting' && /heartbeat/.test(s.reason), JSON.stringify(s));
    // Without heartbeats a silent peer is never detected (the wait above would time out); the bound is
    // generous because a loaded machine delays timers, not because detection is slow.
    assert.ok(took < 5000, `detected after ${took} ms`);
    await waitForState(conn, is('connected'));
  });

  it('does not blame a healthy peer when this process was stalled (a blocked event loop)', async () => {
    const b = await backend();
    const conn = connect(b.url, { heartbeatMs: 30 });
    conn.start();
    await waitForState(conn, is('connected'));
    const states: string[] = [];
    conn.onDidChangeState((s) => states.push(s.kind));
    const until = Date.now() + 200;
    while (Date.now() < until) {
      // Busy for over six heartbeat intervals; the peer's pongs wait unread in the socket.
    }
    await new Promise((r) => setTimeout(r, 100));
    assert.deepEqual(states, []);
    assert.equal(conn.state.kind, 'connected');
  });

  it('detects a raw TCP peer that completes the upgrade and sends welcome, then never answers a ping', async () => {
    const sockets = new Set<net.Socket>();
    const server = net.createServer((socket) => {
      sockets.add(socket);
      socket.once('data', (data) => {
        const key = /sec-websocket-key: *(.+)\r\n/i.exec(data.toString())?.[1]?.trim() ?? '';
        const accept = createHash('sha1').update(`${key}258EAFA5-E914-47DA-95CA-C5AB0DC85B11`).digest('base64');
        socket.write(`HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\nConnection: Upgrade\r\nSec-WebSocket-Accept: ${accept}\r\nSec-WebSocket-Protocol: ${SUBPROTOCOL}\r\n\r\n`);
        const welcome: Welcome = {
          type: 'welcome', protocol: PROTOCOL, sessionId: 'raw-1', resumed: false,
          server: { name: 'raw', version: '0', model: { name: 'none', offline: true } },
          limits: { maxMessageBytes: 1_000_000, maxInFlight: 4, invokeTimeoutMs: 1000 },
        };
        const payload = Buffer.from(JSON.stringify(welcome));
        const header = Buffer.from([0x81, 126, payload.length >> 8, payload.length & 0xff]);
        socket.write(Buffer.concat([header, payload]));
        socket.pause(); // never read again: no pong, no close
      });
      socket.on('error', () => {});
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    cleanups.push(() => new Promise((r) => server.close(r)));
    cleanups.push(() => sockets.forEach((socket) => socket.destroy()));
    const conn = connect(`ws://127.0.0.1:${(server.address() as AddressInfo).port}`, { heartbeatMs: 30 });
    conn.start();
    await waitForState(conn, is('connected'));
    const s = await waitForState(conn, is('reconnecting'), 1000);
    assert.ok(s.kind === 'reconnecting' && /heartbeat/.test(s.reason), JSON.stringify(s));
  });

  it('reports a malformed message as a decode error and stays connected', async () => {
    const b = await backend();
    const conn = connect(b.url);
    conn.start();
    await waitForState(conn, is('connected'));
    const errors: string[] = [];
    const messages: string[] = [];
    conn.onDecodeError((e) => errors.push(e.code));
    conn.onMessage((m) => messages.push(m.type));
    b.sendRaw('{not json');
    b.sendRaw(JSON.stringify({ type: 'noSuchType' }));
    b.send({ type: 'error', code: 'X', message: 'still here' });
    await new Promise((r) => setTimeout(r, 30));
    assert.deepEqual(errors, [ErrorCode.ParseError, ErrorCode.UnknownType]);
    assert.deepEqual(messages, ['error']);
    assert.equal(conn.state.kind, 'connected');
  });

  it('refuses a message above maxMessageBytes by closing the socket, then reconnects and resumes', async () => {
    const b = await backend();
    const conn = connect(b.url, { maxMessageBytes: 4096 });
    conn.start();
    await waitForState(conn, is('connected'));
    const session = conn.sessionId;
    const reconnecting = waitForState(conn, is('reconnecting'));
    b.send({ type: 'error', code: 'BIG', message: 'x'.repeat(8000) });
    await reconnecting;
    const s = await waitForState(conn, is('connected'));
    assert.ok(s.kind === 'connected' && s.resumed && s.sessionId === session);
  });

  it('close() goes idle, forgets the session and does not reconnect; send() then returns false', async () => {
    const b = await backend();
    const conn = connect(b.url);
    conn.start();
    await waitForState(conn, is('connected'));
    conn.close();
    assert.equal(conn.state.kind, 'idle');
    assert.equal(conn.sessionId, undefined);
    assert.equal(conn.send({ type: 'resetThread', threadId: 't' }), false);
    await new Promise((r) => setTimeout(r, 60));
    assert.equal(b.hellos.length, 1);
  });

  it('backoff: the first retry comes within 1 s by default, delays grow and are capped, with jitter', () => {
    assert.ok(backoffDelay(1, 800, 30_000, () => 0.999) < 1000);
    assert.equal(backoffDelay(1, 800, 30_000, () => 0), 400);
    assert.equal(backoffDelay(3, 800, 30_000, () => 0), 1600);
    assert.equal(backoffDelay(20, 800, 30_000, () => 0), 15_000);
    assert.equal(backoffDelay(20, 800, 30_000, () => 1), 30_000);
  });
});
