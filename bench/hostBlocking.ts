/**
 * 11. Extension host blocking: the longest stretch the extension host's event loop was blocked
 *     while it handled a 10,000-request burst (the flood of section 4), a 16 MiB binary result, a
 *     3.9 MB OpenDiff (arguments decoded, checked, diffed, accepted and written) and the chat opening
 *     on a store of 100 saved threads. The extension's side runs in its own process
 *     (host-child.ts, flood-client.ts) against a backend in this one. Each scenario runs in
 *     interleaved rounds with an idle stretch of the same process as the baseline (what this
 *     shared machine's scheduler alone costs); the figure is the median over rounds of each
 *     round's longest block. Target: under 50 ms each. BENCH_CHILD_ARGS adds Node flags to the
 *     extension side's process (`--cpu-prof --cpu-prof-dir=DIR` profiles it).
 */
import { fork, type ChildProcess } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { createBackend } from '../src/backend';
import { benchFlood } from './flood';
import { BENCH_DIR } from './lib/paths';
import { BLOB_BYTES, DIFF_FILE, diffTexts } from './lib/hostScenarios';
import { median } from './lib/stats';

export const HOST_SCENARIOS = ['idle (baseline)', '10,000-request burst', '16 MiB binary result', '3.9 MB OpenDiff', '100 saved threads, chat opens'] as const;
export type HostScenario = (typeof HOST_SCENARIOS)[number];
export const HOST_BLOCK_TARGET_MS = 50;

export interface HostBlockingResult {
  rounds: number;
  /** Per scenario: the longest block of each round, in ms. */
  maxBlockMs: Record<HostScenario, number[]>;
  medianMs: Record<HostScenario, number>;
}

const TOKEN = `bench-host-${process.pid}-${Date.now()}`;

export async function benchHostBlocking(options: { quick: boolean }): Promise<HostBlockingResult> {
  const rounds = options.quick ? 3 : 5;
  const maxBlockMs = Object.fromEntries(HOST_SCENARIOS.map((s) => [s, [] as number[]])) as Record<HostScenario, number[]>;
  const { before, after } = diffTexts();
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'ct-bench-host-'));
  const beforeFile = path.join(dir, 'before.ts');
  fs.writeFileSync(beforeFile, before);
  const backend = await createBackend({ token: TOKEN, builtinTools: false, limits: { maxMessageBytes: 64 * 1024 * 1024 }, log: () => {} });
  let sessionId = '';
  backend.on('session', (s) => (sessionId = s.sessionId));
  const bundled = __filename.endsWith('.js');
  const child = fork(bundled ? path.join(BENCH_DIR, '.out', 'host-child.js') : path.join(BENCH_DIR, 'host-child.ts'), [backend.url, TOKEN, beforeFile], {
    execArgv: [...(bundled ? [] : ['--import', 'tsx']), ...(process.env.BENCH_CHILD_ARGS ? process.env.BENCH_CHILD_ARGS.split(' ') : [])],
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
  });
  try {
    await reply(child, 'ready', undefined, 60_000);
    const measure = async (work: () => Promise<unknown>): Promise<number> => {
      await reply(child, 'started', { type: 'start' });
      await work();
      return (await reply<{ maxMs: number }>(child, 'stopped', { type: 'stop' })).maxMs;
    };
    for (let round = 0; round < rounds; round++) {
      maxBlockMs['idle (baseline)'].push(await measure(() => new Promise((r) => setTimeout(r, 500))));
      maxBlockMs['16 MiB binary result'].push(await measure(async () => {
        const r = await backend.invokeClientTool(sessionId, 'Blob', { size: BLOB_BYTES });
        if (r.outcome !== 'succeeded') throw new Error(`Blob ended ${r.outcome}: ${r.errorCode} ${r.errorMessage}`);
      }));
      maxBlockMs['3.9 MB OpenDiff'].push(await measure(async () => {
        // Alternate proposals, so each round changes the file.
        const r = await backend.invokeClientTool(sessionId, 'OpenDiff', { path: DIFF_FILE, newContent: round % 2 ? before : after }, { timeoutMs: 120_000 });
        if (r.outcome !== 'succeeded') throw new Error(`OpenDiff ended ${r.outcome}: ${r.errorCode} ${r.errorMessage}`);
      }));
      maxBlockMs['100 saved threads, chat opens'].push(await measure(() => reply(child, 'threadsShown', { type: 'threads' })));
    }
    for (let round = 0; round < (options.quick ? 1 : 3); round++) maxBlockMs['10,000-request burst'].push((await benchFlood()).hostMaxBlockMs);
  } finally {
    if (child.connected) child.send({ type: 'exit' });
    await new Promise<void>((resolve) => {
      if (child.exitCode !== null) return resolve();
      const kill = setTimeout(() => child.kill('SIGKILL'), 5000);
      child.once('exit', () => {
        clearTimeout(kill);
        resolve();
      });
    });
    await backend.close();
    fs.rmSync(dir, { recursive: true, force: true });
  }
  const medianMs = Object.fromEntries(HOST_SCENARIOS.map((s) => [s, median(maxBlockMs[s])])) as Record<HostScenario, number>;
  return { rounds, maxBlockMs, medianMs };
}

function reply<T>(child: ChildProcess, type: string, request: { type: string } | undefined, timeoutMs = 120_000): Promise<T> {
  return new Promise((resolve, reject) => {
    const done = (error: Error | undefined, value?: T) => {
      clearTimeout(timer);
      child.off('message', onMessage);
      child.off('exit', onExit);
      if (error) reject(error);
      else resolve(value as T);
    };
    const onMessage = (m: { type: string }) => m.type === type && done(undefined, m as T);
    const onExit = (code: number | null) => done(new Error(`the host process exited (${code}) before "${type}"`));
    const timer = setTimeout(() => done(new Error(`no "${type}" from the host process within ${timeoutMs} ms`)), timeoutMs);
    child.on('message', onMessage);
    child.once('exit', onExit);
    if (request) child.send(request);
  });
}
