/**
 * Revocation takes effect on sessions already open: an operator removes a user's named token, or a
 * user's JWT expires, and that user's sessions end within the check interval with a coded close
 * (CREDENTIALS_REVOKED, 4011), a run in progress included; other users go on. Before, a revoked
 * token kept its open session until it ended. And the JWKS a backend fetches is read up to a cap:
 * a 400 MB key-set response added 1.4 GiB.
 */
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as http from 'node:http';
import type { AddressInfo } from 'node:net';
import * as os from 'node:os';
import * as path from 'node:path';
import type { JWK } from 'jose';
import { exportJWK, generateKeyPair, SignJWT } from 'jose';
import { createBackend, type Backend, type BackendOptions } from '../../src/backend';
import { hashToken } from '../../src/backend/auth/tokenHash';
import { ErrorCode } from '../../src/protocol';
import { TestClient } from '../support/backend-client';
import { startFakeOpenAI, type FakeOpenAI } from '../support/fake-openai';
import { sample } from '../support/ops-http';

const SHARED = 'revocation-shared-token-0123456789';
const ALICE = 'ctt_alice-named-token-0123456789abcdefghijklmno';
const BOB = 'ctt_bob-named-token-0123456789abcdefghijklmnopq';
const ISSUER = 'https://id.example.test';
const AUDIENCE = 'client-tools';
/** The check interval in these tests; the default is 5 s. */
const CHECK_MS = 200;

