/**
 * JWT verification against a JWKS from a file and from a loopback HTTP URL (real `jose`, real keys,
 * a real HTTP server): a good token names its user; expired, not yet valid, wrong audience, wrong
 * issuer, `alg: none`, an HMAC "signed" with the public key, a tampered payload and a key outside
 * the set are refused; an unreachable key set is "unavailable" (503), not "refused".
 */
import { strict as assert } from 'node:assert';
import * as fs from 'node:fs';
import * as http from 'node:http';
import type { AddressInfo } from 'node:net';
import * as os from 'node:os';
import * as path from 'node:path';
import type { JWK } from 'jose';
import { exportJWK, exportSPKI, generateKeyPair, SignJWT } from 'jose';
import { JwtVerifier, type JwtOptions, type JwtOutcome } from '../../../../src/backend/auth/jwt';

const ISSUER = 'https://id.example.test';
const AUDIENCE = 'client-tools';

type GeneratedPair = Awaited<ReturnType<typeof generateKeyPair>>;

interface KeyPair {
  privateKey: GeneratedPair['privateKey'];
  publicKey: GeneratedPair['publicKey'];
  jwk: JWK;
}

async function keyPair(alg: 'RS256' | 'ES256', kid: string): Promise<KeyPair> {
  const { privateKey, publicKey } = await generateKeyPair(alg, { extractable: true });
  return { privateKey, publicKey, jwk: { ...(await exportJWK(publicKey)), kid, alg, use: 'sig' } };
}

function sign(key: KeyPair, claims: Record<string, unknown> = {}, opts: { iss?: string; aud?: string; exp?: string | number; nbf?: string | number } = {}): Promise<string> {
  const jwt = new SignJWT({ ...claims })
    .setProtectedHeader({ alg: key.jwk.alg as string, kid: key.jwk.kid as string })
    .setIssuer(opts.iss ?? ISSUER)
    .setAudience(opts.aud ?? AUDIENCE)
    .setSubject('alice')
    .setIssuedAt()
    .setExpirationTime(opts.exp ?? '5m');
  if (opts.nbf !== undefined) jwt.setNotBefore(opts.nbf);
  return jwt.sign(key.privateKey);
}

/** A verdict without its expiry (checked on its own where it matters). */
function userOf(verdict: JwtOutcome): unknown {
  if (!verdict.ok) return verdict;
  assert.ok(verdict.expiresAt > Date.now(), 'an accepted token carries its expiry');
  return { ok: true, user: verdict.user };
}

function b64(value: unknown): string {
  return Buffer.from(JSON.stringify(value)).toString('base64url');
}

