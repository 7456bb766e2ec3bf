import { strict as assert } from 'node:assert';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import type { Backend, BackendOptions, ServerTool } from '../../../src/backend';
import { createBackend } from '../../../src/backend';
import { ErrorCode, PROTOCOL, TOKEN_HEADER } from '../../../src/protocol';
import { delay, helloMessage, ideGroup, TestClient, upgradeStatus } from '../../support/backend-client';

const TOKEN = 'test-token-0123456789abcdef';

describe('backend server: handshake and sessions', () => {
  let backend: Backend | undefined;
  const clients: TestClient[] = [];
  let tmp: string | undefined;

  async function start(options: BackendOptions = {}): Promise<Backend> {
    backend = await createBackend({ token: TOKEN, ...options });
    return backend;
  }
  async function open(hello = {}): Promise<{ client: TestClient; sessionId: string; resumeSecret?: string }> {
    const { client, welcome } = await TestClient.open(backend!.url, TOKEN, hello);
    clients.push(client);
    return { client, sessionId: welcome.sessionId, resumeSecret: welcome.resumeSecret };
  }

  afterEach(async () => {
    await Promise.all(clients.splice(0).map((c) => c.drop()));
    await backend?.close();
    backend = undefined;
    if (tmp) fs.rmSync(tmp, { recursive: true, force: true });
    tmp = undefined;
  });

  describe('before the upgrade', () => {
    it('binds loopback and accepts the right token with a loopback Host', async () => {
      const b = await start();
      assert.equal(b.host, '127.0.0.1');
      assert.equal(await upgradeStatus(b.url, { [TOKEN_HEADER]: TOKEN }), 101);
      assert.equal(await upgradeStatus(b.url, { [TOKEN_HEADER]: TOKEN, Host: `localhost:${b.port}` }), 101);
    });

    it('refuses a missing token with 401', async () => {
      const b = await start();
      assert.equal(await upgradeStatus(b.url, {}), 401);
    });

    it('refuses a wrong token with 401, also one of the same length', async () => {
      const b = await start();
      assert.equal(await upgradeStatus(b.url, { [TOKEN_HEADER]: 'nope' }), 401);
      assert.equal(await upgradeStatus(b.url, { [TOKEN_HEADER]: TOKEN.replace(/.$/, 'X') }), 401);
    });

    it('refuses a request with a browser Origin with 403, even with the right token', async () => {
      const b = await start();
      assert.equal(await upgradeStatus(b.url, { [TOKEN_HEADER]: TOKEN, Origin: 'https://evil.example' }), 403);
      assert.equal(await upgradeStatus(b.url, { [TOKEN_HEADER]: TOKEN, Origin: 'null' }), 403);
    });

    it('refuses a foreign Host with 403 (DNS rebinding)', async () => {
      const b = await start();
      assert.equal(await upgradeStatus(b.url, { [TOKEN_HEADER]: TOKEN, Host: `evil.example:${b.port}` }), 403);
      assert.equal(await upgradeStatus(b.url, { [TOKEN_HEADER]: TOKEN, Host: `127.0.0.1.evil.example` }), 403);
    });

    it('closes the oldest connection still in its handshake (SERVER_BUSY, 1013) to make room for a new one', async () => {
      const b = await start({ maxConnections: 1 });
      const silent = await TestClient.connect(b.url, TOKEN);
      clients.push(silent);
      await open();
      assert.equal((await silent.next('error')).code, ErrorCode.ServerBusy);
      assert.equal((await silent.closed).code, 1013);
    });

    it('refuses a new session beyond the cap of attached sessions with SERVER_BUSY and close code 1013', async () => {
      const b = await start({ maxConnections: 1 });
      await open();
      const late = await TestClient.connect(b.url, TOKEN);
      clients.push(late);
      late.send(helloMessage());
      assert.equal((await late.next('error')).code, ErrorCode.ServerBusy);
      assert.equal((await late.closed).code, 1013);
      assert.equal(late.all('welcome').length, 0);
    });
  });

  describe('discovery file', () => {
    it('is created with mode 0600 holding port, token, pid and protocol, and is gone after close', async () => {
      tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'ct-backend-'));
      const file = path.join(tmp, 'sub', 'backend.json');
      const b = await start({ discoveryFile: file });
      assert.equal(fs.statSync(file).mode & 0o777, 0o600);
      assert.equal(fs.statSync(path.dirname(file)).mode & 0o777, 0o700);
      assert.deepEqual(JSON.parse(fs.readFileSync(file, 'utf8')), { port: b.port, token: TOKEN, pid: process.pid, protocol: PROTOCOL });
      await b.close();
      assert.equal(fs.existsSync(file), false);
    });

    it('is created exclusively: a file owned by a live process is not overwritten', async () => {
      tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'ct-backend-'));
      const file = path.join(tmp, 'backend.json');
      const other = JSON.stringify({ port: 1, token: 'theirs', pid: process.ppid, protocol: PROTOCOL });
      fs.writeFileSync(file, other);
      await assert.rejects(start({ discoveryFile: file }), /already exists/);
      assert.equal(fs.readFileSync(file, 'utf8'), other);
    });

    it('replaces a stale file left by a process that is gone', async () => {
      tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'ct-backend-'));
      const file = path.join(tmp, 'backend.json');
      fs.writeFileSync(file, JSON.stringify({ port: 1, token: 'old', pid: 2 ** 22 + 12345, protocol: PROTOCOL }));
      const b = await start({ discoveryFile: file });
      assert.equal(JSON.parse(fs.readFileSync(file, 'utf8')).port, b.port);
    });
  });

  describe('after the upgrade', () => {
    it('welcomes a hello with a session id, the model and the limits', async () => {
      await start({ invokeTimeoutMs: 1234, limits: { maxInFlight: 7, maxMessageBytes: 100_000 } });
      const { client, welcome } = await TestClient.open(backend!.url, TOKEN);
      clients.push(client);
      assert.equal(welcome.protocol, PROTOCOL);
      assert.equal(welcome.resumed, false);
      assert.match(welcome.sessionId, /^[0-9a-f-]{36}$/);
      assert.deepEqual(welcome.server.model, { name: 'offline-demo', offline: true });
      assert.deepEqual(welcome.limits, { maxMessageBytes: 100_000, maxInFlight: 7, invokeTimeoutMs: 1234 });
      const state = await client.next('toolGroupState');
      assert.equal(state.threadId, undefined);
      assert.deepEqual(state.groups.map((g) => [g.name, g.containerName, g.expanded]), [['IDE', 'IDE', false]]);
    });

    it('handles messages sent right after hello, before welcome, once the hello is registered (it is registered in the next turn)', async () => {
      const b = await start();
      const c = await TestClient.connect(b.url, TOKEN);
      clients.push(c);
      c.send(helloMessage());
      c.send({ type: 'userMessage', threadId: 't1', text: 'open README.md' });
      await c.next('welcome');
      const started = await c.next('runStarted');
      assert.equal(started.threadId, 't1');
      assert.deepEqual(c.all('error'), []);
    });

    it('answers NOT_READY to anything before hello, then still accepts hello', async () => {
      await start();
      const client = await TestClient.connect(backend!.url, TOKEN);
      clients.push(client);
      client.send({ type: 'userMessage', threadId: 't', text: 'hi' });
      const err = await client.next('error');
      assert.equal(err.code, ErrorCode.NotReady);
      const welcome = await client.hello();
      assert.equal(welcome.type, 'welcome');
    });

    it('refuses another protocol version with PROTOCOL_MISMATCH and closes', async () => {
      await start();
      const client = await TestClient.connect(backend!.url, TOKEN);
      clients.push(client);
      client.send(JSON.stringify({ ...helloMessage(), protocol: 'client-tools/2' }));
      const err = await client.next('error');
      assert.equal(err.code, ErrorCode.ProtocolMismatch);
      assert.equal((await client.closed).code, 1002);
    });

    it('closes a connection that sends no hello within the handshake timeout, with HANDSHAKE_TIMEOUT', async () => {
      await start({ handshakeTimeoutMs: 100 });
      const client = await TestClient.connect(backend!.url, TOKEN);
      clients.push(client);
      const err = await client.next('error');
      assert.equal(err.code, ErrorCode.HandshakeTimeout);
      assert.equal((await client.closed).code, 4008);
    });

    it('answers bad input with coded errors and keeps the connection and its calls alive', async () => {
      await start({ model: scriptedModel([{ call: 'OpenFile', args: { path: 'a.ts' } }, { text: 'done' }]), collapsing: false });
      const { client } = await open();
      client.send({ type: 'userMessage', threadId: 't1', text: 'open a.ts' });
      const req = await client.next('clientToolInvokeRequest');

      client.send('{not json');
      assert.equal((await client.next('error')).code, ErrorCode.ParseError);
      client.send(JSON.stringify({ type: 'launchMissiles' }));
      assert.equal((await client.next('error')).code, ErrorCode.UnknownType);
      client.send(JSON.stringify({ type: 'userMessage', threadId: 't2' }));
      const invalid = await client.next('error');
      assert.equal(invalid.code, ErrorCode.InvalidMessage);
      assert.match(invalid.message, /text/);
      client.send({ type: 'clientToolInvokeResponse', requestId: 'req_unknown', success: true, content: [] });
      const unknown = await client.next('error');
      assert.equal(unknown.code, ErrorCode.UnknownRequest);
      assert.equal(unknown.relatedId, 'req_unknown');

      client.respond(req.requestId, { success: true, content: [{ type: 'text', text: 'opened' }] });
      const finished = await client.next('runFinished');
      assert.equal(finished.reason, 'completed');
    });

    it('ends the call whose answer was malformed (bad base64) instead of letting it hang', async () => {
      await start({ model: scriptedModel([{ call: 'ReadFile', args: { path: 'logo.png' } }, { text: 'ok' }]), collapsing: false });
      const { client } = await open();
      client.send({ type: 'userMessage', threadId: 't1', text: 'read' });
      const req = await client.next('clientToolInvokeRequest');
      client.send(JSON.stringify({ type: 'clientToolInvokeResponse', requestId: req.requestId, success: true, content: [{ type: 'binary', mimeType: 'image/png', byteLength: 3, data: '!!!!' }] }));
      const err = await client.next('error');
      assert.equal(err.code, ErrorCode.BadBase64);
      assert.equal(err.relatedId, req.requestId);
      const ended = await client.next('toolCallEnded');
      assert.equal(ended.outcome, 'failed');
      assert.match(ended.errorMessage ?? '', /could not be read/);
      assert.equal((await client.next('runFinished')).reason, 'completed');
    });

    it('resumes a session on reconnect: same id, thread state kept', async () => {
      await start({ model: scriptedModel([{ call: 'IDE', args: {} }, { text: 'expanded it' }, { text: 'second turn' }]) });
      const first = await open();
      const one = await first.client.run('t1', 'expand please');
      assert.equal(one.finished.reason, 'completed');
      await first.client.drop();

      const second = await open({ resumeSession: first.sessionId, resumeSecret: first.resumeSecret });
      const welcome = second.client.all('welcome')[0];
      assert.equal(welcome.resumed, true);
      assert.equal(welcome.sessionId, first.sessionId);
      const threadState = await second.client.next('toolGroupState', (m) => m.threadId === 't1');
      assert.equal(threadState.groups[0].expanded, true, 'the thread keeps its expanded group');
      await second.client.run('t1', 'again');
    });

    it('replays the run events a dropped client missed when it resumes', async () => {
      const slow: ServerTool = { name: 'slow', description: 'waits', parameters: { type: 'object' }, execute: () => delay(100).then(() => 'slept') };
      await start({ model: scriptedModel([{ call: 'slow', args: {} }, { text: 'woke up' }]), tools: [slow] });
      const first = await open();
      first.client.send({ type: 'userMessage', threadId: 't1', text: 'sleep' });
      const started = await first.client.next('toolCallStarted');
      await first.client.drop();
      await delay(250);

      const second = await open({ resumeSession: first.sessionId, resumeSecret: first.resumeSecret });
      const ended = await second.client.next('toolCallEnded', (m) => m.callId === started.callId);
      assert.equal(ended.outcome, 'succeeded');
      assert.equal(second.client.text(started.runId), 'woke up');
      assert.equal((await second.client.next('runFinished')).reason, 'completed');
    });

    it('starts a fresh session with SESSION_UNKNOWN when the session to resume is unknown', async () => {
      await start();
      const { client, sessionId } = await open({ resumeSession: 'no-such-session' });
      assert.notEqual(sessionId, 'no-such-session');
      assert.equal(client.all('welcome')[0].resumed, false);
      assert.equal((await client.next('error')).code, ErrorCode.SessionUnknown);
    });

    it('forgets a dropped session after the grace period', async () => {
      await start({ sessionGraceMs: 50 });
      const ended: string[] = [];
      backend!.on('sessionEnded', (e) => ended.push(e.sessionId));
      const first = await open();
      await first.client.drop();
      await delay(150);
      assert.deepEqual(ended, [first.sessionId]);
      const { client } = await open({ resumeSession: first.sessionId, resumeSecret: first.resumeSecret });
      assert.equal((await client.next('error')).code, ErrorCode.SessionUnknown);
    });

    it('terminates a peer that misses two heartbeats', async () => {
      await start({ heartbeatMs: 40 });
      const disconnects: string[] = [];
      backend!.on('disconnect', (e) => disconnects.push(e.sessionId));
      const { client, sessionId } = await open();
      // A paused socket reads nothing, so it never sees the pings and never answers them.
      const raw = (client.ws as unknown as { _socket: { pause(): void } })._socket;
      raw.pause();
      await delay(250);
      assert.deepEqual(disconnects, [sessionId]);
    });

    it('keeps a peer that answers pings', async () => {
      await start({ heartbeatMs: 30 });
      const disconnects: string[] = [];
      backend!.on('disconnect', (e) => disconnects.push(e.sessionId));
      await open();
      await delay(200);
      assert.deepEqual(disconnects, []);
    });

    it('reports an invalid tool schema in hello as INVALID_SCHEMA naming the tool, and registers the rest', async () => {
      await start();
      const group = ideGroup();
      group.tools.push({ name: 'Broken', description: 'x', parameters: { type: 'object', properties: { n: { type: 12 } } } });
      const { client } = await open({ toolGroups: [group] });
      const err = await client.next('error');
      assert.equal(err.code, ErrorCode.InvalidSchema);
      assert.match(err.message, /Tool "Broken"/);
      const state = await client.next('toolGroupState');
      assert.deepEqual(state.groups[0].tools.map((t) => t.name), ['OpenFile', 'GetSelection', 'ShowMessage', 'ReadFile', 'DeleteFile']);
    });
  });
});

/** A deterministic model for server tests: each turn either calls one tool or answers. */
export function scriptedModel(turns: ({ call: string; args: Record<string, unknown> } | { text: string })[]): BackendOptions['model'] {
  let i = 0;
  return {
    name: 'scripted',
    offline: false,
    async *stream() {
      const turn = turns[i++] ?? { text: 'out of script' };
      await Promise.resolve();
      if ('call' in turn) {
        yield { type: 'toolCall' as const, call: { id: `call_${i}`, name: turn.call, arguments: JSON.stringify(turn.args) } };
        yield { type: 'finish' as const, reason: 'tool_calls' };
      } else {
        yield { type: 'text' as const, text: turn.text };
        yield { type: 'finish' as const, reason: 'stop' };
      }
    },
  };
}
