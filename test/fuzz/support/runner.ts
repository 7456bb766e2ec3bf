/**
 * Runs an entry point's cases against its target and judges each one:
 * - stall: a health probe (the prober's own process, every 20 ms) waited more than STALL_MS while
 *   the case ran, counted in the CPU time the target's event loop spent during the wait (prober.ts:
 *   the wall clock agrees on a quiet machine; on a shared one it also counts time the target spent
 *   waiting for a core). A stall is run again once before it counts. A wait over FROZEN_WALL_MS on
 *   the wall clock counts whatever the CPU says (a loop blocked without computing). A case of
 *   GC_BEFORE_BYTES or more starts after a full GC, so its stall is its own work.
 * - memory: the target's heap after a full GC is more than HEAP_SLACK above where it was before the
 *   case (measured again after a second's wait, for timers that release it), or its RSS peaked more
 *   than BLOAT_FACTOR times the case's input above where it stood (plus BLOAT_SLACK). The heap is
 *   measured after every case of HEAP_EVERY_BYTES or more, and after every HEAP_EVERY_CASES smaller
 *   ones (a full GC per small case would double the run's time); growth over such a batch is
 *   reported against its last case.
 * - death: the target exited, or stopped answering for CASE_TIMEOUT_MS (then it is killed and
 *   started again for the next case).
 * A failed value skips the larger values of its ladder for that position (hostile.ts).
 */
import { sampled, type PlannedCase } from './plan';
import type { Target } from './target';

export const STALL_MS = 250;
export const HEAP_SLACK = 8 * 1024 * 1024;
const BLOAT_FACTOR = 8;
const BLOAT_SLACK = 256 * 1024 * 1024;
const CASE_TIMEOUT_MS = 20_000;
const HEAP_EVERY_BYTES = 64 * 1024;
const HEAP_EVERY_CASES = 25;
/** Cases of this many bytes or more run after a full GC of the target. */
const GC_BEFORE_BYTES = 1024 * 1024;
/** A target whose loop has been busy this long within one probe's wait is frozen: killed, and started again. */
const FROZEN_BUSY_MS = 4_000;
const FROZEN_WALL_MS = 10_000;

export interface CaseOutcome {
  message: string;
  position: string;
  value: string;
  bytes: number;
  /** What the target did (answered, refused with a code, closed). */
  outcome: string;
  /** The longest probe wait, in the target's CPU time (what is judged). */
  stallMs: number;
  /** The same wait on the wall clock. */
  wallMs: number;
  /** How long the case took, judging included. */
  ms: number;
  heapBefore: number;
  heapAfter: number;
  rssPeak: number;
  failure?: string;
}

export interface EntryReport {
  entry: string;
  cases: CaseOutcome[];
  /** Cases planned before sampling (plan.ts). */
  planned: number;
  skipped: number;
  restarts: number;
  heapStart: number;
  heapEnd: number;
  rssStart: number;
  rssPeak: number;
  rssEnd: number;
  seconds: number;
}

/** Sends one case and resolves with what the target did, once it has dealt with it. */
export type CaseRunner = (c: PlannedCase, target: Target) => Promise<string>;

export interface EntryDriver {
  name: string;
  /** Starts (or, after a kill, restarts) the target and whatever it talks to. */
  start(): Promise<Target>;
  cases(target: Target): Promise<PlannedCase[]> | PlannedCase[];
  run: CaseRunner;
  stop(): Promise<void>;
}

export async function runEntry(driver: EntryDriver, log: (line: string) => void = () => {}): Promise<EntryReport> {
  const t0 = performance.now();
  let target = await driver.start();
  const all = await driver.cases(target);
  const cases = sampled(all);
  let memory = await target.memory();
  const report: EntryReport = { entry: driver.name, planned: all.length, cases: [], skipped: 0, restarts: 0, heapStart: memory.heap, heapEnd: 0, rssStart: memory.rss, rssPeak: memory.rss, rssEnd: 0, seconds: 0 };
  const failedLadders = new Set<string>();
  let unmeasured = 0;
  try {
    for (const [i, c] of cases.entries()) {
      const ladder = c.value.ladder && `${c.message}|${c.position.label}|${c.value.ladder}`;
      if (ladder && failedLadders.has(ladder)) {
        report.skipped++;
        continue;
      }
      const measure = c.value.bytes >= HEAP_EVERY_BYTES || ++unmeasured >= HEAP_EVERY_CASES || i === cases.length - 1;
      if (measure) unmeasured = 0;
      // A large case starts on a collected heap: its stall is its own work, not the collection of
      // the garbage earlier cases left (a 32 MiB message took 120-150 ms alone, 230-310 ms after 199 others).
      if (c.value.bytes >= GC_BEFORE_BYTES && target.alive) await target.memory();
      let result = await runOnce(c, target, memory.heap, driver.run, measure);
      if (isStall(result.outcome) && !result.frozen) result = await runOnce(c, target, memory.heap, driver.run, measure);
      const o = result.outcome;
      if (result.frozen || !target.alive) {
        o.failure = o.failure ?? (target.alive ? 'stopped answering' : 'the target died');
        await target.kill();
        target = await driver.start();
        report.restarts++;
        memory = await target.memory();
      } else {
        memory = { heap: o.heapAfter, rss: result.rss };
      }
      report.rssPeak = Math.max(report.rssPeak, o.rssPeak);
      report.cases.push(o);
      if (o.failure) {
        if (ladder) failedLadders.add(ladder);
        log(`  FAIL ${driver.name} · ${o.message} · ${o.position} · ${o.value}: ${o.failure} (${o.outcome})`);
      }
    }
    memory = await target.memory();
    report.heapEnd = memory.heap;
    report.rssEnd = memory.rss;
  } finally {
    await target.stop();
    await driver.stop();
    report.seconds = (performance.now() - t0) / 1000;
  }
  return report;
}

