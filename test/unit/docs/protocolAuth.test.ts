/**
 * docs/PROTOCOL.md "Connecting and authentication", replayed against the real backend: every upgrade
 * request the page lists gets the answer the page gives, and the page states each case. Raw HTTP on
 * a loopback socket, so headers a WebSocket client would fix up (no Host, an empty Origin) go out as
 * written.
 */
import { strict as assert } from 'node:assert';
import { readFileSync } from 'node:fs';
import * as http from 'node:http';
import * as net from 'node:net';
import path from 'node:path';
import type { AddressInfo } from 'node:net';
import { WebSocketServer } from 'ws';
import type { Backend } from '../../../src/backend';
import { createBackend } from '../../../src/backend';
import { Connection, type ConnectionState } from '../../../src/core/connection';
import { ErrorCode, SUBPROTOCOL, TOKEN_HEADER } from '../../../src/protocol';
import { helloMessage } from '../../support/backend-client';

const doc = readFileSync(path.join(__dirname, '..', '..', '..', 'docs', 'PROTOCOL.md'), 'utf8');
const TOKEN = 'test-token-0123456789abcdef';

interface Answer {
  status: number;
  subprotocol: string | undefined;
}

/** Sends one upgrade request exactly as written and reads the status line and the subprotocol. */
function upgrade(port: number, headers: string[]): Promise<Answer> {
  const request = ['GET / HTTP/1.1', 'Upgrade: websocket', 'Connection: Upgrade', 'Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==', 'Sec-WebSocket-Version: 13', ...headers];
  return new Promise((resolve, reject) => {
    const socket = net.connect(port, '127.0.0.1', () => socket.write(`${request.join('\r\n')}\r\n\r\n`));
    let head = '';
    const done = () => {
      socket.destroy();
      const lines = head.split('\r\n');
      const status = Number(/^HTTP\/1\.1 (\d{3})/.exec(lines[0])?.[1] ?? 0);
      const protocol = lines.find((l) => /^sec-websocket-protocol:/i.test(l));
      resolve({ status, subprotocol: protocol?.split(':')[1].trim() });
    };
    socket.on('data', (d: Buffer) => {
      head += d.toString('latin1');
      if (head.includes('\r\n\r\n')) done();
    });
    socket.on('close', done);
    socket.on('error', reject);
  });
}

