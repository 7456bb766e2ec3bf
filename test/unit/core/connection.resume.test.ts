/**
 * The extension side of owning a session: the Connection keeps the resume secret from `welcome`,
 * presents it on reconnect, and lets it out nowhere else. Against the real backend (which resumes a
 * session only for its secret), through a loopback TCP relay that records what the backend sent and
 * can cut the connection.
 */
import * as assert from 'node:assert/strict';
import * as net from 'node:net';
import type { AddressInfo } from 'node:net';
import { Connection, type ConnectionState } from '../../../src/core/connection';
import type { LogFields, Logger } from '../../../src/base/logger';
import type { Welcome } from '../../../src/protocol';
import { startBackend, TOKEN, type BackendRig } from '../../adversarial/support/backend-rig';
import { hello } from './hello-fixture';

/** Relays to the backend, keeps every byte it sent back, and can cut every connection at once. */
class RecordingRelay {
  readonly fromBackend: Buffer[] = [];
  private readonly sockets = new Set<net.Socket>();
  private constructor(private readonly server: net.Server) {}

  static async start(targetPort: number): Promise<RecordingRelay> {
    const relay: RecordingRelay = new RecordingRelay(
      net.createServer((client) => {
        const backend = net.connect(targetPort, '127.0.0.1');
        for (const s of [client, backend]) {
          relay.sockets.add(s);
          s.on('close', () => relay.sockets.delete(s)).on('error', () => s.destroy());
        }
        backend.on('data', (d: Buffer) => relay.fromBackend.push(d));
        client.pipe(backend);
        backend.pipe(client);
        client.on('close', () => backend.destroy());
        backend.on('close', () => client.destroy());
      }),
    );
    await new Promise<void>((r) => relay.server.listen(0, '127.0.0.1', r));
    return relay;
  }

  get url(): string {
    return `ws://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
  }

  /** The resume secrets of every welcome the backend sent (server frames are not masked). */
  secrets(): string[] {
    const text = Buffer.concat(this.fromBackend).toString('latin1');
    return [...text.matchAll(/"resumeSecret":"([A-Za-z0-9_-]+)"/g)].map((m) => m[1]);
  }

  cut(): void {
    for (const s of this.sockets) s.destroy();
  }

  close(): Promise<void> {
    this.cut();
    return new Promise((r) => this.server.close(() => r()));
  }
}

function waitForState(conn: Connection, match: (s: ConnectionState) => boolean, timeoutMs = 5000): Promise<ConnectionState> {
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

describe('connection: resuming an owned session', () => {
  let rig: BackendRig;
  let relay: RecordingRelay;
  let conn: Connection;

  afterEach(async () => {
    conn.dispose();
    await relay.close();
    await rig.close();
  });

  it('presents the secret from welcome on reconnect, so the real backend resumes the session; the secret is in no state, welcome event or log line', async () => {
    rig = await startBackend();
    relay = await RecordingRelay.start(rig.backend.port);
    const logged: string[] = [];
    const record = (level: string) => (message: string, fields?: LogFields) => logged.push(`${level} ${message} ${JSON.stringify(fields ?? {})}`);
    const logger: Logger = { info: record('info'), warn: record('warn'), error: record('error') };
    const seen: unknown[] = [];
    conn = new Connection({ url: relay.url, token: TOKEN, buildHello: hello, logger, reconnect: { initialDelayMs: 20, maxDelayMs: 80, maxAttempts: 5 } });
    conn.onDidChangeState((s) => seen.push(s));
    conn.onWelcome((w: Welcome) => seen.push(w));
    conn.start();
    const first = await waitForState(conn, (s) => s.kind === 'connected');
    assert.ok(first.kind === 'connected' && !first.resumed);

    relay.cut();
    await waitForState(conn, (s) => s.kind === 'reconnecting');
    const again = await waitForState(conn, (s) => s.kind === 'connected');
    assert.ok(again.kind === 'connected');
    assert.equal(again.sessionId, first.sessionId);
    assert.equal(again.resumed, true, 'the backend did not resume: the secret was not presented');

    const secrets = relay.secrets();
    assert.equal(secrets.length, 2, 'both welcomes carried the secret');
    assert.equal(secrets[0], secrets[1]);
    const everything = JSON.stringify(seen) + logged.join('\n');
    assert.ok(!everything.includes(secrets[0]), 'the secret left the connection');
    assert.ok(!everything.includes('resumeSecret'));
  });

  it('forgets the secret on close(): the next start is a new session', async () => {
    rig = await startBackend();
    relay = await RecordingRelay.start(rig.backend.port);
    conn = new Connection({ url: relay.url, token: TOKEN, buildHello: hello });
    conn.start();
    const first = await waitForState(conn, (s) => s.kind === 'connected');
    conn.close();
    conn.start();
    const second = await waitForState(conn, (s) => s.kind === 'connected');
    assert.ok(first.kind === 'connected' && second.kind === 'connected');
    assert.notEqual(second.sessionId, first.sessionId);
    assert.equal(second.resumed, false);
  });
});
