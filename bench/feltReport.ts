/**
 * The sections that measure what users feel (issue 33), run after the transport sections: their
 * runs, their lines in the table and their targets. Each is its own `--section` name.
 */
import { benchBackendMemory, type BackendMemoryResult, type MemoryPhase, type MemoryRun } from './backendMemory';
import { benchLongThreads, OPEN_TARGET_MS, STREAM_TASK_TARGET_MS, type LongThreadsResult } from './longThreads';
import { benchHostBlocking, HOST_BLOCK_TARGET_MS, HOST_SCENARIOS, type HostBlockingResult } from './hostBlocking';
import { benchStartToReady, READY_TARGET_MS, type StartToReadyResult } from './startToReady';
import { benchTokenTask, type TaskRun, type TokenTaskResult } from './tokenTask';

export const FELT_SECTIONS = ['task', 'host', 'memory', 'ready', 'threads'] as const;
export type FeltSection = (typeof FELT_SECTIONS)[number];

export interface FeltResults {
  tokenTask?: TokenTaskResult;
  hostBlocking?: HostBlockingResult;
  backendMemory?: BackendMemoryResult;
  startToReady?: StartToReadyResult | { skipped: string };
  longThreads?: LongThreadsResult | { skipped: string };
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
  if (ctx.want('memory')) results.backendMemory = await ctx.section('12. backend memory', () => benchBackendMemory({ quick: ctx.quick }));
  if (ctx.want('ready')) {
    if (ctx.skipVSCode) results.startToReady = { skipped: 'run without --skip-vscode' };
    else {
      try {
        results.startToReady = await ctx.section('13. start to ready (real VS Code)', () => benchStartToReady({ quick: ctx.quick }));
      } catch (e) {
        results.startToReady = { skipped: `failed: ${e instanceof Error ? e.message.split('\n')[0] : String(e)}` };
        process.exitCode = 1;
      }
    }
  }
  if (ctx.want('threads')) {
    if (ctx.skipVSCode) results.longThreads = { skipped: 'run without --skip-vscode (it needs Chromium)' };
    else {
      try {
        results.longThreads = await ctx.section('14. long threads (Chromium)', () => benchLongThreads({ quick: ctx.quick }));
      } catch (e) {
        results.longThreads = { skipped: `failed: ${e instanceof Error ? e.message.split('\n')[0] : String(e)}` };
        process.exitCode = 1;
      }
    }
  }
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
  const memory = r.backendMemory;
  if (memory) {
    const mb = (n: number) => `${n.toFixed(1)} MB`;
    out.push(`12. Backend memory after a full GC (its own process; ${memory.demo.sessions} sessions with the built-in groups, then a thread each, then all ended), RSS / heap`);
    const row = (label: string, run: MemoryRun) => {
      out.push(`    ${pad(label, 30)} none ${mb(run.base.rssMB)} / ${mb(run.base.heapMB)}; idle ${mb(run.idle.rssMB)} / ${mb(run.idle.heapMB)}; threads ${mb(run.active.rssMB)} / ${mb(run.active.heapMB)}; ended ${mb(run.ended.rssMB)} / ${mb(run.ended.heapMB)}`);
      out.push(`    ${pad('', 30)} per idle session ${run.perIdleSessionKB.rss.toFixed(0)} KB RSS / ${run.perIdleSessionKB.heap.toFixed(0)} KB heap; per thread ${run.perActiveThreadKB.rss.toFixed(0)} / ${run.perActiveThreadKB.heap.toFixed(0)} KB; heap held after the end ${heldKB(run.base, run.ended)}`);
      out.push(`    ${pad('', 30)} the first ${run.sessions} sessions (the warm-up) left ${heldKB(run.first, run.base)}`);
    };
    row('offline demo (no counting)', memory.demo);
    row('with a context window', memory.counting);
    out.push(`    tokenizer tables, loaded at the first count: ${mb(tablesMB(memory).rss)} RSS / ${mb(tablesMB(memory).heap)} heap; CLI bundle ${(memory.cliBundleBytes / 1024 / 1024).toFixed(1)} MiB as built`);
    out.push('');
  }
  const ready = r.startToReady;
  if (ready && 'warm' in ready) {
    const w = ready.warm;
    const s = (ms: number) => `${(ms / 1000).toFixed(2)} s`;
    const v = ready.window;
    out.push(`13. Start to ready in a real VS Code (code-server 4.100.3, headless Chromium; bundled backend, offline demo)`);
    out.push(`    Window open: VS Code running, the chat view open, the window reloaded (median of ${ready.windowRounds.length - 1} reloads; the first, not counted, ${s(ready.windowRounds[0].connectedMs)})`);
    out.push(`    navigation → extension connected (the chat can answer)             ${s(v.connectedMs)}`);
    out.push(`      workbench on the page (baseline: VS Code's own part)             ${s(v.workbenchMs)}`);
    out.push(`      → the extension host asks to activate the extension              ${s(v.activationRequestedMs - v.workbenchMs)}   (at ${s(v.activationRequestedMs)}; ${v.activationEvent})`);
    out.push(`      → activate() begins (dist/extension.js loads; host busy)         ${s(v.loadMs)}`);
    out.push(`      activate()                                                       ${s(v.activationMs)}`);
    out.push(`      bundled backend: spawn → listening                               ${s(v.backendStartMs)}`);
    out.push(`      handshake: listening → connected                                 ${s(v.handshakeMs)}`);
    out.push(`    ours (activation requested to connected): ${s(v.connectedMs - v.activationRequestedMs)}`);
    out.push(`    Server start (information): starting code-server, the chat view closed (median of ${ready.rounds.length - 1} warm starts, the first ${s(ready.rounds[0].readyMs)})`);
    out.push(`    VS Code started → extension connected                              ${s(w.readyMs)}`);
    out.push(`      VS Code until it activates the extension (onStartupFinished)     ${s(w.untilActivationMs)}   (baseline: its workbench on the page at ${s(w.workbenchMs)})`);
    out.push(`      activate()                                                       ${s(w.activationMs)}`);
    out.push(`      bundled backend: spawn → listening                               ${s(w.backendStartMs)}`);
    out.push(`      handshake: listening → connected                                 ${s(w.handshakeMs)}`);
    out.push(`    ours (activation to connected): ${s(w.readyMs - w.untilActivationMs)}`);
    out.push('');
  } else if (ready) {
    out.push(`13. Start to ready: skipped (${ready.skipped})`, '');
  }
  const threads = r.longThreads;
  if (threads && 'medianVirtualised' in threads) {
    const b = threads.medianBaseline;
    const v = threads.medianVirtualised;
    out.push(`14. Long threads in Chromium: ${threads.turns} turns, ${threads.toolCards} tool cards (${threads.largeResults} with a 1 MiB result); the view keeps ${threads.items} items (${threads.itemCards} cards), a ${(threads.transcriptChars / 1024).toFixed(0)} KiB transcript`);
    out.push(`    then an answer streams at 100 tokens/s for ${threads.streamSeconds} s; medians of ${threads.virtualised.length} rounds each, alternating`);
    out.push(`    ${pad('', 30)}${lpad('open', 9)}${lpad('tasks ≥50ms', 13)}${lpad('longest', 9)}${lpad('frame gap', 11)}${lpad('heap', 9)}${lpad('elements', 10)}${lpad('DOM chars', 11)}`);
    for (const [label, m] of [['without virtualise.ts', b], ['with virtualise.ts', v], ['baseline: into an empty chat', threads.medianEmptyChat]] as const) {
      out.push(`    ${pad(label, 30)}${lpad(`${m.openMs.toFixed(0)} ms`, 9)}${lpad(String(m.longTasks), 13)}${lpad(`${m.longestTaskMs.toFixed(0)} ms`, 9)}${lpad(`${m.longestFrameGapMs.toFixed(0)} ms`, 11)}${lpad(`${m.heapStreamedMB.toFixed(1)} MB`, 9)}${lpad(String(m.domElements), 10)}${lpad(String(m.domChars), 11)}`);
    }
    out.push('');
  } else if (threads) {
    out.push(`14. Long threads: skipped (${threads.skipped})`, '');
  }
  return out;
}

