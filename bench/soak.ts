/**
 * 6. Soak: 200 authenticated clients at once against the reference backend in its own process
 *    (backend-child.ts, offline demo model: its default configuration), each running tool-calling
 *    turns back to back in one chat thread for 60 s (CLIENT_TOOLS_SOAK_SECONDS for a shorter run).
 *    Every client answers each tool request at once, as the extension would. Measured: turns and
 *    tool calls answered, anything lost (a call answered but not reported as succeeded, a turn
 *    that failed or never finished), turn latency p50/p99, the backend's RSS per session, and its
 *    event-loop delay over the whole run. The clients run in this process.
 */
import { randomUUID } from 'node:crypto';
import { BackendProcess } from './lib/backendProcess';
import { SoakClient, type SoakCounts } from './lib/soakClient';
import { percentile } from './lib/stats';

export interface SoakResult {
  clients: number;
  seconds: number;
  counts: SoakCounts;
  /** Turns that had not finished 10 s after the clients stopped starting new ones. */
  turnsUnfinished: number;
  /** Calls answered but not reported as succeeded, calls requested but not answered, failed and unfinished turns. */
  lost: number;
  turnsPerSecond: number;
  latency: { p50Us: number; p99Us: number; maxUs: number };
  connectSeconds: number;
  rssMB: { idle: number; connected: number; end: number };
  /** (RSS at the end − RSS before any client) / clients. */
  rssPerSessionKB: number;
  eventLoopDelay: { maxMs: number; p99Ms: number; meanMs: number };
}

const MB = 1024 * 1024;

export function soakSeconds(): number {
  const env = Number(process.env.CLIENT_TOOLS_SOAK_SECONDS);
  return Number.isFinite(env) && env > 0 ? env : 60;
}

export async function benchSoak(options: { clients?: number; seconds?: number } = {}): Promise<SoakResult> {
  const total = options.clients ?? 200;
  const seconds = options.seconds ?? soakSeconds();
  const token = `soak-${randomUUID()}`;
  // Room for every client; everything else is the default configuration.
  const backend = await BackendProcess.start({ token, maxConnections: total + 16 });
  const clients: SoakClient[] = [];
  try {
    const idle = await backend.stats();
    const t0 = performance.now();
    // In batches, as a machine's editors would reconnect, not 200 handshakes in one burst.
    for (let i = 0; i < total; i += 20) {
      clients.push(...(await Promise.all(Array.from({ length: Math.min(20, total - i) }, (_, k) => SoakClient.connect(backend.url, token, `c${i + k}`)))));
    }
    const connectSeconds = (performance.now() - t0) / 1000;
    const connected = await backend.stats();
    await backend.reset();
    const started = performance.now();
    for (const c of clients) c.start();
    await new Promise((r) => setTimeout(r, seconds * 1000));
    const drained = await Promise.all(clients.map((c) => c.stop(10_000)));
    const elapsed = (performance.now() - started) / 1000;
    const end = await backend.stats(30_000);
    if (!idle || !connected || !end) throw new Error('the backend stopped answering during the soak');

    const counts: SoakCounts = { turnsStarted: 0, turnsCompleted: 0, turnsFailed: 0, callsRequested: 0, callsAnswered: 0, callsSucceeded: 0, callsFailed: 0, errors: 0 };
    for (const c of clients) for (const k of Object.keys(counts) as (keyof SoakCounts)[]) counts[k] += c.counts[k];
    const latencies = clients.flatMap((c) => c.latenciesUs);
    const turnsUnfinished = counts.turnsStarted - counts.turnsCompleted - counts.turnsFailed;
    const lost = counts.callsAnswered - counts.callsSucceeded + (counts.callsRequested - counts.callsAnswered) + counts.turnsFailed + turnsUnfinished;
    if (drained.some((d) => !d)) process.stderr.write(`\n[bench] soak: ${drained.filter((d) => !d).length} clients still had a turn running 10 s after the end\n`);
    return {
      clients: total,
      seconds: elapsed,
      counts,
      turnsUnfinished,
      lost,
      turnsPerSecond: counts.turnsCompleted / elapsed,
      latency: { p50Us: percentile(latencies, 50), p99Us: percentile(latencies, 99), maxUs: latencies.reduce((a, b) => Math.max(a, b), 0) },
      connectSeconds,
      rssMB: { idle: idle.rss / MB, connected: connected.rss / MB, end: end.rss / MB },
      rssPerSessionKB: (end.rss - idle.rss) / total / 1024,
      eventLoopDelay: { maxMs: end.eventLoopDelay.maxMs, p99Ms: end.eventLoopDelay.p99Ms, meanMs: end.eventLoopDelay.meanMs },
    };
  } finally {
    for (const c of clients) c.close();
    await backend.stop();
  }
}
