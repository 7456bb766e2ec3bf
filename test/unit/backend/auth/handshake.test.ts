/**
 * The credential rules at the real backend's upgrade (real loopback sockets): which header carries
 * what, the statuses (401 refused, 503 cannot check now), and the same text for every refused
 * credential.
 */
import { strict as assert } from 'node:assert';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { WebSocket } from 'ws';
import type { JWK } from 'jose';
import { exportJWK, generateKeyPair, SignJWT } from 'jose';
import { createBackend, type Backend } from '../../../../src/backend';
import { hashToken } from '../../../../src/backend/auth/tokenHash';
import { TOKEN_HEADER } from '../../../../src/protocol';
import { upgradeStatus } from '../../../support/backend-client';

const SHARED = 'shared-token-0123456789abcdef';
const NAMED = 'ctt_named-token-for-alice-0123456789abcdefghijk';

/** Status and body of a refused upgrade. */
function refusal(url: string, headers: Record<string, string>): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const ws = new WebSocket(url, { headers });
    ws.once('unexpected-response', (_req, res) => {
      let body = '';
      res.on('data', (c: Buffer) => (body += c.toString()));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body: body.trim() }));
    });
    ws.once('open', () => {
      ws.close();
      reject(new Error('the upgrade was accepted'));
    });
    ws.once('error', () => {});
  });
}

describe('backend auth: credentials at the upgrade', () => {
  let dir: string;
  let backend: Backend;
  let jwt: string;
  const logs: string[] = [];

  before(async () => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'ct-handshake-'));
    const { privateKey, publicKey } = await generateKeyPair('ES256');
    const jwk: JWK = { ...(await exportJWK(publicKey)), kid: 'k', alg: 'ES256' };
    fs.writeFileSync(path.join(dir, 'jwks.json'), JSON.stringify({ keys: [jwk] }));
    jwt = await new SignJWT({}).setProtectedHeader({ alg: 'ES256', kid: 'k' }).setIssuer('https://id').setAudience('ct').setSubject('alice').setExpirationTime('5m').sign(privateKey);
    fs.writeFileSync(path.join(dir, 'tokens'), `alice sha256:${hashToken(NAMED)}\n`, { mode: 0o600 });
    backend = await createBackend({
      token: SHARED,
      tokensFile: path.join(dir, 'tokens'),
      jwt: { issuer: 'https://id', audience: 'ct', jwksFile: path.join(dir, 'jwks.json') },
      log: (level, message) => logs.push(`${level} ${message}`),
    });
  });
  after(async () => {
    await backend.close();
    fs.rmSync(dir, { recursive: true, force: true });
  });

  it('accepts the shared token, a named token and a JWT in the token header, and a JWT as Bearer', async () => {
    assert.equal(await upgradeStatus(backend.url, { [TOKEN_HEADER]: SHARED }), 101);
    assert.equal(await upgradeStatus(backend.url, { [TOKEN_HEADER]: NAMED }), 101);
    assert.equal(await upgradeStatus(backend.url, { [TOKEN_HEADER]: jwt }), 101);
    assert.equal(await upgradeStatus(backend.url, { Authorization: `Bearer ${jwt}` }), 101);
  });

  it('refuses tokens as Bearer, a bad JWT and a wrong token with one text, and says where a missing credential goes', async () => {
    const notAccepted = 'The credentials were not accepted.';
    const cases: Record<string, string>[] = [
      { Authorization: `Bearer ${NAMED}` },
      { Authorization: `Bearer ${SHARED}` },
      { [TOKEN_HEADER]: `${jwt.slice(0, -4)}AAAA` },
      { [TOKEN_HEADER]: `${NAMED}x` },
      { Authorization: `Bearer ${jwt}x.y` },
    ];
    for (const headers of cases) assert.deepEqual(await refusal(backend.url, headers), { status: 401, body: notAccepted }, JSON.stringify(headers).slice(0, 60));
    const missing = await refusal(backend.url, { Authorization: `Basic ${Buffer.from('a:b').toString('base64')}` });
    assert.equal(missing.status, 401);
    assert.match(missing.body, /Missing credentials/);
    assert.ok(!logs.some((l) => l.includes(jwt.slice(-20)) || l.includes(NAMED)), 'a credential reached the log');
    assert.ok(logs.some((l) => /a JWT was refused: ERR_JWS_SIGNATURE_VERIFICATION_FAILED/.test(l)), logs.join('\n'));
  });

  it('answers 503 for a named token while the tokens file is unusable, and lets it in again once fixed', async () => {
    const file = path.join(dir, 'tokens');
    fs.chmodSync(file, 0o666);
    try {
      if (process.platform !== 'win32') assert.deepEqual(await refusal(backend.url, { [TOKEN_HEADER]: NAMED }), { status: 503, body: 'The backend cannot check credentials right now; try again later.' });
      assert.equal(await upgradeStatus(backend.url, { [TOKEN_HEADER]: jwt }), 101, 'JWTs do not depend on the file');
    } finally {
      fs.chmodSync(file, 0o600);
    }
    assert.equal(await upgradeStatus(backend.url, { [TOKEN_HEADER]: NAMED }), 101);
  });
});
