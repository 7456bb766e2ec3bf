/**
 * Failover between replicas, in one process: two backends over one shared state (MemorySharedState
 * peers, as two replicas on one Redis). A session begun on one is adopted by the other only with its
 * resume secret; the stored record holds the secret's digest, never the secret. Real loopback sockets.
 */
import * as assert from 'node:assert/strict';
import { createBackend, type Backend } from '../../../../src/backend';
import { adoptableSession, secretDigestHex } from '../../../../src/backend/failover/adoption';
import { unansweredCalls } from '../../../../src/backend/failover/continuedRun';
import { messageRecord, requestFromRecord, responseFromRecord } from '../../../../src/backend/failover/wireRecord';
import { MemorySharedState } from '../../../../src/backend/state/memorySharedState';
import { ErrorCode } from '../../../../src/protocol';
import { TestClient } from '../../../support/backend-client';

const TOKEN = 'failover-unit-token-0123456789';

describe('failover: a replica adopts a session another one held', () => {
  const backends: Backend[] = [];
  const clients: TestClient[] = [];
  afterEach(async () => {
    for (const c of clients.splice(0)) await c.drop();
    for (const b of backends.splice(0)) await b.close();
  });

  async function replicas(): Promise<{ a: Backend; b: Backend; state: MemorySharedState }> {
    const state = new MemorySharedState({ replica: 'a' });
    const a = await createBackend({ token: TOKEN, sharedState: state });
    const b = await createBackend({ token: TOKEN, sharedState: state.peer('b') });
    backends.push(a, b);
    return { a, b, state };
  }

  async function open(url: string, hello: Parameters<typeof TestClient.open>[2] = {}) {
    const opened = await TestClient.open(url, TOKEN, hello);
    clients.push(opened.client);
    return opened;
  }

  it('records the session before its welcome, with the digest of its secret and never the secret', async () => {
    const { a, state } = await replicas();
    const { welcome } = await open(a.url);
    const record = await state.getSession(welcome.sessionId);
    assert.ok(record && welcome.resumeSecret);
    assert.equal(record.secretDigest, secretDigestHex(welcome.resumeSecret));
    assert.equal(record.replica, 'a');
    assert.ok(!JSON.stringify(record).includes(welcome.resumeSecret));
  });

  it('resumes the session on the other replica with its secret: same id, resumed', async () => {
    const { a, b, state } = await replicas();
    const first = await open(a.url);
    const { welcome } = await open(b.url, { resumeSession: first.welcome.sessionId, resumeSecret: first.welcome.resumeSecret });
    assert.equal(welcome.resumed, true);
    assert.equal(welcome.sessionId, first.welcome.sessionId);
    assert.equal((await state.getSession(welcome.sessionId))?.replica, 'b');
  });

  it('gives a wrong or missing secret a fresh session and SESSION_UNKNOWN, and leaves the owner\'s record alone', async () => {
    const { a, b, state } = await replicas();
    const first = await open(a.url);
    for (const resumeSecret of ['A'.repeat(43), undefined]) {
      const { client, welcome } = await open(b.url, { resumeSession: first.welcome.sessionId, ...(resumeSecret ? { resumeSecret } : {}) });
      assert.equal(welcome.resumed, false);
      assert.notEqual(welcome.sessionId, first.welcome.sessionId);
      assert.equal((await client.next('error')).code, ErrorCode.SessionUnknown);
    }
    assert.equal((await state.getSession(first.welcome.sessionId))?.replica, 'a');
  });

  it('adoptableSession refuses a record whose digest was tampered with or that names another session', async () => {
    const state = new MemorySharedState();
    await state.putSession({ sessionId: 's1', secretDigest: 'x'.repeat(64), owner: 'anonymous', createdAt: 0, replica: 'r' }, 60_000);
    assert.equal(await adoptableSession(state, 's1', 'secret'), undefined);
    await state.putSession({ sessionId: 's2', secretDigest: secretDigestHex('secret').slice(1), owner: 'anonymous', createdAt: 0, replica: 'r' }, 60_000);
    assert.equal(await adoptableSession(state, 's2', 'secret'), undefined);
    await state.putSession({ sessionId: 's3', secretDigest: secretDigestHex('secret'), owner: 'anonymous', createdAt: 0, replica: 'r' }, 60_000);
    assert.equal((await adoptableSession(state, 's3', 'secret'))?.sessionId, 's3');
  });
});

describe('failover: what the shared state keeps of a call', () => {
  it('round-trips a request and an answer through the protocol codec, binary content included', () => {
    const request = { type: 'clientToolInvokeRequest' as const, requestId: 'req_1', toolName: 'DeleteFile', callId: 'call_1', arguments: { path: 'a.txt' }, timeoutMs: 30_000 };
    assert.deepEqual(requestFromRecord(messageRecord(request)), request);
    const bytes = new Uint8Array([0, 1, 2, 250]);
    const answer = { type: 'clientToolInvokeResponse' as const, requestId: 'req_1', success: true, content: [{ type: 'binary' as const, mimeType: 'image/png', bytes }] };
    const back = responseFromRecord(messageRecord(answer));
    assert.ok(back?.content[0].type === 'binary');
    assert.deepEqual([...back.content[0].bytes], [...bytes]);
  });

  it('treats a record that does not decode as the message it should be as absent', () => {
    assert.equal(requestFromRecord('{"type":"clientToolInvokeRequest"}'), undefined);
    assert.equal(requestFromRecord('not json'), undefined);
    assert.equal(responseFromRecord(messageRecord({ type: 'clientToolInvokeRequest', requestId: 'r', toolName: 't', callId: 'c', arguments: {} })), undefined);
  });

  it('finds the calls of the last batch that have no stored result', () => {
    const call = (id: string) => ({ id, name: 'DeleteFile', arguments: '{}' });
    assert.deepEqual(unansweredCalls([{ role: 'user', content: 'go' }, { role: 'assistant', content: '', toolCalls: [call('a'), call('b')] }, { role: 'tool', toolCallId: 'a', toolName: 'DeleteFile', content: [] }]).map((c) => c.id), ['b']);
    assert.deepEqual(unansweredCalls([{ role: 'assistant', content: '', toolCalls: [call('a')] }, { role: 'user', content: 'next' }]), []);
  });
});
