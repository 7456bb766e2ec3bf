/**
 * The sections that measure what users feel (issue 33), run after the transport sections: their
 * runs, their lines in the table and their targets. Each is its own `--section` name.
 */
import { benchHostBlocking, HOST_BLOCK_TARGET_MS, HOST_SCENARIOS, type HostBlockingResult } from './hostBlocking';
import { benchTokenTask, type TaskRun, type TokenTaskResult } from './tokenTask';

export const FELT_SECTIONS = ['task', 'host'] as const;
export type FeltSection = (typeof FELT_SECTIONS)[number];

export interface FeltResults {
  tokenTask?: TokenTaskResult;
  hostBlocking?: HostBlockingResult;
}

export interface FeltTarget {
  name: string;
  target: string;
  value: number;
  pass: boolean;
  measured: string;
}

interface FeltContext {
  quick: boolean;
  skipVSCode: boolean;
  want(name: FeltSection): boolean;
  section<T>(title: string, run: () => Promise<T>): Promise<T>;
}

export async function runFeltSections(ctx: FeltContext): Promise<FeltResults> {
  const results: FeltResults = {};
  if (ctx.want('task')) results.tokenTask = await ctx.section('10. token economy over a task', () => benchTokenTask());
  if (ctx.want('host')) results.hostBlocking = await ctx.section('11. extension host blocking', () => benchHostBlocking({ quick: ctx.quick }));
  return results;
}

function pad(s: string, n: number): string {
  return s.length >= n ? s : s + ' '.repeat(n - s.length);
}

function lpad(s: string, n: number): string {
  return s.length >= n ? s : ' '.repeat(n - s.length) + s;
}

function byMode(runs: TaskRun[], mode: TaskRun['mode']): TaskRun {
  const run = runs.find((r) => r.mode === mode);
  if (!run) throw new Error(`no ${mode} run`);
  return run;
}

export function feltLines(r: FeltResults): string[] {
  const out: string[] = [];
  const task = r.tokenTask;
  if (task) {
    out.push(`10. Total-token economy over a scripted bug fix (9 tool calls and an answer; input tokens as a prefix cache prices them, a cached token at ${task.cachedPrice}×)`);
    out.push(`    ${pad('', 48)}${lpad('requests', 9)}${lpad('input', 9)}${lpad('cached', 9)}${lpad('uncached', 10)}${lpad('breaks', 8)}${lpad('cost', 8)}${lpad('vs flat', 9)}`);
    for (const [label, runs] of [['built-in groups', task.builtin], ['+ an unused 100-tool group', task.withHundred]] as const) {
      const flat = byMode(runs, 'flat');
      for (const run of runs) {
        out.push(`    ${pad(`${label}, ${run.mode}`, 48)}${lpad(String(run.requests), 9)}${lpad(String(run.input), 9)}${lpad(String(run.cached), 9)}${lpad(String(run.uncached), 10)}${lpad(String(run.cacheBreaks), 8)}${lpad(String(run.cost), 8)}${lpad(`${(run.cost / flat.cost).toFixed(2)}×`, 9)}`);
      }
    }
    out.push('    "breaks": requests that reused less of the cache than the one before (an expansion changed the tool list, which comes first)');
    out.push('');
  }
  const host = r.hostBlocking;
  if (host) {
    const idle = host.medianMs['idle (baseline)'];
    out.push(`11. Extension host: longest event-loop block (the extension's side in its own process; median over rounds of each round's longest, ${host.rounds} rounds)`);
    for (const s of HOST_SCENARIOS) {
      const all = host.maxBlockMs[s];
      out.push(`    ${pad(s, 34)}${lpad(`${host.medianMs[s].toFixed(1)} ms`, 11)}   worst ${lpad(`${Math.max(...all).toFixed(1)} ms`, 10)}${s === 'idle (baseline)' ? '   (this machine\'s own noise)' : `   ${(host.medianMs[s] / idle).toFixed(1)}× idle`}`);
    }
    out.push('');
  }
  return out;
}

export function feltTargets(r: FeltResults): FeltTarget[] {
  const targets: FeltTarget[] = [];
  const task = r.tokenTask;
  if (task) {
    for (const [label, runs] of [['built-ins', task.builtin], ['+100 tools', task.withHundred]] as const) {
      const flat = byMode(runs, 'flat');
      const planned = byMode(runs, 'collapsed, planned');
      const ratio = planned.cost / flat.cost;
      targets.push({ name: `task cost, collapsed (planned) vs flat, ${label}`, target: '< 1×', value: ratio, pass: ratio < 1, measured: `${ratio.toFixed(2)}× (${planned.cost} vs ${flat.cost})` });
    }
  }
  if (r.hostBlocking) {
    for (const s of HOST_SCENARIOS.filter((x) => x !== 'idle (baseline)')) {
      const ms = r.hostBlocking.medianMs[s];
      targets.push({ name: `host event loop blocked: ${s}`, target: `< ${HOST_BLOCK_TARGET_MS} ms`, value: ms, pass: ms < HOST_BLOCK_TARGET_MS, measured: `${ms.toFixed(1)} ms (idle ${r.hostBlocking.medianMs['idle (baseline)'].toFixed(1)} ms)` });
    }
  }
  return targets;
}
