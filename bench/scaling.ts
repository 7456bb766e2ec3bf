/**
 * 9. Scaling: 500 simulated editors against 1, 2 and 3 backend replicas behind a TCP round-robin
 *    balancer (test/support/tcpBalancer.ts), each replica the real CLI in its own process with
 *    `--redis` on Debian's redis-server (test/support/redisServer.ts, a fresh one per round), the
 *    model a fake on the real OpenAI wire in its own process (fake-model-child.ts).
 *
 *    The editors are lean protocol clients (lib/soakClient.ts: a real `ws` socket, the protocol
 *    codec, every tool request answered at once as the extension would), not the extension's core:
 *    500 full cores with registries, permission gates and replay caches would measure this process
 *    more than the backends. Each runs tool-calling turns back to back in its own thread (one
 *    ReadFile call and two model requests per turn). Measured per round: turns/s and calls/s,
 *    turn latency p50/p99, calls lost (must be 0), RSS per session (the replicas' growth over the
 *    round / editors), Redis operations per call (INFO commandstats delta, INFO itself left out).
 */
import { randomUUID } from 'node:crypto';
import { fork, type ChildProcess } from 'node:child_process';
import * as path from 'node:path';
import Redis from 'ioredis';
import { ideGroup } from '../test/support/backend-client';
import type { RedisServer } from '../test/support/redisServer';
import { startRedis } from '../test/support/redisServer';
import { TcpBalancer } from '../test/support/tcpBalancer';
import { BENCH_DIR } from './lib/paths';
import { cpuSecondsOf, ReplicaProcess } from './lib/replicaProcess';
import { SoakClient, type SoakCounts } from './lib/soakClient';
import { percentile } from './lib/stats';

export interface ScalingRound {
  replicas: number;
  editors: number;
  seconds: number;
  turns: number;
  calls: number;
  turnsPerSecond: number;
  callsPerSecond: number;
  latency: { p50Ms: number; p99Ms: number };
  lost: number;
  counts: SoakCounts;
  rssPerSessionKB: number;
  rssMB: { idle: number[]; end: number[] };
  redisOpsPerCall: number;
  /** Client calls requested but not answered, or answered but not reported as succeeded. */
  callsLost: number;
  /** Turns that ended with a runError or did not finish. */
  turnsFailed: number;
  /** CPU seconds each part used during the round: where the bottleneck is. */
  cpuSeconds: { editorsAndBalancer: number; replicas: number; redis: number; model: number };
  /** Runs that failed, by runError code. */
  runErrors: Record<string, number>;
  /** Warnings and errors the replicas logged (their last lines). */
  replicaLog: string[];
  /** Connections the balancer sent to each replica. */
  connectionsPerReplica: number[];
}

export interface ScalingResult {
  editors: number;
  seconds: number;
  rounds: ScalingRound[];
  /** Throughput (turns/s) of 2 and 3 replicas over 1. */
  ratios: { twoOverOne: number; threeOverOne: number };
}

const MB = 1024 * 1024;

export function scalingSeconds(): number {
  const env = Number(process.env.CLIENT_TOOLS_SCALING_SECONDS);
  return Number.isFinite(env) && env > 0 ? env : 20;
}

export async function benchScaling(options: { editors?: number; seconds?: number; replicas?: number[] } = {}): Promise<ScalingResult> {
  const editors = options.editors ?? 500;
  const seconds = options.seconds ?? scalingSeconds();
  const rounds: ScalingRound[] = [];
  const model = await FakeModel.start();
  try {
    for (const n of options.replicas ?? [1, 2, 3]) {
      process.stderr.write(` [${n} replica${n > 1 ? 's' : ''}]`);
      rounds.push(await round(n, editors, seconds, model.port, model.pid));
    }
  } finally {
    model.stop();
  }
  const rate = (n: number) => rounds.find((r) => r.replicas === n)?.turnsPerSecond ?? NaN;
  return { editors, seconds, rounds, ratios: { twoOverOne: rate(2) / rate(1), threeOverOne: rate(3) / rate(1) } };
}

