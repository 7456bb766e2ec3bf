/**
 * 12. Backend memory: the reference backend in its own process (backend-child.ts, offline demo
 *     model, threads kept in a data folder, sessions ending 1 s after their client leaves), measured after a full garbage
 *     collection: with no session (the baseline, taken after as many sessions as are measured came
 *     and went, so that V8's compiled code for their paths is in it), with 100 idle sessions that registered the
 *     built-in tool groups as the extension does, with one chat thread each after a turn that
 *     called a tool, and after every client left and the sessions ended (what must come back).
 *     Each phase also reports V8's compiled code and bytecode, which grows as code gets hot
 *     whatever holds data. The same again with a context window set, which makes the backend count tokens: the
 *     tokenizer's tables are loaded then, and only then. And the size of the CLI bundle.
 */
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import type { BackendOptions } from '../src/backend';
import { TestClient } from '../test/support/backend-client';
import { BackendProcess } from './lib/backendProcess';
import { CLI } from './lib/replicaProcess';
import { builtinGroups } from './tokens';
import type { ChildStats } from './backend-child';

export interface MemoryPhase {
  rssMB: number;
  heapMB: number;
  /** Of the heap: V8's compiled code and bytecode with their metadata. */
  codeMB: number;
}

export interface MemoryRun {
  sessions: number;
  /** After one session came and went: base − first is what the first `sessions` left (V8 compiling their paths, mostly). */
  first: MemoryPhase;
  /** After the first `sessions` came and went: the baseline of the phases below (the same sessions again). */
  base: MemoryPhase;
  idle: MemoryPhase;
  active: MemoryPhase;
  ended: MemoryPhase;
  /** (idle − base) / sessions, in KB. */
  perIdleSessionKB: { rss: number; heap: number };
  /** (active − idle) / sessions, in KB: one thread with one turn each. */
  perActiveThreadKB: { rss: number; heap: number };
}

export interface BackendMemoryResult {
  demo: MemoryRun;
  counting: MemoryRun;
  cliBundleBytes: number;
}

const TOKEN = `bench-memory-${process.pid}-${Date.now()}`;
const MB = 1024 * 1024;

export async function benchBackendMemory(options: { quick: boolean }): Promise<BackendMemoryResult> {
  const sessions = options.quick ? 30 : 100;
  const demo = await measure({}, sessions);
  const counting = await measure({ contextWindow: 128_000 }, sessions);
  return { demo, counting, cliBundleBytes: fs.existsSync(CLI) ? fs.statSync(CLI).size : 0 };
}

async function measure(extra: BackendOptions, sessions: number): Promise<MemoryRun> {
  // Threads kept on disk: without a data folder the backend keeps up to 256 threads' histories in
  // memory for the life of the process by design (so an ended session's thread can be continued).
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'ct-bench-memory-'));
  const backend = await BackendProcess.start({ token: TOKEN, sessionGraceMs: 1_000, maxConnections: sessions + 16, dataDir, ...extra });
  const groups = builtinGroups();
  try {
    // The same sessions first, come and gone, so that what is made once per process (compiled
    // validators, and V8's optimised code for the paths a turn takes, which it compiles only after
    // they ran many times) is in the baseline and what is held afterwards is what sessions left.
    const first = (await sessionsComeAndGo(backend, groups, 1, 'first')).ended;
    const base = (await sessionsComeAndGo(backend, groups, sessions, 'warm-up')).ended;
    const { idle, active, ended } = await sessionsComeAndGo(backend, groups, sessions, 'thread');
    const per = (a: MemoryPhase, b: MemoryPhase) => ({ rss: ((a.rssMB - b.rssMB) * 1024) / sessions, heap: ((a.heapMB - b.heapMB) * 1024) / sessions });
    return { sessions, first, base, idle, active, ended, perIdleSessionKB: per(idle, base), perActiveThreadKB: per(active, idle) };
  } finally {
    await backend.stop();
    fs.rmSync(dataDir, { recursive: true, force: true });
  }
}

/** `count` clients connect, each runs one turn that calls a tool, then all leave; the phases after a full GC. */
async function sessionsComeAndGo(backend: BackendProcess, groups: ReturnType<typeof builtinGroups>, count: number, label: string): Promise<{ idle: MemoryPhase; active: MemoryPhase; ended: MemoryPhase }> {
  const clients: TestClient[] = [];
  try {
    for (let i = 0; i < count; i++) {
      const client = await TestClient.connect(backend.url, TOKEN);
      await client.hello({ toolGroups: groups }).catch((e: unknown) => {
        throw new Error(`${label} session ${i}: ${JSON.stringify(client.received[0]).slice(0, 300)} (${String(e)})`);
      });
      client.autoAnswer(() => ({ success: true, content: [{ type: 'text', text: 'export const a = 1;\n'.repeat(50) }] }));
      clients.push(client);
    }
    const idle = phase(await backend.statsAfterGc());
    for (const [i, client] of clients.entries()) {
      const { finished } = await client.run(`${label}-${i}`, 'read src/sample.ts', 30_000);
      if (finished.reason !== 'completed') throw new Error(`a ${label} turn ended ${finished.reason}`);
    }
    const active = phase(await backend.statsAfterGc());
    await Promise.all(clients.splice(0).map((c) => c.close()));
    await allEnded(backend);
    return { idle, active, ended: phase(await backend.statsAfterGc()) };
  } finally {
    await Promise.all(clients.map((c) => c.drop()));
  }
}

async function allEnded(backend: BackendProcess): Promise<void> {
  const deadline = Date.now() + 30_000;
  for (;;) {
    const s = await backend.stats();
    if (s && s.sessions === 0) return;
    if (Date.now() > deadline) throw new Error(`${s?.sessions} sessions had not ended 30 s after their clients left`);
    await new Promise((r) => setTimeout(r, 250));
  }
}

function phase(stats: ChildStats | undefined): MemoryPhase {
  if (!stats) throw new Error('the backend did not report its memory');
  return { rssMB: stats.rss / MB, heapMB: stats.heapUsed / MB, codeMB: stats.codeBytes / MB };
}
