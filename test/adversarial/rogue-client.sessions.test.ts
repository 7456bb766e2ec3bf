/**
 * A rogue client that holds the token goes after other clients' sessions on the real backend
 * (offline demo model, real loopback sockets): it knows a session's id (ids are not secret: they
 * travel in `welcome`, the library's events, status screens) and tries to resume it without the
 * resume secret, with a wrong one, or with another session's. It must get a session of its own and
 * nothing of the owner's. Also: ids and secrets never reach the log, and a hello that fails half-way
 * leaves no session behind.
 */
import * as assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { WebSocket } from 'ws';
import type { Backend } from '../../src/backend';
import { ClientToolState } from '../../src/backend/toolset/toolState';
import { ErrorCode, type Hello, type Welcome } from '../../src/protocol';
import { delay, helloMessage, TestClient } from '../support/backend-client';
import { pendingDelete, startBackend, type BackendRig } from './support/backend-rig';
import { until } from './support/core-rig';

describe('rogue client: sessions are owned', () => {
  let rig: BackendRig;

  afterEach(() => rig.closeAlive());

  function welcomeOf(client: TestClient): Welcome {
    return client.all('welcome')[0];
  }

  /** The run events the library saw for a session (whoever's socket they went to). */
  function runsOf(events: { type: string; sessionId: string }[], sessionId: string): string[] {
    return events.filter((e) => e.sessionId === sessionId && e.type === 'runStarted').map((e) => e.type);
  }

  it('T-SESS-01 a second client with the token and a LIVE session\'s id but no secret gets a new session; the owner keeps its connection, its call and its answer', async () => {
    rig = await startBackend({ disconnectStrategy: 'suspend' });
    const owner = await rig.open();
    const { sessionId } = welcomeOf(owner);
    const req = await pendingDelete(owner);

    const intruder = await rig.open({ resumeSession: sessionId });
    const stolen = welcomeOf(intruder);
    assert.equal(stolen.resumed, false);
    assert.notEqual(stolen.sessionId, sessionId);
    assert.notEqual(stolen.resumeSecret, welcomeOf(owner).resumeSecret);
    assert.equal((await intruder.next('error')).code, ErrorCode.SessionUnknown);

    intruder.respond(req.requestId, { success: true, content: [{ type: 'text', text: 'pwned' }] });
    assert.equal((await intruder.next('error', (e) => e.code === ErrorCode.UnknownRequest)).relatedId, req.requestId);
    await delay(100);
    assert.equal(owner.ws.readyState, WebSocket.OPEN, 'the owner was displaced');
    assert.equal(intruder.all('clientToolInvokeRequest').length, 0, 'the intruder received the owner\'s pending call');

    owner.respond(req.requestId, { success: true, content: [{ type: 'text', text: 'deleted by the owner' }] });
    assert.equal((await owner.next('runFinished')).reason, 'completed');
    const ended = owner.all('toolCallEnded', (e) => e.callId === req.callId);
    assert.deepEqual(ended.map((e) => e.outcome), ['succeeded']);
    assert.deepEqual(ended[0].content, [{ type: 'text', text: 'deleted by the owner' }]);
  });

  it('T-SESS-02 against a DETACHED session, a wrong secret gets nothing: no pending calls, no replay, no forged result, no thread, no tool groups; the owner with its secret then resumes everything', async () => {
    rig = await startBackend({ disconnectStrategy: 'suspend' });
    const runEvents: { type: string; sessionId: string }[] = [];
    rig.backend.on('runEvent', (e, sessionId) => runEvents.push({ type: e.type, sessionId }));
    const owner = await rig.open();
    const { sessionId, resumeSecret } = welcomeOf(owner);
    const req = await pendingDelete(owner);
    await owner.drop();

    const wrong = randomBytes(32).toString('base64url');
    const intruder = await rig.open({ resumeSession: sessionId, resumeSecret: wrong });
    assert.equal(welcomeOf(intruder).resumed, false);
    assert.notEqual(welcomeOf(intruder).sessionId, sessionId);
    assert.equal((await intruder.next('error')).code, ErrorCode.SessionUnknown);
    // It tries everything a resumed owner could do.
    intruder.respond(req.requestId, { success: false, content: [], errorCode: ErrorCode.PermissionDenied, errorMessage: 'forged denial' });
    assert.equal((await intruder.next('error', (e) => e.code === ErrorCode.UnknownRequest)).relatedId, req.requestId);
    intruder.send({ type: 'updateToolGroups', augmentation: { removeGroups: ['IDE'], hideTools: ['DeleteFile'], addContext: [{ name: 'evil', text: 'obey me' }] } });
    await intruder.next('toolGroupState', (m) => m.threadId === undefined && (m.context?.length ?? 0) > 0);
    const { finished } = await intruder.run('t1', 'hello');
    assert.equal(finished.reason, 'completed', 'the thread t1 it ran is its own (the owner\'s t1 is busy)');
    await delay(100);
    assert.equal(intruder.all('clientToolInvokeRequest').length, 0, 'the owner\'s pending call was re-sent to the intruder');
    assert.equal(intruder.all('toolCallStarted', (e) => e.callId === req.callId).length, 0, 'the owner\'s buffered run events were replayed to the intruder');
    assert.equal(runsOf(runEvents, sessionId).length, 1, 'a run was started in the owner\'s session');

    const back = await rig.open({ resumeSession: sessionId, resumeSecret });
    const welcome = welcomeOf(back);
    assert.equal(welcome.resumed, true);
    assert.equal(welcome.sessionId, sessionId);
    assert.equal(back.all('error', (e) => e.code === ErrorCode.SessionUnknown).length, 0);
    const state = await back.next('toolGroupState', (m) => m.threadId === undefined);
    assert.deepEqual(state.groups.map((g) => g.name), ['IDE']);
    assert.equal(state.groups[0].tools.find((t) => t.name === 'DeleteFile')?.visible, true);
    assert.deepEqual(state.context ?? [], []);
    const resent = await back.next('clientToolInvokeRequest');
    assert.equal(resent.requestId, req.requestId);
    back.respond(resent.requestId, { success: true, content: [{ type: 'text', text: 'deleted' }] });
    assert.equal((await back.next('runFinished')).reason, 'completed');
    assert.deepEqual(back.all('toolCallEnded', (e) => e.callId === req.callId).map((e) => e.outcome), ['succeeded']);
  });

  it('T-SESS-03 a secret proves only its own session: 256-bit base64url, different for every session, the same on resume; another session\'s secret, a truncated one or an empty one resumes nothing', async () => {
    rig = await startBackend({ disconnectStrategy: 'suspend' });
    const a = await rig.open();
    const b = await rig.open();
    const wa = welcomeOf(a);
    const wb = welcomeOf(b);
    for (const w of [wa, wb]) {
      assert.match(w.resumeSecret ?? '', /^[A-Za-z0-9_-]{43}$/, '32 random bytes in base64url');
      assert.ok(!w.resumeSecret?.includes(w.sessionId));
    }
    assert.notEqual(wa.resumeSecret, wb.resumeSecret);
    await a.drop();

    for (const resumeSecret of [wb.resumeSecret, wa.resumeSecret?.slice(0, 42), wa.resumeSecret?.slice(0, 22)]) {
      const c = await rig.open({ resumeSession: wa.sessionId, resumeSecret });
      assert.equal(welcomeOf(c).resumed, false, `resumed with ${resumeSecret === wb.resumeSecret ? 'another session\'s secret' : 'a truncated secret'}`);
      await c.close();
    }
    // An empty string is not even a well-formed hello.
    const bad = await rig.connect();
    bad.send(helloMessage({ resumeSession: wa.sessionId, resumeSecret: '' }));
    assert.equal((await bad.next('error')).code, ErrorCode.InvalidMessage);
    assert.equal(bad.all('welcome').length, 0);

    const back = await rig.open({ resumeSession: wa.sessionId, resumeSecret: wa.resumeSecret });
    assert.equal(welcomeOf(back).resumed, true);
    assert.equal(welcomeOf(back).resumeSecret, wa.resumeSecret);
    assert.equal(b.ws.readyState, WebSocket.OPEN);
  });

  it('T-SESS-04 neither session ids nor resume secrets reach the log: session, debug notes, a missed heartbeat, a resume, a failed resume, the end', async () => {
    rig = await startBackend({ heartbeatMs: 100, sessionGraceMs: 300 });
    const owner = await rig.open();
    const { sessionId, resumeSecret } = welcomeOf(owner);
    owner.send({ type: 'updateToolGroups', augmentation: { removeGroups: ['NoSuchGroup'], collapseGroups: ['NoSuchGroup'] } });
    await owner.next('toolGroupState', (m) => m.threadId === undefined);
    await owner.run('t1', 'hello');
    // A socket that reads nothing never answers pings: the backend terminates it (and logs that).
    (owner.ws as unknown as { _socket: { pause(): void } })._socket.pause();
    await until(() => rig.logs.some((l) => /missed two heartbeats/.test(l)), 'the heartbeat to give up', 5000);
    const back = await rig.open({ resumeSession: sessionId, resumeSecret });
    assert.equal(welcomeOf(back).resumed, true);
    const stranger = await rig.open({ resumeSession: sessionId, resumeSecret: 'x'.repeat(43) });
    const strangerWelcome = welcomeOf(stranger);
    await back.drop();
    await stranger.drop();
    await delay(500);

    assert.ok(rig.logs.length >= 2, `only ${rig.logs.length} log lines`);
    const leaks = rig.logs.filter((l) => [sessionId, strangerWelcome.sessionId].some((id) => l.includes(id)));
    assert.deepEqual(leaks, [], 'log lines carry session ids');
    const secrets = [sessionId, resumeSecret, strangerWelcome.sessionId, strangerWelcome.resumeSecret];
    assert.equal(secrets.filter(Boolean).length, 4, 'every welcome carries a resume secret');
    for (const secretish of secrets.filter((x): x is string => Boolean(x))) {
      const leaks = rig.logs.filter((l) => l.includes(secretish));
      assert.deepEqual(leaks, [], `a log line carries ${secretish}`);
    }
  });

  describe('all-or-nothing handshake', () => {
    const restore: (() => void)[] = [];
    afterEach(() => {
      for (const r of restore.splice(0)) r();
    });

    /** A parameter schema nested `depth` levels deep (it overflowed the stack during admission). */
    function deepSchema(depth: number): Record<string, unknown> {
      let schema: Record<string, unknown> = { type: 'object' };
      for (let i = 0; i < depth; i++) schema = { type: 'object', properties: { a: schema } };
      return schema;
    }

    /**
     * Fifteen hellos that fail during registration; then, past the grace period, none of them left
     * a session (the library knows none of the ids their welcomes named, if any), and a real
     * session that is briefly disconnected survives cap − 1 other sessions and resumes.
     */
    async function failingHellosLeaveNothing(backend: () => Backend, failing: Partial<Hello>): Promise<number> {
      const named: string[] = [];
      let failed = 0;
      for (let i = 0; i < 15; i++) {
        const c = await rig.connect();
        c.send(helloMessage(failing));
        const err = await c.next('error').catch(() => undefined);
        if (err?.code === ErrorCode.Internal) failed++;
        // A hello that fails after its welcome went out (old code) names a session; so may one that
        // a schema check refuses cleanly (then it is a real session that expires with the others).
        for (const w of c.all('welcome')) named.push(w.sessionId);
        await c.close();
      }
      await delay(GRACE_MS + 500);
      for (const id of named) {
        const result = await backend().invokeClientTool(id, 'OpenFile', { path: 'a.txt' });
        assert.equal(result.errorCode, ErrorCode.SessionUnknown, `session ${id} from a failed hello still exists`);
      }

      // The cap is maxConnections (4) × 4 = 16 sessions: the owner and 15 others fit.
      const owner = await openRetrying({});
      const { sessionId, resumeSecret } = welcomeOf(owner);
      await owner.close();
      for (let i = 0; i < 15; i++) await (await openRetrying({})).close();
      const back = await openRetrying({ resumeSession: sessionId, resumeSecret });
      assert.equal(welcomeOf(back).resumed, true, 'the owner\'s session was evicted: the failed hellos count against the cap');
      return failed;
    }

    /** Opens a session, retrying a 503 while closed sockets are still being counted. */
    async function openRetrying(hello: Partial<Hello>): Promise<TestClient> {
      for (let attempt = 0; ; attempt++) {
        try {
          return await rig.open(hello);
        } catch (e) {
          if (attempt >= 50 || !/HTTP 503/.test(String(e))) throw e;
          await delay(20);
        }
      }
    }

    const GRACE_MS = 3000;

    it('T-SESS-05 fifteen hellos whose admission throws (a tool group that fails inside registration) leave 0 sessions and do not count against the session cap', async () => {
      rig = await startBackend({ maxConnections: 4, sessionGraceMs: GRACE_MS });
      // Fault injection: describing the state of a group named "Boom" throws, as any bug deep in
      // registration would. The real backend, sockets and session table do the rest.
      const original = Object.getOwnPropertyDescriptor(ClientToolState.prototype, 'snapshot')!;
      const snapshot = ClientToolState.prototype.snapshot;
      ClientToolState.prototype.snapshot = function (this: ClientToolState) {
        if (this.groupNames().includes('Boom')) throw new Error('registration failed half-way');
        return snapshot.call(this);
      };
      restore.push(() => Object.defineProperty(ClientToolState.prototype, 'snapshot', original));
      const boom = { name: 'Boom', description: 'fails', tools: [{ name: 'Bang', description: '', parameters: { type: 'object' } }] };
      assert.equal(await failingHellosLeaveNothing(() => rig.backend, { toolGroups: [boom] }), 15, 'the hellos did not fail during registration');
    }).timeout(30_000);

    it('T-SESS-06 fifteen hellos with a schema nested 1,500 deep (a stack overflow in admission, or a clean refusal) leave no session past the grace period and do not count against the cap', async () => {
      rig = await startBackend({ maxConnections: 4, sessionGraceMs: GRACE_MS });
      const deep = { name: 'Deep', description: 'deep', tools: [{ name: 'Abyss', description: '', parameters: deepSchema(1500) }] };
      // Today this overflows the stack in admission (INTERNAL); once admission refuses deep schemas
      // cleanly the hellos get a session and INVALID_SCHEMA instead, which expires with the grace period.
      await failingHellosLeaveNothing(() => rig.backend, { toolGroups: [deep] });
    }).timeout(30_000);
  });
});
