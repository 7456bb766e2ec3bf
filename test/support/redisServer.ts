/**
 * A real Redis for tests: Debian's `redis-server` on a random loopback port, nothing saved to disk.
 * `stop()` kills it (SIGKILL: an outage, not a shutdown), `restart()` brings a new empty one up on
 * the same port (what a replica sees when Redis restarts). Every server still running when the
 * process exits is killed, so a failing test leaves none behind.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import * as fs from 'node:fs';
import * as net from 'node:net';

export const REDIS_SERVER = process.env.REDIS_SERVER ?? '/usr/bin/redis-server';

export interface RedisServer {
  readonly port: number;
  /** `redis://127.0.0.1:PORT` */
  readonly url: string;
  /** Kills the server; resolves once the process is gone. Safe to call twice. */
  stop(): Promise<void>;
  /** Stops it if running, then starts an empty one on the same port and waits for PING. */
  restart(): Promise<void>;
  /** Freezes it (SIGSTOP): connections stay open and nothing answers, as with a hung Redis or a network partition. */
  pause(): void;
  /** Lets a paused server go on (SIGCONT), its data intact. */
  resume(): void;
}

const running = new Set<ChildProcess>();
process.on('exit', () => {
  for (const child of running) child.kill('SIGKILL');
});

export async function startRedis(): Promise<RedisServer> {
  if (!fs.existsSync(REDIS_SERVER)) throw new Error(`${REDIS_SERVER} is not installed (apt-get install redis-server)`);
  // A port another process takes between our probe and Redis's bind makes the start fail; try again.
  for (let attempt = 1; ; attempt++) {
    const port = await freePort();
    try {
      let child = await launch(port);
      const server: RedisServer = {
        port,
        url: `redis://127.0.0.1:${port}`,
        stop: () => kill(child),
        async restart() {
          await kill(child);
          child = await launch(port);
        },
        pause: () => void child.kill('SIGSTOP'),
        resume: () => void child.kill('SIGCONT'),
      };
      return server;
    } catch (e) {
      if (attempt >= 5) throw e;
    }
  }
}

async function launch(port: number): Promise<ChildProcess> {
  const child = spawn(REDIS_SERVER, ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no', '--protected-mode', 'yes', '--loglevel', 'warning'], {
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  running.add(child);
  let stderr = '';
  child.stderr?.on('data', (d: Buffer) => (stderr = (stderr + d.toString()).slice(-2000)));
  const exited = new Promise<never>((_, reject) => child.once('exit', (code) => reject(new Error(`redis-server exited (${code}) before answering PING: ${stderr}`))));
  exited.catch(() => undefined);
  try {
    await Promise.race([waitForPing(port, 10_000), exited]);
  } catch (e) {
    await kill(child);
    throw e;
  }
  return child;
}

function kill(child: ChildProcess): Promise<void> {
  running.delete(child);
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
  return new Promise((resolve) => {
    child.once('exit', () => resolve());
    child.kill('SIGKILL');
  });
}

async function waitForPing(port: number, withinMs: number): Promise<void> {
  const deadline = Date.now() + withinMs;
  for (;;) {
    if (await ping(port)) return;
    if (Date.now() > deadline) throw new Error(`redis-server on port ${port} did not answer PING within ${withinMs} ms`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

function ping(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = net.connect(port, '127.0.0.1');
    let reply = '';
    const done = (ok: boolean) => {
      socket.destroy();
      resolve(ok);
    };
    socket.setTimeout(1_000, () => done(false));
    socket.once('error', () => done(false));
    socket.on('connect', () => socket.write('PING\r\n'));
    socket.on('data', (d) => {
      reply += d.toString();
      if (reply.includes('\r\n')) done(reply.startsWith('+PONG'));
    });
  });
}

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = net.createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as net.AddressInfo;
      server.close(() => resolve(port));
    });
  });
}
