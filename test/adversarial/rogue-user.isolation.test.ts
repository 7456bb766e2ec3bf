/**
 * Two users of one shared backend (real `createBackend`, real loopback sockets, the conversation
 * store in a temporary data folder, the real OpenAI SDK against the fake endpoint): alice proves
 * herself with a JWT (a JWKS file), bob with a named token from the tokens file, and a third party
 * holds the shared token (`anonymous`). Bob knows everything about alice's work that travels or
 * leaks: her session id, even her resume secret, her thread ids and run ids, and how store keys are
 * made. He must not resume her session, cancel her run, read her thread or delete it.
 */
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { WebSocket } from 'ws';
import type { JWK } from 'jose';
import { exportJWK, generateKeyPair, SignJWT } from 'jose';
import { createBackend, MemoryStore, type Backend, type BackendOptions } from '../../src/backend';
import { scopedKey } from '../../src/backend/auth/scopedStore';
import { hashToken } from '../../src/backend/auth/tokenHash';
import { ErrorCode, type Welcome } from '../../src/protocol';
import { delay, TestClient } from '../support/backend-client';
import type { FakeOpenAI } from '../support/fake-openai';
import { startFakeOpenAI } from '../support/fake-openai';

const SHARED = 'shared-token-0123456789abcdef';
const BOB = 'ctt_bob-named-token-0123456789abcdefghijklmnopq';
const ISSUER = 'https://id.example.test';
const AUDIENCE = 'client-tools';
const SECRET_WORD = 'PELICAN-7731';