async function round(replicaCount: number, editors: number, seconds: number, modelPort: number, modelPid: number | undefined): Promise<ScalingRound> {
  const token = `scaling-${randomUUID()}`;
  let redis: RedisServer | undefined;
  let counter: Redis | undefined;
  const replicas: ReplicaProcess[] = [];
  let balancer: TcpBalancer | undefined;
  const clients: SoakClient[] = [];
  try {
    redis = await startRedis();
    counter = new Redis(redis.url, { lazyConnect: true, maxRetriesPerRequest: 1 });
    await counter.connect();
    const env: NodeJS.ProcessEnv = { ...process.env, OPENAI_API_KEY: 'sk-fake-scaling-bench', CLIENT_TOOLS_TOKEN: token };
    for (const k of ['OPENAI_BASE_URL', 'CLIENT_TOOLS_MODEL', 'CLIENT_TOOLS_REDIS_URL']) delete env[k];
    const args = [
      '--base-url', `http://127.0.0.1:${modelPort}/v1`, '--model', 'fake-model',
      '--redis', redis.url,
      // Room for every editor on any replica; everything else is the default configuration.
      '--max-connections', String(editors + 16), '--max-sessions', String(4 * (editors + 16)), '--max-pending-sockets', String(editors + 16),
      '--log-level', 'warn', '--drain-timeout', '5s',
    ];
    replicas.push(...(await Promise.all(Array.from({ length: replicaCount }, () => ReplicaProcess.start(args, env)))));
    balancer = await TcpBalancer.start(replicas.map((r) => ({ host: '127.0.0.1', port: r.port })));
    const idle = replicas.map((r) => r.rss());
    // Groups expanded from the start: each turn is then exactly one client call and two model requests.
    const groups = [ideGroup({ startCollapsed: false })];
    for (let i = 0; i < editors; i += 25) {
      clients.push(...(await Promise.all(Array.from({ length: Math.min(25, editors - i) }, (_, k) => SoakClient.connect(balancer!.url, token, `e${i + k}`, 30_000, groups)))));
    }
    const opsBefore = await redisOps(counter);
    const cpuBefore = { parent: process.cpuUsage(), replicas: replicas.map((r) => r.cpuSeconds()), redis: await redisCpu(counter), model: cpuSecondsOf(modelPid) };
    const started = performance.now();
    for (const c of clients) c.start();
    await new Promise((r) => setTimeout(r, seconds * 1000));
    const stopped = await Promise.all(clients.map((c) => c.stop(15_000)));
    const elapsed = (performance.now() - started) / 1000;
    const opsAfter = await redisOps(counter);
    const parentCpu = process.cpuUsage(cpuBefore.parent);
    const cpuSeconds = {
      editorsAndBalancer: (parentCpu.user + parentCpu.system) / 1e6,
      replicas: replicas.reduce((sum, r, i) => sum + r.cpuSeconds() - cpuBefore.replicas[i], 0),
      redis: (await redisCpu(counter)) - cpuBefore.redis,
      model: cpuSecondsOf(modelPid) - cpuBefore.model,
    };
    const end = replicas.map((r) => r.rss());
    if (stopped.some((s) => !s)) process.stderr.write(`\n[bench] scaling: ${stopped.filter((s) => !s).length} editors still had a turn running 15 s after the end\n`);

    const counts: SoakCounts = { turnsStarted: 0, turnsCompleted: 0, turnsFailed: 0, callsRequested: 0, callsAnswered: 0, callsSucceeded: 0, callsFailed: 0, errors: 0 };
    for (const c of clients) for (const k of Object.keys(counts) as (keyof SoakCounts)[]) counts[k] += c.counts[k];
    const latencies = clients.flatMap((c) => c.latenciesUs);
    const callsLost = counts.callsAnswered - counts.callsSucceeded + (counts.callsRequested - counts.callsAnswered);
    const runErrors = tally(clients.map((c) => c.runErrors));
    // A failed run sends runError and then runFinished: count the run once.
    const turnsFailed = counts.turnsStarted - counts.turnsCompleted;
    const lost = callsLost + turnsFailed;
    return {
      replicas: replicaCount,
      editors,
      seconds: elapsed,
      turns: counts.turnsCompleted,
      calls: counts.callsSucceeded,
      turnsPerSecond: counts.turnsCompleted / elapsed,
      callsPerSecond: counts.callsSucceeded / elapsed,
      latency: { p50Ms: percentile(latencies, 50) / 1000, p99Ms: percentile(latencies, 99) / 1000 },
      lost,
      callsLost,
      turnsFailed,
      cpuSeconds,
      counts,
      rssPerSessionKB: end.reduce((sum, rss, i) => sum + (rss - idle[i]), 0) / editors / 1024,
      rssMB: { idle: idle.map((b) => b / MB), end: end.map((b) => b / MB) },
      redisOpsPerCall: counts.callsSucceeded > 0 ? (opsAfter - opsBefore) / counts.callsSucceeded : NaN,
      runErrors,
      replicaLog: replicas.flatMap((r) => r.stderr.slice(-5)),
      connectionsPerReplica: replicas.map((r) => balancer?.connectionsPerTarget.get(`127.0.0.1:${r.port}`) ?? 0),
    };
  } finally {
    for (const c of clients) c.close();
    await balancer?.close();
    await Promise.all(replicas.map((r) => r.stop()));
    counter?.disconnect();
    await redis?.stop();
  }
}

