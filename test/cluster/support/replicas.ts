/**
 * Backend replicas as real processes: the bundled CLI (`dist/backend/cli.js`, built by
 * `npm run build`) on a random loopback port, all on one Redis. `kill()` is SIGKILL, a crash with
 * no goodbye; every replica still running when the test process exits is killed too.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import type { BalancerTarget } from '../../support/tcpBalancer';

export const CLI = path.resolve(__dirname, '../../../dist/backend/cli.js');

export interface ReplicaOptions {
  name: string;
  token: string;
  redisUrl: string;
  modelBaseUrl: string;
  leaseMs: number;
}

export interface Replica {
  readonly name: string;
  readonly port: number;
  readonly target: BalancerTarget;
  readonly process: ChildProcess;
  /** Its stderr so far (last 20 kB), for a failing test's message. */
  log(): string;
  /** SIGKILL; resolves once the process is gone. */
  kill(): Promise<void>;
  readonly alive: boolean;
}

const running = new Set<ChildProcess>();
process.on('exit', () => {
  for (const child of running) child.kill('SIGKILL');
});

export async function startReplica(o: ReplicaOptions): Promise<Replica> {
  if (!fs.existsSync(CLI)) throw new Error(`${CLI} is missing: run npm run build first`);
  const child = spawn(
    process.execPath,
    [CLI, '--port', '0', '--token', o.token, '--redis', o.redisUrl, '--replica', o.name, '--lease-ms', String(o.leaseMs), '--base-url', o.modelBaseUrl, '--model', 'fake-model', '--max-turns', '1000', '--context-window', '100000000', '--log-level', process.env.CLUSTER_LOG_LEVEL ?? 'warn'],
    { stdio: ['ignore', 'pipe', 'pipe'], env: { ...process.env, OPENAI_API_KEY: 'sk-fake-cluster-test' } },
  );
  running.add(child);
  let stderr = '';
  child.stderr?.on('data', (d: Buffer) => (stderr = (stderr + d.toString()).slice(-20_000)));
  const port = await new Promise<number>((resolve, reject) => {
    let stdout = '';
    const timer = setTimeout(() => reject(new Error(`replica ${o.name} did not start within 20 s: ${stderr}`)), 20_000);
    child.stdout?.on('data', (d: Buffer) => {
      stdout += d.toString();
      const line = /\{"event":"listening","port":(\d+)\}/.exec(stdout);
      if (line) {
        clearTimeout(timer);
        resolve(Number(line[1]));
      }
    });
    child.once('exit', (code, signal) => {
      clearTimeout(timer);
      reject(new Error(`replica ${o.name} exited (${code ?? signal}) before listening: ${stderr}`));
    });
  });
  const replica: Replica = {
    name: o.name,
    port,
    target: { host: '127.0.0.1', port },
    process: child,
    log: () => stderr,
    get alive() {
      return child.exitCode === null && child.signalCode === null;
    },
    kill: () => {
      running.delete(child);
      if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
      return new Promise((resolve) => {
        child.once('exit', () => resolve());
        child.kill('SIGKILL');
      });
    },
  };
  return replica;
}
