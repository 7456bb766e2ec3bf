/**
 * The health prober, a process of its own so that neither the target's work nor the fuzzer's
 * reaches its clock: every 20 ms it sends `GET <url>` on a kept-alive connection (a new probe only
 * once the last one was answered) and reads the target's RSS and its main thread's CPU time from
 * /proc. Over IPC the fuzzer opens a window (`mark`) and reads it (`read`).
 *
 * Each probe's wait is measured twice: on the wall clock, and as the CPU time the target's main
 * thread (the event loop) spent while the probe waited. On a quiet machine the two agree; on a
 * machine shared with other work the wall clock also counts the time the target waited for a core,
 * which is not the target's doing, so the fuzzer judges by the CPU figure (runner.ts).
 *
 *   argv: <health url> <target pid>
 */
import { readFileSync } from 'node:fs';
import * as http from 'node:http';

const PERIOD_MS = 20;
const PAGE = 4096;
const TICK_MS = 10;

export interface ProbeWindow {
  type: 'window';
  /** The longest a probe waited for its answer in the window (one still waiting counts), wall clock, ms. */
  maxWaitMs: number;
  /** The most CPU time the target's main thread spent while one probe waited, ms (10 ms ticks). */
  maxBusyMs: number;
  probes: number;
  /** Probes that failed (connection refused or reset: the target died). */
  failures: number;
  peakRss: number;
  rss: number;
}

function main(): void {
  const [url, pidText] = process.argv.slice(2);
  const pid = Number(pidText);
  const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
  let outstanding: { sent: number; cpu: number } | undefined;
  let window = fresh();
  let windowStart = { at: performance.now(), cpu: cpuMs() };

  function fresh() {
    return { maxWaitMs: 0, maxBusyMs: 0, probes: 0, failures: 0, peakRss: 0 };
  }

  function rss(): number {
    try {
      return Number(readFileSync(`/proc/${pid}/statm`, 'utf8').split(' ')[1]) * PAGE;
    } catch {
      return 0;
    }
  }

  /** utime + stime of the target's main thread. */
  function cpuMs(): number {
    try {
      const stat = readFileSync(`/proc/${pid}/task/${pid}/stat`, 'utf8');
      const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      return (Number(fields[11]) + Number(fields[12])) * TICK_MS;
    } catch {
      return 0;
    }
  }

  /** The wait and busy time of the outstanding probe so far, counted from the window's start at the earliest. */
  function measure(p: { sent: number; cpu: number }): { wait: number; busy: number } {
    const fromWindow = p.sent < windowStart.at;
    return { wait: performance.now() - (fromWindow ? windowStart.at : p.sent), busy: cpuMs() - (fromWindow ? windowStart.cpu : p.cpu) };
  }

  function probe(): void {
    const p = { sent: performance.now(), cpu: cpuMs() };
    outstanding = p;
    const done = (ok: boolean) => {
      if (outstanding !== p) return;
      const { wait, busy } = measure(p);
      outstanding = undefined;
      window.maxWaitMs = Math.max(window.maxWaitMs, wait);
      window.maxBusyMs = Math.max(window.maxBusyMs, busy);
      window.probes++;
      if (!ok) window.failures++;
    };
    const req = http.get(url, { agent, timeout: 120_000 }, (res) => {
      res.resume();
      res.on('end', () => done(true));
    });
    req.on('error', () => done(false));
    req.on('timeout', () => req.destroy());
  }

  setInterval(() => {
    window.peakRss = Math.max(window.peakRss, rss());
    if (outstanding === undefined) probe();
  }, PERIOD_MS);

  process.on('message', (m: { type: string }) => {
    if (m.type === 'mark') {
      window = fresh();
      windowStart = { at: performance.now(), cpu: cpuMs() };
      window.peakRss = rss();
      process.send?.({ type: 'marked' });
    } else if (m.type === 'read') {
      const now = outstanding ? measure(outstanding) : { wait: 0, busy: 0 };
      const current = rss();
      const reply: ProbeWindow = {
        type: 'window',
        ...window,
        maxWaitMs: Math.max(window.maxWaitMs, now.wait),
        maxBusyMs: Math.max(window.maxBusyMs, now.busy),
        peakRss: Math.max(window.peakRss, current),
        rss: current,
      };
      process.send?.(reply);
    }
  });
  process.on('disconnect', () => process.exit(0));
}

main();
