/**
 * Per-user isolation across backend replicas on one Redis (the failover path): a session is adopted
 * by another replica only for its own user, and a run's lease and fenced writes land in its user's
 * view of the store. Two real backends (`createBackend` with `redis`), a real redis-server, loopback
 * sockets and the real OpenAI SDK against the fake endpoint. Bob holds a named token; alice another;
 * a third party the shared token (`anonymous`).
 */
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { createBackend, type Backend } from '../../src/backend';
import { hashToken } from '../../src/backend/auth/tokenHash';
import { ErrorCode, type Welcome } from '../../src/protocol';
import { TestClient } from '../support/backend-client';
import type { FakeOpenAI } from '../support/fake-openai';
import { startFakeOpenAI } from '../support/fake-openai';
import { startRedis, type RedisServer } from '../support/redisServer';

const SHARED = 'shared-token-0123456789abcdef';
const ALICE = 'ctt_alice-named-token-0123456789abcdefghijklmnop';
const BOB = 'ctt_bob-named-token-0123456789abcdefghijklmnopq';
const SECRET_WORD = 'MARMOT-4417';

describe('rogue user: replicas on one Redis keep users apart', function () {
  this.timeout(60_000);
  let dir: string;
  let redis: RedisServer;
  let fake: FakeOpenAI;
  let one: Backend;
  let two: Backend;
  const clients: TestClient[] = [];

  before(async () => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'ct-replica-users-'));
    fs.writeFileSync(path.join(dir, 'tokens'), `alice sha256:${hashToken(ALICE)}\nbob sha256:${hashToken(BOB)}\n`, { mode: 0o600 });
    redis = await startRedis();
  });
  after(async () => {
    await redis.stop();
    fs.rmSync(dir, { recursive: true, force: true });
  });

  beforeEach(async () => {
    fake = await startFakeOpenAI();
    // One prefix per test, shared by both replicas: each test starts from an empty shared state.
    const prefix = `ct-users-${Date.now()}-${Math.random().toString(36).slice(2)}:`;
    one = await replica('one', prefix);
    two = await replica('two', prefix);
  });
  afterEach(async () => {
    await Promise.all(clients.splice(0).map((c) => c.drop()));
    await Promise.all([one.close(), two.close()]);
    await fake.close();
  });

  function replica(name: string, prefix: string): Promise<Backend> {
    return createBackend({
      token: SHARED,
      tokensFile: path.join(dir, 'tokens'),
      redis: redis.url,
      redisPrefix: prefix,
      replica: name,
      model: { baseURL: fake.baseURL, model: 'gpt-test', apiKey: 'sk-test', maxRetries: 0 },
      collapsing: false,
      disconnectStrategy: 'suspend',
      log: () => undefined,
    });
  }

  async function open(backend: Backend, token: string, hello: Parameters<typeof TestClient.open>[2] = {}): Promise<{ client: TestClient; welcome: Welcome }> {
    const opened = await TestClient.open(backend.url, token, hello);
    clients.push(opened.client);
    return opened;
  }

  function lastModelRequest(): string {
    return JSON.stringify(fake.requests[fake.requests.length - 1].body.messages);
  }

  it('T-USER-06 bob presenting alice\'s session id and secret to the replica that does not hold it gets a fresh session, not hers; alice resumes it there', async () => {
    const { client: alice, welcome: hers } = await open(one, ALICE);
    await alice.drop();
    const { client: bob, welcome: his } = await open(two, BOB, { resumeSession: hers.sessionId, resumeSecret: hers.resumeSecret });
    assert.equal(his.resumed, false, 'bob adopted alice\'s session');
    assert.notEqual(his.sessionId, hers.sessionId);
    assert.equal((await bob.next('error')).code, ErrorCode.SessionUnknown);
    const { welcome: again } = await open(two, ALICE, { resumeSession: hers.sessionId, resumeSecret: hers.resumeSecret });
    assert.equal(again.resumed, true);
    assert.equal(again.sessionId, hers.sessionId);
  });

  it('T-USER-07 alice\'s run writes her thread where only she reads it: on the other replica she continues it, bob and the shared token do not see it', async () => {
    const { client: alice } = await open(one, ALICE);
    fake.enqueue({ text: 'I will remember it.' });
    assert.equal((await alice.run('plans', `The launch code is ${SECRET_WORD}.`)).finished.reason, 'completed');
    await alice.drop();

    const { client: bob } = await open(two, BOB);
    fake.enqueue({ text: 'I know nothing.' });
    await bob.run('plans', 'What was the launch code?');
    assert.ok(!lastModelRequest().includes(SECRET_WORD), 'bob was sent alice\'s history');

    const { client: shared } = await open(two, SHARED);
    fake.enqueue({ text: 'Nor do I.' });
    await shared.run('plans', 'What was the launch code?');
    assert.ok(!lastModelRequest().includes(SECRET_WORD), 'the shared token was sent alice\'s history');

    const { client: later } = await open(two, ALICE);
    fake.enqueue({ text: `It was ${SECRET_WORD}.` });
    await later.run('plans', 'What was the launch code?');
    assert.ok(lastModelRequest().includes(SECRET_WORD), 'alice lost her own history on the other replica');
  });
});