describe('backend auth: JWT verification', () => {
  let dir: string;
  let rsa: KeyPair;
  let ec: KeyPair;
  let outsider: KeyPair;
  let server: http.Server | undefined;

  before(async () => {
    rsa = await keyPair('RS256', 'rsa-1');
    ec = await keyPair('ES256', 'ec-1');
    outsider = await keyPair('RS256', 'rsa-1');
  });
  beforeEach(() => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'ct-jwt-'));
  });
  afterEach(async () => {
    server?.closeAllConnections();
    if (server) await new Promise<void>((resolve) => server?.close(() => resolve()));
    server = undefined;
    fs.rmSync(dir, { recursive: true, force: true });
  });

  function jwksFile(): string {
    const file = path.join(dir, 'jwks.json');
    fs.writeFileSync(file, JSON.stringify({ keys: [rsa.jwk, ec.jwk] }));
    return file;
  }

  async function jwksUrl(handler?: http.RequestListener): Promise<{ url: string; hits: () => number }> {
    let hits = 0;
    server = http.createServer((req, res) => {
      hits++;
      if (handler) return handler(req, res);
      res.writeHead(200, { 'Content-Type': 'application/json' });
      res.end(JSON.stringify({ keys: [rsa.jwk, ec.jwk] }));
    });
    await new Promise<void>((resolve) => server?.listen(0, '127.0.0.1', resolve));
    return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/.well-known/jwks.json`, hits: () => hits };
  }

  const sources: { name: string; options: () => Promise<Partial<JwtOptions>> }[] = [
    { name: 'a JWKS file', options: () => Promise.resolve({ jwksFile: jwksFile() }) },
    { name: 'a loopback JWKS URL', options: async () => ({ jwksUrl: (await jwksUrl()).url }) },
  ];

  for (const source of sources) {
    describe(`with ${source.name}`, () => {
      async function verifier(extra: Partial<JwtOptions> = {}): Promise<JwtVerifier> {
        return JwtVerifier.create({ issuer: ISSUER, audience: AUDIENCE, ...(await source.options()), ...extra });
      }

      it('accepts a good RS256 and ES256 token and names the user from sub (or another claim)', async () => {
        const v = await verifier();
        assert.deepEqual(userOf(await v.verify(await sign(rsa))), { ok: true, user: 'alice' });
        assert.deepEqual(userOf(await v.verify(await sign(ec))), { ok: true, user: 'alice' });
        const byEmail = await verifier({ userClaim: 'email' });
        assert.deepEqual(userOf(await byEmail.verify(await sign(rsa, { email: 'alice@example.test' }))), { ok: true, user: 'alice@example.test' });
        assert.equal((await byEmail.verify(await sign(rsa))).ok, false, 'a token without the claim names nobody');
        assert.equal((await byEmail.verify(await sign(rsa, { email: 'anonymous' }))).ok, false, 'the shared token\'s user cannot be claimed');
      });

      it('refuses an expired token, one not valid yet, and a token without exp; a few seconds of skew pass', async () => {
        const v = await verifier({ clockToleranceSec: 30 });
        const now = Math.floor(Date.now() / 1000);
        assert.deepEqual(await v.verify(await sign(rsa, {}, { exp: now - 120 })), { ok: false, unavailable: false, reason: 'ERR_JWT_EXPIRED' });
        assert.deepEqual(await v.verify(await sign(rsa, {}, { nbf: now + 600 })), { ok: false, unavailable: false, reason: 'ERR_JWT_CLAIM_VALIDATION_FAILED' });
        assert.equal((await v.verify(await sign(rsa, {}, { exp: now - 5 }))).ok, true, 'within the clock tolerance');
        const noExp = await new SignJWT({}).setProtectedHeader({ alg: 'RS256', kid: 'rsa-1' }).setIssuer(ISSUER).setAudience(AUDIENCE).setSubject('alice').sign(rsa.privateKey);
        assert.equal((await v.verify(noExp)).ok, false);
      });

      it('refuses the wrong audience and the wrong issuer', async () => {
        const v = await verifier();
        assert.equal((await v.verify(await sign(rsa, {}, { aud: 'another-app' }))).ok, false);
        assert.equal((await v.verify(await sign(rsa, {}, { iss: 'https://evil.example.test' }))).ok, false);
      });

      it('refuses alg none, an HS256 token keyed with the public key, a tampered payload and a key outside the set', async () => {
        const v = await verifier();
        const now = Math.floor(Date.now() / 1000);
        const claims = { iss: ISSUER, aud: AUDIENCE, sub: 'alice', exp: now + 300 };
        assert.equal((await v.verify(`${b64({ alg: 'none', typ: 'JWT' })}.${b64(claims)}.`)).ok, false, 'alg none');
        const pem = new TextEncoder().encode(await exportSPKI(rsa.publicKey));
        const hs = await new SignJWT(claims).setProtectedHeader({ alg: 'HS256', kid: 'rsa-1' }).sign(pem);
        assert.equal((await v.verify(hs)).ok, false, 'HS256 with the public key as secret');
        const good = await sign(rsa);
        const [h, , s] = good.split('.');
        assert.equal((await v.verify(`${h}.${b64({ ...claims, sub: 'mallory' })}.${s}`)).ok, false, 'tampered payload');
        assert.equal((await v.verify(await sign(outsider))).ok, false, 'same kid, key not in the set');
      });
    });
  }

  it('refuses to configure HS256, none, a missing issuer or audience, both or neither key source, plain http off loopback', async () => {
    const file = jwksFile();
    await assert.rejects(JwtVerifier.create({ issuer: ISSUER, audience: AUDIENCE, jwksFile: file, algorithms: ['HS256'] }), /HS256.*not allowed/);
    await assert.rejects(JwtVerifier.create({ issuer: ISSUER, audience: AUDIENCE, jwksFile: file, algorithms: ['none'] }), /not allowed/);
    await assert.rejects(JwtVerifier.create({ issuer: '', audience: AUDIENCE, jwksFile: file }), /issuer/);
    await assert.rejects(JwtVerifier.create({ issuer: ISSUER, audience: '', jwksFile: file }), /audience/);
    await assert.rejects(JwtVerifier.create({ issuer: ISSUER, audience: AUDIENCE }), /exactly one/);
    await assert.rejects(JwtVerifier.create({ issuer: ISSUER, audience: AUDIENCE, jwksFile: file, jwksUrl: 'https://id.example.test/jwks' }), /exactly one/);
    await assert.rejects(JwtVerifier.create({ issuer: ISSUER, audience: AUDIENCE, jwksUrl: 'http://id.example.test/jwks' }), /https/);
    fs.writeFileSync(path.join(dir, 'bad.json'), '{"keys": []}');
    await assert.rejects(JwtVerifier.create({ issuer: ISSUER, audience: AUDIENCE, jwksFile: path.join(dir, 'bad.json') }), /not a JWKS/);
  });

  it('a JWKS URL that does not answer within its time limit makes the check unavailable (not a refusal), and the verifier recovers', async () => {
    let answer = false;
    const { url } = await jwksUrl((_req, res) => {
      if (!answer) return; // hangs until the client gives up
      res.writeHead(200, { 'Content-Type': 'application/json' });
      res.end(JSON.stringify({ keys: [rsa.jwk] }));
    });
    const v = await JwtVerifier.create({ issuer: ISSUER, audience: AUDIENCE, jwksUrl: url, jwksTimeoutMs: 300 });
    const started = Date.now();
    const verdict = await v.verify(await sign(rsa));
    assert.deepEqual(verdict, { ok: false, unavailable: true, reason: 'ERR_JWKS_TIMEOUT' });
    assert.ok(Date.now() - started < 5_000, 'the time limit held');
    answer = true;
    assert.deepEqual(userOf(await v.verify(await sign(rsa))), { ok: true, user: 'alice' });
  });
});