describe('rogue user: revoked and expired credentials end open sessions', function () {
  this.timeout(60_000);
  let dir: string;
  let fake: FakeOpenAI;
  let backend: Backend | undefined;
  const clients: TestClient[] = [];
  const servers: http.Server[] = [];

  beforeEach(async () => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'ct-revocation-'));
    fs.writeFileSync(path.join(dir, 'tokens'), `alice sha256:${hashToken(ALICE)}\nbob sha256:${hashToken(BOB)}\n`, { mode: 0o600 });
    fake = await startFakeOpenAI();
  });

  afterEach(async () => {
    await Promise.all(clients.splice(0).map((c) => c.drop()));
    await backend?.close();
    backend = undefined;
    for (const s of servers.splice(0)) {
      s.closeAllConnections();
      await new Promise<void>((resolve) => s.close(() => resolve()));
    }
    await fake.close();
    fs.rmSync(dir, { recursive: true, force: true });
  });

  async function start(options: BackendOptions): Promise<Backend> {
    backend = await createBackend({ token: SHARED, credentialCheckMs: CHECK_MS, model: { model: 'fake-model', baseURL: fake.baseURL, apiKey: 'sk-test', maxRetries: 0 }, ...options });
    return backend;
  }

  async function open(b: Backend, credential: string): Promise<TestClient> {
    const { client } = await TestClient.open(b.url, credential);
    clients.push(client);
    return client;
  }

  it('T-REVOKE-01 bob\'s named token is removed from the tokens file while he is connected with a run in progress: within the check interval he gets CREDENTIALS_REVOKED and close 4011, his run ends; alice and the shared token go on; bob cannot come back', async () => {
    const b = await start({ tokensFile: path.join(dir, 'tokens') });
    const [alice, bob, shared] = [await open(b, ALICE), await open(b, BOB), await open(b, SHARED)];
    fake.enqueue({ hang: true });
    bob.send({ type: 'userMessage', threadId: 't1', text: 'a long answer, please' });
    await bob.next('runStarted');
    await fake.waitForRequests(1);

    fs.writeFileSync(path.join(dir, 'tokens.new'), `alice sha256:${hashToken(ALICE)}\n`, { mode: 0o600 });
    fs.renameSync(path.join(dir, 'tokens.new'), path.join(dir, 'tokens'));
    const t0 = performance.now();
    const error = await bob.next('error', (e) => e.code === ErrorCode.CredentialsRevoked, 10_000);
    const closed = await bob.closed;
    const tookMs = performance.now() - t0;
    assert.equal(closed.code, 4011);
    assert.equal(error.message, 'The session was ended: its named token was removed from the tokens file. Connect again with a valid token.');
    assert.ok(tookMs < CHECK_MS * 10, `the session ended ${tookMs.toFixed(0)} ms after the token was removed`);
    // The run was cancelled with the session (its model request stopped).
    assert.equal(sample(await b.metrics(), 'client_tools_runs_in_progress'), 0);
    assert.equal(sample(await b.metrics(), 'client_tools_runs_total', { reason: 'cancelled' }), 1);

    await assert.rejects(TestClient.connect(b.url, BOB), /HTTP 401/);
    fake.enqueue({ text: 'still here' }, { text: 'me too' });
    assert.equal((await alice.run('t1', 'hello')).finished.reason, 'completed');
    assert.equal((await shared.run('t1', 'hello')).finished.reason, 'completed');
  });

  it('T-REVOKE-02 a JWT expires while its session is open: the session ends within the check interval after exp, CREDENTIALS_REVOKED, close 4011', async () => {
    const { privateKey, publicKey } = await generateKeyPair('ES256');
    const jwk: JWK = { ...(await exportJWK(publicKey)), kid: 'k1', alg: 'ES256' };
    fs.writeFileSync(path.join(dir, 'jwks.json'), JSON.stringify({ keys: [jwk] }));
    const exp = Math.floor(Date.now() / 1000) + 2;
    const token = await new SignJWT({}).setProtectedHeader({ alg: 'ES256', kid: 'k1' }).setIssuer(ISSUER).setAudience(AUDIENCE).setSubject('carol').setExpirationTime(exp).sign(privateKey);
    const b = await start({ jwt: { issuer: ISSUER, audience: AUDIENCE, jwksFile: path.join(dir, 'jwks.json'), clockToleranceSec: 0 } });
    const carol = await open(b, token);
    const error = await carol.next('error', (e) => e.code === ErrorCode.CredentialsRevoked, 15_000);
    const endedAt = Date.now();
    assert.equal(error.message, 'The session was ended: its JWT expired. Connect again with a valid token.');
    assert.equal((await carol.closed).code, 4011);
    assert.ok(endedAt >= exp * 1000, 'not before the expiry');
    assert.ok(endedAt - exp * 1000 < CHECK_MS * 10, `${endedAt - exp * 1000} ms after the expiry`);
  });

  /** A JWKS URL on loopback that answers with `bytes` of a body that never parses, as fast as it is read. */
  async function hugeJwks(bytes: number, declareLength: boolean): Promise<{ url: string; sent: () => number }> {
    let sent = 0;
    const chunk = Buffer.alloc(64 * 1024, 0x20);
    const server = http.createServer((_req, res) => {
      res.writeHead(200, { 'content-type': 'application/json', ...(declareLength ? { 'content-length': String(bytes + 10) } : {}) });
      res.write('{"keys":[');
      const pump = () => {
        while (!res.destroyed && sent < bytes) {
          sent += chunk.length;
          if (!res.write(chunk)) return void res.once('drain', pump);
        }
        if (!res.destroyed) res.end(']}');
      };
      pump();
    });
    servers.push(server);
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/jwks.json`, sent: () => sent };
  }

  /** A JWT with a key id the backend does not know, so it fetches the JWKS; the handshake must fail 503 and memory stay put. */
  async function handshakeAgainst(jwks: { url: string; sent: () => number }): Promise<void> {
    const { privateKey } = await generateKeyPair('ES256');
    const token = await new SignJWT({}).setProtectedHeader({ alg: 'ES256', kid: 'k-unknown' }).setIssuer(ISSUER).setAudience(AUDIENCE).setSubject('dave').setExpirationTime('10m').sign(privateKey);
    const b = await start({ jwt: { issuer: ISSUER, audience: AUDIENCE, jwksUrl: jwks.url, jwksTimeoutMs: 20_000 } });
    const before = process.memoryUsage().rss;
    await assert.rejects(TestClient.connect(b.url, token), /HTTP 503/);
    const grown = (process.memoryUsage().rss - before) / 1024 / 1024;
    assert.ok(grown < 100, `RSS grew ${grown.toFixed(0)} MiB`);
    assert.ok(jwks.sent() < 64 * 1024 * 1024, `the JWKS server sent ${(jwks.sent() / 1024 / 1024).toFixed(0)} MiB`);
  }

  it('T-REVOKE-03 a JWKS URL answers with a 400 MB body without a content-length: read up to 1 MiB, the handshake gets 503 (keys unavailable), memory stays put', async () => {
    await handshakeAgainst(await hugeJwks(400 * 1024 * 1024, false));
  });

  it('T-REVOKE-04 a JWKS URL declares a 400 MB body: refused before reading it, 503', async () => {
    await handshakeAgainst(await hugeJwks(400 * 1024 * 1024, true));
  });
});