describe('docs/PROTOCOL.md: authentication, as the backend does it', () => {
  let backend: Backend;
  let host: string;
  const token = `${TOKEN_HEADER}: ${TOKEN}`;
  const offer = `Sec-WebSocket-Protocol: ${SUBPROTOCOL}`;
  before(async () => {
    backend = await createBackend({ token: TOKEN });
    host = `Host: 127.0.0.1:${backend.port}`;
  });
  after(() => backend.close());

  /** [what the page says, headers, the status]. */
  const cases = (): [string, string[], number][] => [
    ['`127.0.0.1`, `localhost` or `[::1]`', [host, token, offer], 101],
    ['`127.0.0.1`, `localhost` or `[::1]`', [`Host: localhost:${backend.port}`, token, offer], 101],
    ['`127.0.0.1`, `localhost` or `[::1]`', [`Host: [::1]:${backend.port}`, token, offer], 101],
    ['in any letter case', [`Host: LocalHost:${backend.port}`, token, offer], 101],
    ['with or without a port', ['Host: 127.0.0.1', token, offer], 101],
    ['`Origin` header at all, even an empty one or `null`', [host, token, offer, 'Origin: https://example.com'], 403],
    ['`Origin` header at all, even an empty one or `null`', [host, token, offer, 'Origin: null'], 403],
    ['`Origin` header at all, even an empty one or `null`', [host, token, offer, 'Origin: '], 403],
    ['A missing `Host`', [token, offer], 403],
    ['`127.0.0.2`', [`Host: 127.0.0.2:${backend.port}`, token, offer], 403],
    ['`127.1`', [`Host: 127.1:${backend.port}`, token, offer], 403],
    ['`localhost.`', [`Host: localhost.:${backend.port}`, token, offer], 403],
    ['`[0:0:0:0:0:0:0:1]`', [`Host: [0:0:0:0:0:0:0:1]:${backend.port}`, token, offer], 403],
    ['`[::ffff:127.0.0.1]`', [`Host: [::ffff:127.0.0.1]:${backend.port}`, token, offer], 403],
    ['a request with an `Origin` and a wrong token gets 403', [host, `${TOKEN_HEADER}: wrong`, offer, 'Origin: https://example.com'], 403],
    ['a foreign `Host` without a token gets 403', [`Host: evil.example:${backend.port}`, offer], 403],
    ['missing, empty or wrong', [host, offer], 401],
    ['missing, empty or wrong', [host, `${TOKEN_HEADER}: `, offer], 401],
    ['missing, empty or wrong', [host, `${TOKEN_HEADER}: ${TOKEN.replace(/.$/, 'X')}`, offer], 401],
  ];

  it('answers every listed upgrade request as the page says, in the order of its checks', async () => {
    for (const [said, headers, status] of cases()) {
      assert.ok(doc.includes(said), `the page says ${said}`);
      assert.equal((await upgrade(backend.port, headers)).status, status, `${headers.join(' / ')} (${said})`);
    }
  });

  it('selects client-tools.v1 when offered; without the offer the reference backend upgrades with no subprotocol, as the page says', async () => {
    assert.deepEqual(await upgrade(backend.port, [host, token, offer]), { status: 101, subprotocol: SUBPROTOCOL });
    assert.deepEqual(await upgrade(backend.port, [host, token]), { status: 101, subprotocol: undefined });
    assert.deepEqual(await upgrade(backend.port, [host, token, 'Sec-WebSocket-Protocol: other.v9']), { status: 101, subprotocol: undefined });
    assert.ok(doc.includes('upgrades a request that offers none without one'));
  });

  it('a plain HTTP request (no upgrade) gets 426', async () => {
    const status = await new Promise<number>((resolve, reject) => {
      http.get({ host: '127.0.0.1', port: backend.port, path: '/' }, (res) => {
        res.resume();
        resolve(res.statusCode ?? 0);
      }).on('error', reject);
    });
    assert.equal(status, 426);
    assert.ok(doc.includes('**426**'));
  });
});

describe('docs/PROTOCOL.md: a backend that does not select client-tools.v1', () => {
  it('is refused at once with PROTOCOL_MISMATCH: the extension stops, never connected, without retrying', async () => {
    // A WebSocket server that accepts the token but never selects the subprotocol.
    const server = http.createServer();
    const wss = new WebSocketServer({ server, handleProtocols: () => false });
    let upgrades = 0;
    wss.on('connection', (ws) => {
      upgrades++;
      ws.on('message', () => ws.send('{}'));
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const { port } = server.address() as AddressInfo;
    const states: ConnectionState[] = [];
    const connection = new Connection({ url: `ws://127.0.0.1:${port}`, token: TOKEN, buildHello: () => helloMessage(), reconnect: { initialDelayMs: 10, maxDelayMs: 20, maxAttempts: 5 } });
    connection.onDidChangeState((s) => states.push(s));
    try {
      const stopped = new Promise<ConnectionState>((resolve) => connection.onDidChangeState((s) => s.kind === 'stopped' && resolve(s)));
      connection.start();
      const last = (await stopped) as Extract<ConnectionState, { kind: 'stopped' }>;
      assert.ok(!states.some((s) => s.kind === 'connected' || s.kind === 'reconnecting'), states.map((s) => s.kind).join(', '));
      assert.equal(upgrades, 1, 'one attempt, no retries');
      assert.equal(last.code, ErrorCode.ProtocolMismatch);
      assert.match(last.reason, /did not select the WebSocket subprotocol client-tools\.v1 \(it sent none\)/);
      assert.ok(doc.includes('did not select the\nWebSocket subprotocol client-tools.v1 (it sent none)'), 'the page quotes the status');
    } finally {
      connection.dispose();
      wss.close();
      server.close();
    }
  });
});