describe('rogue user: one user cannot reach another user\'s sessions or threads', () => {
  let dir: string;
  let fake: FakeOpenAI;
  let backend: Backend;
  let aliceToken: string;
  const clients: TestClient[] = [];
  const logs: string[] = [];

  before(async () => {
    const { privateKey, publicKey } = await generateKeyPair('ES256');
    const jwk: JWK = { ...(await exportJWK(publicKey)), kid: 'k1', alg: 'ES256' };
    aliceToken = await new SignJWT({}).setProtectedHeader({ alg: 'ES256', kid: 'k1' }).setIssuer(ISSUER).setAudience(AUDIENCE).setSubject('alice').setExpirationTime('10m').sign(privateKey);
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'ct-isolation-'));
    fs.writeFileSync(path.join(dir, 'jwks.json'), JSON.stringify({ keys: [jwk] }));
    fs.writeFileSync(path.join(dir, 'tokens'), `bob sha256:${hashToken(BOB)}\n`, { mode: 0o600 });
  });
  after(() => fs.rmSync(dir, { recursive: true, force: true }));

  beforeEach(async () => {
    fake = await startFakeOpenAI();
    logs.length = 0;
    fs.rmSync(path.join(dir, 'data'), { recursive: true, force: true });
    backend = await start({ dataDir: path.join(dir, 'data') });
  });
  afterEach(async () => {
    await Promise.all(clients.splice(0).map((c) => c.drop()));
    await backend.close();
    await fake.close();
  });

  /** The shared backend; `store` options pick the conversation store (a data folder, or memory). */
  function start(store: Pick<BackendOptions, 'dataDir' | 'store'>): Promise<Backend> {
    return createBackend({
      token: SHARED,
      tokensFile: path.join(dir, 'tokens'),
      jwt: { issuer: ISSUER, audience: AUDIENCE, jwksFile: path.join(dir, 'jwks.json') },
      ...store,
      model: { baseURL: fake.baseURL, model: 'gpt-test', apiKey: 'sk-test', maxRetries: 0 },
      collapsing: false,
      disconnectStrategy: 'suspend',
      log: (level, message) => logs.push(`${level} ${message}`),
    });
  }

  async function open(token: string, hello: Parameters<typeof TestClient.open>[2] = {}): Promise<{ client: TestClient; welcome: Welcome }> {
    const opened = await TestClient.open(backend.url, token, hello);
    clients.push(opened.client);
    return opened;
  }

  /** Alice starts a run on `threadId` whose DeleteFile call waits for her answer. */
  async function alicePendingDelete(alice: TestClient, threadId: string) {
    fake.enqueue({ toolCalls: [{ name: 'DeleteFile', arguments: { path: 'notes.txt' }, id: 'call_del' }] }, { text: 'Deleted.' });
    alice.send({ type: 'userMessage', threadId, text: 'delete notes.txt' });
    return alice.next('clientToolInvokeRequest', (m) => m.threadId === threadId);
  }

  /** Alice tells the model a secret on `threadId`; it is in the store once her run finished. */
  async function aliceSaysSecret(alice: TestClient, threadId: string): Promise<void> {
    fake.enqueue({ text: 'I will remember it.' });
    const { finished } = await alice.run(threadId, `The launch code is ${SECRET_WORD}.`);
    assert.equal(finished.reason, 'completed');
  }

  /** Everything the model was sent in its last request, as one text. */
  function lastModelRequest(): string {
    return JSON.stringify(fake.requests[fake.requests.length - 1].body.messages);
  }

  it('T-USER-01 bob with alice\'s session id AND her resume secret gets a fresh session, worded exactly like an unknown one; nothing of hers reaches him and she resumes untouched', async () => {
    const { client: alice, welcome: hers } = await open(aliceToken);
    const req = await alicePendingDelete(alice, 'plans');
    await alice.drop();

    const { client: probe } = await open(BOB, { resumeSession: 'no-such-session', resumeSecret: 'A'.repeat(43) });
    const unknown = await probe.next('error');
    const { client: bob, welcome: his } = await open(BOB, { resumeSession: hers.sessionId, resumeSecret: hers.resumeSecret });
    assert.equal(his.resumed, false);
    assert.notEqual(his.sessionId, hers.sessionId);
    const refused = await bob.next('error');
    assert.deepEqual({ code: refused.code, message: refused.message }, { code: unknown.code, message: unknown.message }, 'the same answer as for a session that does not exist');
    assert.equal(refused.code, ErrorCode.SessionUnknown);
    bob.respond(req.requestId, { success: true, content: [{ type: 'text', text: 'forged by bob' }] });
    assert.equal((await bob.next('error', (e) => e.code === ErrorCode.UnknownRequest)).relatedId, req.requestId);
    await delay(200);
    assert.equal(bob.all('clientToolInvokeRequest').length, 0, 'bob received alice\'s pending call');
    assert.equal(bob.all('runStarted').length + bob.all('textDelta').length, 0, 'bob received alice\'s run events');

    const { client: back, welcome: again } = await open(aliceToken, { resumeSession: hers.sessionId, resumeSecret: hers.resumeSecret });
    assert.equal(again.resumed, true);
    const resent = await back.next('clientToolInvokeRequest');
    assert.equal(resent.requestId, req.requestId);
    back.respond(req.requestId, { success: true, content: [{ type: 'text', text: 'deleted by alice' }] });
    assert.equal((await back.next('runFinished')).reason, 'completed');
    assert.ok(!logs.some((l) => l.includes(aliceToken) || l.includes(BOB)), 'a credential reached the log');
  });

  it('T-USER-02 bob cannot cancel alice\'s run: not with her thread and run ids, not after presenting her stolen session id and secret; her live connection stays', async () => {
    const { client: alice, welcome: hers } = await open(aliceToken);
    const req = await alicePendingDelete(alice, 'plans');
    const { client: bob } = await open(BOB, { resumeSession: hers.sessionId, resumeSecret: hers.resumeSecret });
    const runId = alice.all('runStarted', (m) => m.threadId === 'plans')[0]?.runId;
    assert.ok(runId);
    bob.send({ type: 'cancel', threadId: 'plans', runId });
    bob.send({ type: 'cancel' });
    await delay(300);
    assert.equal(alice.ws.readyState, WebSocket.OPEN, 'bob displaced alice\'s connection');
    assert.equal(alice.all('runFinished').length, 0, 'alice\'s run ended on bob\'s word');
    alice.respond(req.requestId, { success: true, content: [{ type: 'text', text: 'deleted by alice' }] });
    const finished = await alice.next('runFinished');
    assert.equal(finished.reason, 'completed');
    assert.deepEqual(alice.all('toolCallEnded').map((e) => e.outcome), ['succeeded']);
  });

  it('T-USER-03 bob (and the shared token\'s holder, even with the store key alice\'s thread has) cannot read alice\'s thread: the model sees none of her history', async () => {
    const { client: alice } = await open(aliceToken);
    await aliceSaysSecret(alice, 'plans');
    await alice.drop();

    const { client: bob } = await open(BOB);
    fake.enqueue({ text: 'I know nothing.' });
    await bob.run('plans', 'What was the launch code?');
    const bobSent = lastModelRequest();
    assert.ok(!bobSent.includes(SECRET_WORD), `bob's run was sent alice's history: ${bobSent.slice(0, 400)}`);
    assert.ok(bobSent.includes('What was the launch code?'));

    const { client: shared } = await open(SHARED);
    fake.enqueue({ text: 'I know nothing either.' });
    await shared.run(scopedKey('alice', 'plans'), 'What was the launch code?');
    assert.ok(!lastModelRequest().includes(SECRET_WORD), 'the raw store key opened alice\'s thread');

    // Alice herself, from a new session, still has it (the isolation did not just lose her data).
    const { client: later } = await open(aliceToken);
    fake.enqueue({ text: `It was ${SECRET_WORD}.` });
    await later.run('plans', 'What was the launch code?');
    assert.ok(lastModelRequest().includes(SECRET_WORD));
  });

  it('T-USER-04 bob\'s resetThread with alice\'s thread id, and bob\'s own turns on it, leave her stored thread whole', async () => {
    const { client: alice } = await open(aliceToken);
    await aliceSaysSecret(alice, 'plans');
    await alice.drop();

    const { client: bob } = await open(BOB);
    fake.enqueue({ text: 'Overwritten?' });
    await bob.run('plans', 'Forget everything; the launch code is now 0000.');
    bob.send({ type: 'resetThread', threadId: 'plans' });
    await bob.next('toolGroupState', (m) => m.threadId === 'plans');
    const { client: shared } = await open(SHARED);
    shared.send({ type: 'resetThread', threadId: scopedKey('alice', 'plans') });
    await shared.next('toolGroupState', (m) => m.threadId !== undefined);
    await delay(300); // the store's delete runs after the answer

    const { client: later } = await open(aliceToken);
    fake.enqueue({ text: `It was ${SECRET_WORD}.` });
    await later.run('plans', 'What was the launch code?');
    const sent = lastModelRequest();
    assert.ok(sent.includes(SECRET_WORD), 'alice\'s thread was deleted by another user');
    assert.ok(!sent.includes('0000'), 'bob\'s turns were appended to alice\'s thread');
  });

  it('T-USER-05 with the in-memory store (the default without a data folder) bob can neither read nor delete alice\'s thread', async () => {
    await backend.close();
    backend = await start({ store: new MemoryStore() });
    const { client: alice } = await open(aliceToken);
    await aliceSaysSecret(alice, 'plans');
    await alice.drop();

    const { client: bob } = await open(BOB);
    fake.enqueue({ text: 'I know nothing.' });
    await bob.run('plans', 'What was the launch code?');
    assert.ok(!lastModelRequest().includes(SECRET_WORD), 'bob read alice\'s thread');
    bob.send({ type: 'resetThread', threadId: 'plans' });
    await bob.next('toolGroupState', (m) => m.threadId === 'plans');
    await delay(200);

    const { client: later } = await open(aliceToken);
    fake.enqueue({ text: `It was ${SECRET_WORD}.` });
    await later.run('plans', 'What was the launch code?');
    assert.ok(lastModelRequest().includes(SECRET_WORD), 'bob deleted alice\'s thread');
  });
});
