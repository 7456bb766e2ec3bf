/**
 * The extension's Connection against a shared backend with per-user credentials: a named token or a
 * JWT stored as its token gets it in and resumes its own session after a drop (the backend checks
 * the user again on resume); a 503 while the backend cannot check credentials is retried, not
 * final, so the editor gets in once the tokens file is fixed.
 */
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as net from 'node:net';
import type { AddressInfo } from 'node:net';
import * as os from 'node:os';
import * as path from 'node:path';
import type { JWK } from 'jose';
import { exportJWK, generateKeyPair, SignJWT } from 'jose';
import { createBackend, type Backend } from '../../../src/backend';
import { hashToken } from '../../../src/backend/auth/tokenHash';
import { Connection, type ConnectionState } from '../../../src/core/connection';
import { hello } from './hello-fixture';

const NAMED = 'ctt_named-token-for-bob-0123456789abcdefghijklm';

function waitForState(conn: Connection, match: (s: ConnectionState) => boolean, timeoutMs = 8000): Promise<ConnectionState> {
  if (match(conn.state)) return Promise.resolve(conn.state);
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`state never matched; last: ${JSON.stringify(conn.state)}`)), timeoutMs);
    const sub = conn.onDidChangeState((s) => {
      if (!match(s)) return;
      clearTimeout(timer);
      sub.dispose();
      resolve(s);
    });
  });
}

/** A loopback relay whose connections can be cut, so the Connection reconnects. */
async function relayTo(port: number): Promise<{ url: string; cut: () => void; close: () => Promise<void> }> {
  const sockets = new Set<net.Socket>();
  const server = net.createServer((client) => {
    const backend = net.connect(port, '127.0.0.1');
    for (const s of [client, backend]) {
      sockets.add(s);
      s.on('close', () => sockets.delete(s)).on('error', () => s.destroy());
    }
    client.pipe(backend);
    backend.pipe(client);
    client.on('close', () => backend.destroy());
    backend.on('close', () => client.destroy());
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const cut = () => {
    for (const s of sockets) s.destroy();
  };
  return {
    url: `ws://127.0.0.1:${(server.address() as AddressInfo).port}`,
    cut,
    close: () => {
      cut();
      return new Promise((r) => server.close(() => r()));
    },
  };
}

describe('connection: per-user credentials on a shared backend', () => {
  let dir: string;
  let backend: Backend;
  let jwt: string;
  let conn: Connection | undefined;
  let relay: Awaited<ReturnType<typeof relayTo>> | undefined;

  beforeEach(async () => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'ct-conn-auth-'));
    const { privateKey, publicKey } = await generateKeyPair('ES256');
    const jwk: JWK = { ...(await exportJWK(publicKey)), kid: 'k', alg: 'ES256' };
    fs.writeFileSync(path.join(dir, 'jwks.json'), JSON.stringify({ keys: [jwk] }));
    jwt = await new SignJWT({}).setProtectedHeader({ alg: 'ES256', kid: 'k' }).setIssuer('https://id').setAudience('ct').setSubject('alice').setExpirationTime('5m').sign(privateKey);
    fs.writeFileSync(path.join(dir, 'tokens'), `bob sha256:${hashToken(NAMED)}\n`, { mode: 0o600 });
    backend = await createBackend({ token: 'shared-token-0123456789abcdef', tokensFile: path.join(dir, 'tokens'), jwt: { issuer: 'https://id', audience: 'ct', jwksFile: path.join(dir, 'jwks.json') } });
  });
  afterEach(async () => {
    conn?.dispose();
    conn = undefined;
    await relay?.close();
    relay = undefined;
    await backend.close();
    fs.rmSync(dir, { recursive: true, force: true });
  });

  for (const kind of ['a named token', 'a JWT'] as const) {
    it(`with ${kind} as its token it connects, and after a drop resumes its own session`, async () => {
      relay = await relayTo(backend.port);
      conn = new Connection({ url: relay.url, token: kind === 'a JWT' ? jwt : NAMED, buildHello: hello, reconnect: { initialDelayMs: 20, maxDelayMs: 80, maxAttempts: 5 } });
      conn.start();
      const first = await waitForState(conn, (s) => s.kind === 'connected');
      relay.cut();
      await waitForState(conn, (s) => s.kind === 'reconnecting');
      const again = await waitForState(conn, (s) => s.kind === 'connected');
      assert.ok(first.kind === 'connected' && again.kind === 'connected');
      assert.equal(again.sessionId, first.sessionId);
      assert.equal(again.resumed, true);
    });
  }

  it('a 503 while the tokens file is unusable is retried, and the editor gets in once it is fixed', async function () {
    if (process.platform === 'win32') return;
    const file = path.join(dir, 'tokens');
    fs.chmodSync(file, 0o666);
    conn = new Connection({ url: `ws://127.0.0.1:${backend.port}`, token: NAMED, buildHello: hello, reconnect: { initialDelayMs: 50, maxDelayMs: 200, maxAttempts: 50 } });
    conn.start();
    const retrying = await waitForState(conn, (s) => s.kind === 'reconnecting' || s.kind === 'stopped');
    assert.equal(retrying.kind, 'reconnecting', JSON.stringify(retrying));
    fs.chmodSync(file, 0o600);
    await waitForState(conn, (s) => s.kind === 'connected');
  });
});