function tally(maps: Map<string, number>[]): Record<string, number> {
  const out: Record<string, number> = {};
  for (const m of maps) for (const [code, n] of m) out[code] = (out[code] ?? 0) + n;
  return out;
}

/** CPU seconds Redis has used (INFO cpu). */
async function redisCpu(redis: Redis): Promise<number> {
  const text = await redis.info('cpu');
  const user = /^used_cpu_user:([\d.]+)/m.exec(text);
  const sys = /^used_cpu_sys:([\d.]+)/m.exec(text);
  return Number(user?.[1] ?? 0) + Number(sys?.[1] ?? 0);
}

/** Commands Redis has run so far, INFO (our own counting) left out. */
async function redisOps(redis: Redis): Promise<number> {
  const text = await redis.info('commandstats');
  let total = 0;
  for (const m of text.matchAll(/^cmdstat_([a-z_|]+):calls=(\d+)/gm)) if (m[1] !== 'info') total += Number(m[2]);
  return total;
}

/** The fake model's process. */
class FakeModel {
  private constructor(
    private readonly child: ChildProcess,
    readonly port: number,
  ) {}

  static start(): Promise<FakeModel> {
    const bundled = __filename.endsWith('.js');
    const child = fork(bundled ? path.join(BENCH_DIR, '.out', 'fake-model-child.js') : path.join(BENCH_DIR, 'fake-model-child.ts'), [], {
      execArgv: bundled ? [] : ['--import', 'tsx'],
      stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
    });
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => {
        child.kill('SIGKILL');
        reject(new Error('the fake model did not start within 30 s'));
      }, 30_000);
      child.on('message', (m: { type: string; port?: number }) => {
        if (m.type !== 'listening' || m.port === undefined) return;
        clearTimeout(timer);
        resolve(new FakeModel(child, m.port));
      });
      child.once('exit', (code) => reject(new Error(`the fake model exited with ${code}`)));
    });
  }

  get pid(): number | undefined {
    return this.child.pid;
  }

  stop(): void {
    if (this.child.exitCode === null && this.child.signalCode === null) this.child.kill('SIGKILL');
  }
}

/** The section as printed by `npm run bench` and scaling-main.ts. */
export function scalingLines(r: ScalingResult): string[] {
  const lines = [
    `9. Scaling: ${r.editors} editors through a TCP round-robin balancer to N replicas (CLI processes, --redis, fake model on the OpenAI wire), ${r.seconds} s per round`,
    '   replicas    turns/s    calls/s   p50 turn   p99 turn  calls lost  turns failed  RSS/session  Redis ops/call  CPU s: editors+LB / replicas / Redis / model',
  ];
  for (const x of r.rounds) {
    lines.push(
      `   ${String(x.replicas).padStart(8)}${x.turnsPerSecond.toFixed(0).padStart(11)}${x.callsPerSecond.toFixed(0).padStart(11)}${`${x.latency.p50Ms.toFixed(0)} ms`.padStart(11)}${`${x.latency.p99Ms.toFixed(0)} ms`.padStart(11)}${String(x.callsLost).padStart(12)}${String(x.turnsFailed).padStart(14)}${`${x.rssPerSessionKB.toFixed(0)} KB`.padStart(13)}${x.redisOpsPerCall.toFixed(1).padStart(16)}  ${[x.cpuSeconds.editorsAndBalancer, x.cpuSeconds.replicas, x.cpuSeconds.redis, x.cpuSeconds.model].map((c) => c.toFixed(1)).join(' / ')}`,
    );
  }
  lines.push(`   throughput 2 replicas / 1: ${r.ratios.twoOverOne.toFixed(2)}×, 3 replicas / 1: ${r.ratios.threeOverOne.toFixed(2)}×`);
  for (const x of r.rounds) {
    const codes = Object.entries(x.runErrors);
    if (codes.length) lines.push(`   ${x.replicas} replica(s): runs failed: ${codes.map(([c, n]) => `${c} ${n}`).join(', ')}`);
  }
  const lost = r.rounds.reduce((s, x) => s + x.callsLost, 0);
  if (lost > 0) lines.push(`   !!! ${lost} client calls LOST`);
  return lines;
}
