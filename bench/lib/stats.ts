/** Timing and statistics helpers for the benchmarks. Times are in microseconds unless named otherwise. */

export function median(xs: readonly number[]): number {
  return percentile(xs, 50);
}

/** Nearest-rank percentile (p in 0..100). */
export function percentile(xs: readonly number[], p: number): number {
  if (xs.length === 0) return NaN;
  const sorted = [...xs].sort((a, b) => a - b);
  const rank = Math.ceil((p / 100) * sorted.length);
  return sorted[Math.min(sorted.length - 1, Math.max(0, rank - 1))];
}

export function nowUs(): number {
  return performance.now() * 1000;
}

/** Runs `call` one at a time, `n` times; returns each call's time in µs. */
export async function latencySamples(call: () => Promise<unknown>, n: number): Promise<number[]> {
  const out = new Array<number>(n);
  for (let i = 0; i < n; i++) {
    const t0 = performance.now();
    await call();
    out[i] = (performance.now() - t0) * 1000;
  }
  return out;
}

/** Runs `total` calls keeping `inFlight` of them outstanding; returns calls per second. */
export async function throughput(call: () => Promise<unknown>, inFlight: number, total: number): Promise<number> {
  let started = 0;
  let done = 0;
  const t0 = performance.now();
  await new Promise<void>((resolve, reject) => {
    const next = (): void => {
      if (started >= total) return;
      started++;
      call().then(() => {
        done++;
        if (done === total) resolve();
        else next();
      }, reject);
    };
    for (let i = 0; i < Math.min(inFlight, total); i++) next();
  });
  return total / ((performance.now() - t0) / 1000);
}

/** Lets timers, sockets and the garbage collector settle between measurements. */
export function settle(ms = 20): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

/** A subject of a comparison: one kind of call, set up once, measured in interleaved rounds. */
export interface Subject {
  name: string;
  call(): Promise<unknown>;
  close(): Promise<void>;
}

/**
 * Measures every subject in `rounds` interleaved rounds (A B C, A B C, …) so that a noisy
 * neighbour hurts all of them alike; returns the pooled latency samples per subject.
 */
export async function interleavedLatency(subjects: readonly Subject[], rounds: number, perRound: number, warmup: number): Promise<Map<string, number[]>> {
  for (const s of subjects) await latencySamples(() => s.call(), warmup);
  const out = new Map<string, number[]>(subjects.map((s) => [s.name, []]));
  for (let r = 0; r < rounds; r++) {
    for (const s of subjects) {
      await settle(5);
      out.get(s.name)!.push(...(await latencySamples(() => s.call(), perRound)));
    }
  }
  return out;
}

/** Calls/s per subject: the median over interleaved rounds. */
export async function interleavedThroughput(subjects: readonly Subject[], inFlight: number, rounds: number, totalFor: (s: Subject) => number): Promise<Map<string, number>> {
  const runs = new Map<string, number[]>(subjects.map((s) => [s.name, []]));
  for (let r = 0; r < rounds; r++) {
    for (const s of subjects) {
      await settle(10);
      runs.get(s.name)!.push(await throughput(() => s.call(), inFlight, totalFor(s)));
    }
  }
  return new Map([...runs].map(([k, v]) => [k, median(v)]));
}

export function fmtUs(us: number): string {
  if (!Number.isFinite(us)) return 'n/a';
  if (us >= 10_000) return `${(us / 1000).toFixed(1)} ms`;
  if (us >= 1000) return `${(us / 1000).toFixed(2)} ms`;
  return `${us.toFixed(0)} µs`;
}

export function fmtRate(perSecond: number): string {
  if (perSecond >= 10_000) return `${(perSecond / 1000).toFixed(1)} k/s`;
  if (perSecond >= 1000) return `${(perSecond / 1000).toFixed(2)} k/s`;
  return `${perSecond.toFixed(0)} /s`;
}

export function round(x: number, digits = 1): number {
  const f = 10 ** digits;
  return Math.round(x * f) / f;
}
