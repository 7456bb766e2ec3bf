/**
 * Focused workloads for V8's sampling profiler, and a reader for the result:
 *
 *   (or node bench/.out/profile.js …, bundled as npm run bench runs it, after node esbuild.mjs --bench)
 *   npx tsx bench/profile.ts roundtrip [inFlight]   → bench/results/roundtrip.cpuprofile
 *   npx tsx bench/profile.ts binary [bytes]         → bench/results/binary.cpuprofile
 *   npx tsx bench/profile.ts agent                  → bench/results/agent.cpuprofile
 *   npx tsx bench/profile.ts top FILE [count]
 *
 * Only the measured phase is profiled (after a warm-up), through the inspector, so start-up
 * (module loading, tsx compiling) does not crowd the picture; `node --cpu-prof` gives the whole
 * process instead. `top` prints the functions with the most self and inclusive time, and self time
 * summed by source file. The .cpuprofile files also open in Chrome DevTools.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { Session } from 'node:inspector';
import * as path from 'node:path';
import { benchAgentTurn } from './agentTurn';
import { blobTool, noopTool, startStack } from './lib/stack';
import { RESULTS_DIR } from './lib/paths';
import { throughput } from './lib/stats';

interface ProfileNode {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number };
  hitCount?: number;
  children?: number[];
}

function top(file: string, count: number): void {
  const profile = JSON.parse(readFileSync(file, 'utf8')) as { nodes: ProfileNode[]; samples?: number[] };
  const hitsById = new Map<number, number>();
  for (const id of profile.samples ?? []) hitsById.set(id, (hitsById.get(id) ?? 0) + 1);
  const self = new Map<string, number>();
  const byFile = new Map<string, number>();
  let total = 0;
  for (const n of profile.nodes) {
    const hits = n.hitCount || hitsById.get(n.id) || 0;
    total += hits;
    const url = n.callFrame.url.replace(/^file:\/\//, '').replace(/^.*\/(node_modules\/)/, '$1').replace(/^.*\/work\/main\//, '');
    const key = `${n.callFrame.functionName || '(anonymous)'}  ${url}:${n.callFrame.lineNumber + 1}`;
    self.set(key, (self.get(key) ?? 0) + hits);
    const f = url || `(${n.callFrame.functionName})`;
    byFile.set(f, (byFile.get(f) ?? 0) + hits);
  }
  const print = (title: string, m: Map<string, number>) => {
    console.log(`\n${title}`);
    for (const [k, v] of [...m].sort((a, b) => b[1] - a[1]).slice(0, count)) console.log(`${((100 * v) / total).toFixed(1).padStart(5)}%  ${k}`);
  };
  print('self time by function', self);
  print('self time by file', byFile);
  // Inclusive time: a node's hits plus its descendants', summed per function (recursion counted once per stack).
  const byId = new Map(profile.nodes.map((n) => [n.id, n]));
  const parent = new Map<number, number>();
  for (const n of profile.nodes) for (const c of n.children ?? []) parent.set(c, n.id);
  const inclusive = new Map<string, number>();
  for (const n of profile.nodes) {
    const hits = n.hitCount || hitsById.get(n.id) || 0;
    if (!hits) continue;
    const seen = new Set<string>();
    for (let id: number | undefined = n.id; id !== undefined; id = parent.get(id)) {
      const f = byId.get(id)!.callFrame;
      const key = `${f.functionName || '(anonymous)'}  ${f.url.replace(/^file:\/\//, '').replace(/^.*\/(node_modules\/)/, '$1').replace(/^.*\/work\/main\//, '')}:${f.lineNumber + 1}`;
      if (seen.has(key)) continue;
      seen.add(key);
      inclusive.set(key, (inclusive.get(key) ?? 0) + hits);
    }
  }
  print('inclusive time by function', inclusive);
}

/** Runs `work` under the CPU profiler and writes the profile to `file`. */
async function profiled(file: string, work: () => Promise<void>): Promise<void> {
  const session = new Session();
  session.connect();
  const post = (method: string, params?: object) =>
    new Promise<unknown>((resolve, reject) => session.post(method, params ?? {}, (e, r) => (e ? reject(e) : resolve(r))));
  await post('Profiler.enable');
  await post('Profiler.setSamplingInterval', { interval: 100 });
  await post('Profiler.start');
  await work();
  const { profile } = (await post('Profiler.stop')) as { profile: unknown };
  session.disconnect();
  writeFileSync(file, JSON.stringify(profile));
  console.log(`profile written to ${path.relative(process.cwd(), file)}`);
}

const RESULTS = RESULTS_DIR;

async function main(): Promise<void> {
  const [mode, arg, arg2] = process.argv.slice(2);
  if (mode === 'top') return top(arg, Number(arg2 ?? 30));
  if (mode === 'roundtrip') {
    const stack = await startStack([noopTool]);
    const call = async () => {
      const r = await stack.backend.invokeClientTool(stack.sessionId, 'Noop', {});
      if (r.outcome !== 'succeeded') throw new Error(String(r.errorMessage));
    };
    await throughput(call, 1, 3000);
    await profiled(path.join(RESULTS, 'roundtrip.cpuprofile'), async () => {
      const rate = await throughput(call, Number(arg ?? 1), 20_000);
      console.log(`${rate.toFixed(0)} calls/s`);
    });
    await stack.close();
    return;
  }
  if (mode === 'binary') {
    const size = Number(arg ?? 1 << 20);
    const buffers = new Map([[size, new Uint8Array(size).fill(7)]]);
    const stack = await startStack([blobTool(buffers)], { limits: { maxResultBytes: 32 * 1024 * 1024 } });
    const call = () => stack.backend.invokeClientTool(stack.sessionId, 'Blob', { size });
    await throughput(call, 1, 5);
    await profiled(path.join(RESULTS, 'binary.cpuprofile'), async () => {
      const rate = await throughput(call, 1, Math.max(20, Math.round((200 * 1024 * 1024) / size)));
      console.log(`${rate.toFixed(1)} calls/s`);
    });
    await stack.close();
    return;
  }
  if (mode === 'agent') {
    await benchAgentTurn({ quick: true });
    await profiled(path.join(RESULTS, 'agent.cpuprofile'), async () => {
      const r = await benchAgentTurn({ quick: false });
      console.log(`model → client ${r.modelToClient.medianUs.toFixed(0)} µs, client → model ${r.clientToModel.medianUs.toFixed(0)} µs`);
    });
    return;
  }
  throw new Error(`unknown mode ${mode}`);
}

void main().then(() => process.exit(0));
