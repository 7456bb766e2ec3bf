/**
 * The scripted backend every test layer relies on, checked against a plain `ws` client on a real
 * loopback socket: what it refuses, how it answers hello, and the records tests read.
 */
import * as assert from 'node:assert/strict';
import { WebSocket } from 'ws';
import { decodeFromServer, encode, PROTOCOL, TOKEN_HEADER, type ClientToServer, type Hello, type ServerToClient, type Welcome } from '../../../src/protocol';
import { ScriptedBackend } from '../../support/scripted-backend';

const TOKEN = 'scripted-test-token';

/** A bare client: connects with `token`, decodes what the backend sends. */
class Peer {
  readonly received: ServerToClient[] = [];
  private constructor(readonly ws: WebSocket) {
    ws.on('message', (data, isBinary) => {
      const decoded = decodeFromServer(data as Buffer, isBinary);
      if (decoded.ok) this.received.push(decoded.message);
    });
  }

  /** Resolves with the peer, or rejects with the HTTP status that refused the upgrade. */
  static connect(url: string, token: string): Promise<Peer> {
    const ws = new WebSocket(url, { headers: { [TOKEN_HEADER]: token } });
    const peer = new Peer(ws);
    return new Promise((resolve, reject) => {
      ws.once('open', () => resolve(peer));
      ws.once('unexpected-response', (_req, res) => reject(new Error(`HTTP ${res.statusCode}`)));
      ws.once('error', reject);
    });
  }

  send(message: ClientToServer): void {
    const frame = encode(message);
    this.ws.send(frame.data, { binary: frame.binary });
  }

  async next<T extends ServerToClient['type']>(type: T): Promise<Extract<ServerToClient, { type: T }>> {
    const deadline = Date.now() + 5000;
    for (;;) {
      const found = this.received.find((m) => m.type === type);
      if (found) {
        this.received.splice(this.received.indexOf(found), 1);
        return found as Extract<ServerToClient, { type: T }>;
      }
      if (Date.now() > deadline) throw new Error(`no ${type} within 5 s`);
      await new Promise((r) => setTimeout(r, 10));
    }
  }

  closed(): Promise<number> {
    return new Promise((resolve) => this.ws.once('close', (code) => resolve(code)));
  }
}

const hello = (resumeSession?: string): Hello => ({
  type: 'hello',
  protocol: PROTOCOL,
  client: { name: 'peer', version: '0', ide: 'none' },
  workspace: { folders: [], trusted: true },
  toolGroups: [],
  ...(resumeSession ? { resumeSession } : {}),
});

describe('the scripted backend (test support for every layer)', () => {
  let backend: ScriptedBackend;
  const peers: Peer[] = [];

  async function peer(token = TOKEN): Promise<Peer> {
    const p = await Peer.connect(backend.url, token);
    peers.push(p);
    return p;
  }

  async function handshake(resumeSession?: string): Promise<{ p: Peer; welcome: Welcome }> {
    const p = await peer();
    p.send(hello(resumeSession));
    return { p, welcome: await p.next('welcome') };
  }

  beforeEach(async () => {
    backend = await ScriptedBackend.start({ token: TOKEN });
  });

  afterEach(async () => {
    for (const p of peers.splice(0)) p.ws.terminate();
    await backend.close();
  });

  it('refuses a wrong token with HTTP 401 and records it; resumes a session it handed out', async () => {
    await assert.rejects(Peer.connect(backend.url, 'wrong'), /HTTP 401/);
    assert.deepEqual(backend.refusedUpgrades, [{ reason: 'token', token: 'wrong' }]);

    const first = await handshake();
    assert.equal(first.welcome.resumed, false);
    backend.dropClients();
    const again = await handshake(first.welcome.sessionId);
    assert.deepEqual([again.welcome.resumed, again.welcome.sessionId], [true, first.welcome.sessionId]);
    assert.deepEqual(backend.tokens, [TOKEN, TOKEN]);
  });

  it('dropClients({ refuseNew }) answers upgrades with HTTP 503 until acceptConnections()', async () => {
    await handshake();
    backend.dropClients({ refuseNew: true });
    await assert.rejects(peer(), /HTTP 503/);
    assert.deepEqual(backend.refusedUpgrades.map((r) => r.reason), ['not accepting']);
    backend.acceptConnections();
    await handshake();
    assert.equal(backend.hellos.length, 2);
  });

  it('startCall resolves with the answer; responseFrames says how it travelled; sendRequest replays the request for the next answer', async () => {
    const { p } = await handshake();
    const call = backend.startCall('ReadFile', { path: 'logo.png' });
    const request = await p.next('clientToolInvokeRequest');
    assert.deepEqual(request, call.request);
    p.send({ type: 'clientToolProgress', requestId: call.requestId, status: 'running' });
    const bytes = new Uint8Array([137, 80, 78, 71]);
    p.send({ type: 'clientToolInvokeResponse', requestId: call.requestId, success: true, content: [{ type: 'binary', mimeType: 'image/png', bytes }] });
    const answer = await call.response;
    const [item] = answer.content;
    assert.ok(item.type === 'binary' && Buffer.from(item.bytes).equals(bytes), 'the bytes arrive as bytes');
    assert.deepEqual(backend.responseFrames(call.requestId).map((f) => f.binary), [true]);
    assert.equal((await backend.waitForProgress(call.requestId, 'running')).status, 'running');

    const replay = backend.sendRequest(call.request);
    assert.deepEqual(await p.next('clientToolInvokeRequest'), call.request);
    p.send({ type: 'clientToolInvokeResponse', requestId: call.requestId, success: false, content: [], errorCode: 'X' });
    assert.equal((await replay).errorCode, 'X');
    assert.equal(backend.responsesFor(call.requestId).length, 2);
  });

  it('first() finds a message already received as well as one still to come', async () => {
    const { p } = await handshake();
    assert.equal((await backend.first('hello')).protocol, PROTOCOL);
    const reset = backend.first('resetThread', (m) => m.threadId === 'later');
    p.send({ type: 'resetThread', threadId: 'later' });
    assert.equal((await reset).threadId, 'later');
  });

  it('with undecodable: record, keeps what the codec refuses and closes the socket with 1002', async () => {
    await backend.close();
    backend = await ScriptedBackend.start({ token: TOKEN, undecodable: 'record' });
    const p = await peer();
    const closed = p.closed();
    p.ws.send('{"type":"launchMissiles"}');
    assert.equal(await closed, 1002);
    assert.equal(backend.protocolErrors.length, 1);
    assert.equal(backend.received.length, 0);
  });

  it('refuseHellos answers every hello with the given message and closes with its code', async () => {
    backend.refuseHellos({ type: 'error', code: 'FORBIDDEN', message: 'go away' }, 1008);
    const p = await peer();
    const closed = p.closed();
    p.send(hello());
    assert.equal((await p.next('error')).message, 'go away');
    assert.equal(await closed, 1008);
    assert.equal(backend.hellos.length, 1);
  });
});
