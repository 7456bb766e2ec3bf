/**
 * `clientTools.backendUrls`: the connection moves on to the next replica whenever a connection is
 * lost or an attempt fails, and resumes the same session there. Two scripted backends sharing their
 * session ids stand in for replicas on shared state; real loopback sockets.
 */
import * as assert from 'node:assert/strict';
import { ClientCore } from '../../../src/core/clientCore';
import { Connection, type ConnectionState } from '../../../src/core/connection';
import { ErrorCode } from '../../../src/protocol';
import { ScriptedBackend } from '../../support/scripted-backend';
import { FakeHost } from '../../support/fake-host';
import { hello } from './hello-fixture';

function waitForState(conn: { state: ConnectionState; onDidChangeState: Connection['onDidChangeState'] }, match: (s: ConnectionState) => boolean, timeoutMs = 10_000): Promise<ConnectionState> {
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

const connectedTo = (target: string) => (s: ConnectionState) => s.kind === 'connected' && s.target === target;

describe('connection: a list of backend replicas', () => {
  const disposables: Array<{ dispose(): void } | { close(): Promise<void> }> = [];
  afterEach(async () => {
    for (const d of disposables.splice(0).reverse()) {
      if ('dispose' in d) d.dispose();
      else await d.close();
    }
  });

  async function replicas(count: number): Promise<ScriptedBackend[]> {
    const sessions = new Set<string>();
    const started = await Promise.all(Array.from({ length: count }, () => ScriptedBackend.start({ sessions })));
    disposables.push(...started);
    return started;
  }

  function connection(urls: string[]): Connection {
    const conn = new Connection({ url: urls[0], fallbackUrls: urls.slice(1), token: 'test-token', buildHello: hello, reconnect: { initialDelayMs: 50, maxDelayMs: 200 } });
    disposables.push(conn);
    return conn;
  }

  it('resumes the session on the next replica when the one it was on dies', async () => {
    const [a, b] = await replicas(2);
    const conn = connection([a.url, b.url]);
    conn.start();
    const first = await waitForState(conn, connectedTo(a.url));
    assert.equal(first.kind === 'connected' && first.resumed, false);
    await a.close();
    const second = await waitForState(conn, connectedTo(b.url));
    assert.ok(second.kind === 'connected');
    assert.equal(second.resumed, true);
    assert.equal(second.sessionId, first.kind === 'connected' ? first.sessionId : '');
    assert.equal(b.hellos[0].resumeSession, second.sessionId);
  });

  it('goes round the list past replicas that refuse, back to the first', async () => {
    const [a, b, c] = await replicas(3);
    const conn = connection([a.url, b.url, c.url]);
    conn.start();
    await waitForState(conn, connectedTo(a.url));
    await b.close();
    await c.close();
    a.dropClients();
    // b and c refuse; the list wraps round to a, which is up again.
    await waitForState(conn, (s) => s.kind === 'reconnecting' && s.target === c.url);
    const back = await waitForState(conn, connectedTo(a.url));
    assert.equal(back.kind === 'connected' && back.resumed, true);
  });

  it('stops with FORBIDDEN before connecting when a replica URL must not be used', () => {
    assert.throws(
      () => new Connection({ url: 'ws://127.0.0.1:1', fallbackUrls: ['ws://example.com:80'], token: 't', buildHello: hello }),
      (e: unknown) => (e as { code?: string }).code === ErrorCode.Forbidden,
    );
  });

  it('ClientCore takes the list from setEndpoint and fails over with it', async () => {
    const [a, b] = await replicas(2);
    const core = new ClientCore({ url: '', token: '', clientInfo: { name: 'test', version: '0', ide: 'none' }, host: new FakeHost([], '/nonexistent-trash'), connection: { reconnect: { initialDelayMs: 50, maxDelayMs: 200 } } });
    disposables.push(core);
    core.setEndpoint(a.url, 'test-token', [b.url]);
    core.start();
    await waitForState(core, connectedTo(a.url));
    await a.close();
    const resumed = await waitForState(core, connectedTo(b.url));
    assert.equal(resumed.kind === 'connected' && resumed.resumed, true);
  });
});