const TRACE = process.env.CLIENT_TOOLS_FUZZ_TRACE === '1';

async function runOnce(c: PlannedCase, target: Target, heapBefore: number, run: CaseRunner, measureHeap: boolean): Promise<{ outcome: CaseOutcome; frozen: boolean; rss: number }> {
  const started = performance.now();
  await target.mark();
  const before = await target.window();
  let outcome: string;
  let frozen = false;
  const watch = watchFreeze(target);
  const caseStart = performance.now();
  let caseMs = 0;
  try {
    outcome = await Promise.race([withTimeout(run(c, target), CASE_TIMEOUT_MS, `no outcome within ${CASE_TIMEOUT_MS / 1000} s`), watch.frozen]);
  } catch (e) {
    outcome = `error: ${e instanceof Error ? e.message : String(e)}`;
  } finally {
    watch.stop();
    caseMs = performance.now() - caseStart;
  }
  if (outcome === FROZEN) frozen = true;
  const window = await target.window();
  const result: CaseOutcome = {
    message: c.message,
    position: c.position.label,
    value: c.value.label,
    bytes: c.value.bytes,
    outcome: outcome.slice(0, 200),
    stallMs: window.maxBusyMs,
    wallMs: window.maxWaitMs,
    ms: 0,
    heapBefore,
    heapAfter: heapBefore,
    rssPeak: window.peakRss,
  };
  let rss = window.rss;
  const heapStarted = performance.now();
  if (!frozen && measureHeap) {
    try {
      let m = await target.memory(CASE_TIMEOUT_MS);
      if (m.heap - heapBefore > HEAP_SLACK) {
        await new Promise((r) => setTimeout(r, 1000));
        m = await target.memory(CASE_TIMEOUT_MS);
      }
      result.heapAfter = m.heap;
      rss = m.rss;
    } catch {
      frozen = true;
    }
  }
  const failures: string[] = [];
  if (outcome.startsWith('error: no outcome')) failures.push(outcome.slice('error: '.length));
  // A run or call the target never ended, or a message the protocol refuses: the peer would wait forever.
  // (`a check failed`: an entry's own rule broken, such as a write no decision allowed.)
  // A message left unanswered, or a file written that its reader cannot read, likewise.
  else if (/nothing within \d+ ms|the protocol refuses|a check failed|^unanswered:|cannot read/.test(outcome)) failures.push(`no outcome (${outcome.slice(0, 160)})`);
  if (!target.alive) failures.push('the target died');
  else if (frozen) failures.push(`frozen (a probe waited ${Math.round(window.maxWaitMs)} ms, the loop busy ${Math.round(window.maxBusyMs)} ms of it)`);
  else if (isStall(result)) failures.push(`stalled ${Math.round(window.maxBusyMs)} ms (${Math.round(window.maxWaitMs)} ms on the wall clock)`);
  if (result.heapAfter - heapBefore > HEAP_SLACK) failures.push(`heap after GC grew ${mib(result.heapAfter - heapBefore)}`);
  if (window.peakRss - before.rss > BLOAT_FACTOR * c.value.bytes + BLOAT_SLACK) failures.push(`RSS peaked ${mib(window.peakRss - before.rss)} above its start for ${mib(c.value.bytes)} of input`);
  if (failures.length) result.failure = failures.join('; ');
  result.ms = performance.now() - started;
  if (TRACE) console.log(`  ${Math.round(result.ms)} ms (case ${Math.round(caseMs)} ms, heap ${measureHeap ? Math.round(performance.now() - heapStarted) : '-'} ms) · ${c.message} · ${c.position.label} · ${c.value.label} · ${outcome.slice(0, 100)}`);
  return { outcome: result, frozen: frozen || !target.alive, rss };
}

const FROZEN = 'frozen';

function isStall(o: CaseOutcome): boolean {
  return o.stallMs > STALL_MS || o.wallMs > FROZEN_WALL_MS;
}

/** Resolves `frozen` when a probe's wait passes the freeze bounds while the case runs. */
function watchFreeze(target: Target): { frozen: Promise<string>; stop(): void } {
  let timer: NodeJS.Timeout | undefined;
  let stopped = false;
  const frozen = new Promise<string>((resolve) => {
    const check = async () => {
      if (stopped) return;
      const w = await target.window().catch(() => undefined);
      if (w && (w.maxBusyMs > FROZEN_BUSY_MS || w.maxWaitMs > FROZEN_WALL_MS)) return resolve(FROZEN);
      if (!stopped) timer = setTimeout(() => void check(), 500);
    };
    timer = setTimeout(() => void check(), 500);
  });
  return { frozen, stop: () => ((stopped = true), clearTimeout(timer)) };
}

function withTimeout<T>(p: Promise<T>, ms: number, message: string): Promise<T> {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(message)), ms);
    p.then(
      (v) => (clearTimeout(timer), resolve(v)),
      (e: unknown) => (clearTimeout(timer), reject(e instanceof Error ? e : new Error(String(e)))),
    );
  });
}

export function mib(bytes: number): string {
  return `${(bytes / 1024 / 1024).toFixed(1)} MiB`;
}