/** Heap held between two phases, with how much of it is V8's compiled code. */
function heldKB(from: MemoryPhase, to: MemoryPhase): string {
  return `${((to.heapMB - from.heapMB) * 1024).toFixed(0)} KB (V8's compiled code ${((to.codeMB - from.codeMB) * 1024).toFixed(0)} KB of it)`;
}

function taskMs(r: { longestTaskMs: number }): string {
  return r.longestTaskMs === 0 ? 'none ≥ 50 ms' : `${r.longestTaskMs.toFixed(0)} ms`;
}

/** What counting added for good: both baselines come after one session's turn, which made the counting backend load the tables. */
function tablesMB(m: BackendMemoryResult): { rss: number; heap: number } {
  return { rss: m.counting.base.rssMB - m.demo.base.rssMB, heap: m.counting.base.heapMB - m.demo.base.heapMB };
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
  const ready = r.startToReady;
  if (ready && 'warm' in ready) {
    const v = ready.window;
    const ours = v.connectedMs - v.activationRequestedMs;
    targets.push({ name: 'start to ready, warm (window open → connected)', target: `< ${READY_TARGET_MS / 1000} s`, value: v.connectedMs, pass: v.connectedMs < READY_TARGET_MS, measured: `${(v.connectedMs / 1000).toFixed(2)} s (VS Code's workbench ${(v.workbenchMs / 1000).toFixed(2)} s; ours from the activation request ${(ours / 1000).toFixed(2)} s)` });
  }
  const memory = r.backendMemory;
  if (memory) {
    const held = memory.demo.ended.heapMB - memory.demo.base.heapMB;
    const grown = memory.demo.idle.heapMB - memory.demo.base.heapMB + memory.demo.active.heapMB - memory.demo.idle.heapMB;
    targets.push({ name: 'backend heap back after the sessions end', target: '≥ 80 % back', value: grown > 0 ? 1 - held / grown : 1, pass: grown <= 0 || held / grown <= 0.2, measured: `${held.toFixed(1)} MB held of ${grown.toFixed(1)} MB grown (${memory.demo.sessions} sessions)` });
    const idleBase = memory.demo.base.rssMB;
    targets.push({ name: 'backend without counting: tokenizer tables not loaded', target: 'not loaded', value: tablesMB(memory).heap, pass: tablesMB(memory).heap > 5, measured: `demo at rest ${idleBase.toFixed(0)} MB RSS; counting added ${tablesMB(memory).rss.toFixed(0)} MB RSS, ${tablesMB(memory).heap.toFixed(1)} MB heap` });
  }
  const threads = r.longThreads;
  if (threads && 'medianVirtualised' in threads) {
    const v = threads.medianVirtualised;
    const b = threads.medianBaseline;
    targets.push({ name: 'long thread: open to first paint (median)', target: `< ${OPEN_TARGET_MS} ms`, value: v.openMs, pass: v.openMs < OPEN_TARGET_MS, measured: `${v.openMs.toFixed(0)} ms (without virtualise.ts ${b.openMs.toFixed(0)} ms)` });
    targets.push({ name: 'long thread: longest task while streaming (median)', target: `< ${STREAM_TASK_TARGET_MS} ms`, value: v.longestTaskMs, pass: v.longestTaskMs < STREAM_TASK_TARGET_MS, measured: `${taskMs(v)}, frame gap ${v.longestFrameGapMs.toFixed(0)} ms (without: ${taskMs(b)}; into an empty chat: ${taskMs(threads.medianEmptyChat)})` });
  }
  return targets;
}
