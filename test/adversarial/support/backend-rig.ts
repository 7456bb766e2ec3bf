/**
 * The backend side under attack: the real backend (`createBackend`, offline demo model) with its
 * log captured, plus helpers to prove it survived, to run it as a separate process that can be
 * killed, and a TCP proxy that can cut or black-hole the network between a client and it.
 */
import * as assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import * as net from 'node:net';
import type { AddressInfo } from 'node:net';
import * as path from 'node:path';
import { createBackend, type Backend, type BackendOptions } from '../../../src/backend';
import type { ClientToolInvokeRequest } from '../../../src/protocol';
import { TestClient } from '../../support/backend-client';

export const TOKEN = 'adversarial-token-0123456789abcdef';
const ROOT = path.join(__dirname, '..', '..', '..');

export interface BackendRig {
  backend: Backend;
  logs: string[];
  clients: TestClient[];
  /** Connects a client and completes its handshake. */
  open(hello?: Parameters<typeof TestClient.open>[2]): Promise<TestClient>;
  /** Connects a client that has not sent `hello` yet. */
  connect(): Promise<TestClient>;
  /** A fresh client still gets a session: the attack did not take the server down. */
  assertAlive(): Promise<void>;
  close(): Promise<void>;
  /** `assertAlive()`, then `close()`: what every attack's afterEach checks. */
  closeAlive(): Promise<void>;
}

export async function startBackend(options: BackendOptions = {}): Promise<BackendRig> {
  const logs: string[] = [];
  const backend = await createBackend({ token: TOKEN, collapsing: false, log: (level, message) => logs.push(`${level} ${message}`), ...options });
  const clients: TestClient[] = [];
  const rig: BackendRig = {
    backend,
    logs,
    clients,
    async open(hello = {}) {
      const { client } = await TestClient.open(backend.url, TOKEN, hello);
      clients.push(client);
      return client;
    },
    async connect() {
      const client = await TestClient.connect(backend.url, TOKEN);
      clients.push(client);
      return client;
    },
    async assertAlive() {
      const { client, welcome } = await TestClient.open(backend.url, TOKEN);
      assert.ok(welcome.sessionId.length > 0);
      await client.close();
    },
    async close() {
      await Promise.all(clients.map((c) => c.drop()));
      await backend.close();
    },
    async closeAlive() {
      await rig.assertAlive();
      await rig.close();
    },
  };
  return rig;
}

/** Starts a run of the demo model whose DeleteFile call waits for `client`'s answer; returns the request. */
export async function pendingDelete(client: TestClient, threadId = 't1'): Promise<ClientToolInvokeRequest> {
  client.send({ type: 'userMessage', threadId, text: 'delete notes.txt' });
  return client.next('clientToolInvokeRequest', (m) => m.threadId === threadId);
}

/** The reference backend as its own process (the CLI), so it can be killed with SIGKILL. */
export class BackendProcess {
  private constructor(
    readonly child: ChildProcess,
    readonly port: number,
  ) {}

  static start(port: number, token: string, args: string[] = []): Promise<BackendProcess> {
    const env: NodeJS.ProcessEnv = { ...process.env, CLIENT_TOOLS_TOKEN: token };
    delete env.OPENAI_API_KEY;
    delete env.OPENAI_BASE_URL;
    delete env.CLIENT_TOOLS_MODEL;
    const child = spawn(process.execPath, ['-r', 'tsx/cjs', 'src/backend/cli.ts', '--port', String(port), '--offline', '--log-level', 'error', ...args], {
      cwd: ROOT,
      env,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    return new Promise((resolve, reject) => {
      let out = '';
      let err = '';
      child.stderr?.on('data', (d: Buffer) => (err += d.toString()));
      child.stdout?.on('data', (d: Buffer) => {
        out += d.toString();
        const line = out.split('\n').find((l) => l.includes('"listening"'));
        if (line) resolve(new BackendProcess(child, (JSON.parse(line) as { port: number }).port));
      });
      child.once('exit', (code) => reject(new Error(`the backend exited (${code}) before listening: ${err}`)));
    });
  }

  get url(): string {
    return `ws://127.0.0.1:${this.port}`;
  }

  /** SIGKILL: no close frames, no cleanup, as in a crash. */
  kill(): Promise<void> {
    if (this.child.exitCode !== null || this.child.signalCode !== null) return Promise.resolve();
    return new Promise((resolve) => {
      this.child.once('exit', () => resolve());
      this.child.kill('SIGKILL');
    });
  }
}

/**
 * A TCP proxy on 127.0.0.1 in front of `targetPort`. `cut()` destroys every connection (no close
 * frame, as a crash or a pulled cable noticed at once); `blackhole()` keeps them open but stops
 * forwarding in both directions (a network that silently stopped), until `heal()`.
 */
export class TcpProxy {
  private constructor(
    private readonly server: net.Server,
    readonly port: number,
    private readonly pairs: Set<{ a: net.Socket; b: net.Socket }>,
  ) {}

  static async start(targetPort: number): Promise<TcpProxy> {
    const pairs = new Set<{ a: net.Socket; b: net.Socket }>();
    const server = net.createServer((a) => {
      const b = net.connect(targetPort, '127.0.0.1');
      const pair = { a, b };
      pairs.add(pair);
      a.pipe(b);
      b.pipe(a);
      const end = () => {
        a.destroy();
        b.destroy();
        pairs.delete(pair);
      };
      a.on('close', end).on('error', end);
      b.on('close', end).on('error', end);
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    return new TcpProxy(server, (server.address() as AddressInfo).port, pairs);
  }

  get url(): string {
    return `ws://127.0.0.1:${this.port}`;
  }

  get connections(): number {
    return this.pairs.size;
  }

  cut(): void {
    for (const { a, b } of [...this.pairs]) {
      a.destroy();
      b.destroy();
    }
  }

  /** Stops forwarding on the open connections, which stay open and silent; new ones are still accepted. */
  blackhole(): { heal: () => void; stale: { a: net.Socket; b: net.Socket }[] } {
    const stale = [...this.pairs];
    for (const p of stale) {
      p.a.unpipe(p.b);
      p.b.unpipe(p.a);
      p.a.pause();
      p.b.pause();
    }
    return {
      stale,
      heal: () => {
        for (const p of stale) {
          p.a.destroy();
          p.b.destroy();
        }
      },
    };
  }

  async close(): Promise<void> {
    this.cut();
    await new Promise<void>((r) => this.server.close(() => r()));
  }
}
