/**
 * The reference backend alone in its own process, for the soak and attack benchmarks (soak.ts,
 * attacks.ts): `createBackend` on loopback with the options in argv (JSON), and an event-loop delay
 * monitor (perf_hooks.monitorEventLoopDelay) so that the figures are the backend's own, not the
 * benchmark clients'. Over IPC it says where it listens, resets the monitor, and reports the delay,
 * its memory (after a full collection when asked for `statsAfterGc`) and its session count. A frozen backend cannot answer: the parent notices by the
 * silence and kills it.
 */
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { getHeapCodeStatistics, writeHeapSnapshot } from 'node:v8';
import { createBackend, type BackendOptions } from '../src/backend';

type Parent = { send(message: unknown): void };

export interface ChildStats {
  type: 'stats';
  eventLoopDelay: { maxMs: number; p99Ms: number; meanMs: number; samples: number };
  rss: number;
  heapUsed: number;
  /** Of the heap: V8's compiled code and bytecode with their metadata (it grows as code gets hot, whoever runs it). */
  codeBytes: number;
  sessions: number;
}

async function main(): Promise<void> {
  const options = JSON.parse(process.argv[2] ?? '{}') as BackendOptions;
  const parent = process as unknown as Parent;
  const backend = await createBackend(options);
  let sessions = 0;
  backend.on('session', (s) => !s.resumed && sessions++);
  backend.on('sessionEnded', () => sessions--);
  // 10 ms resolution (the default): a blocked loop shows up as one sample as long as the block.
  const delay = monitorEventLoopDelay({ resolution: 10 });
  delay.enable();
  process.on('message', (m: { type: string }) => {
    if (m.type === 'reset') {
      delay.reset();
      parent.send({ type: 'reset' });
    } else if (m.type === 'stats' || m.type === 'statsAfterGc') {
      // A full collection first (run with --expose-gc) makes memory figures comparable.
      if (m.type === 'statsAfterGc') for (let i = 0; i < 3; i++) (globalThis as { gc?: () => void }).gc?.();
      const memory = process.memoryUsage();
      const stats: ChildStats = {
        type: 'stats',
        eventLoopDelay: { maxMs: delay.max / 1e6, p99Ms: delay.percentile(99) / 1e6, meanMs: delay.mean / 1e6, samples: delay.count },
        rss: memory.rss,
        heapUsed: memory.heapUsed,
        codeBytes: codeBytes(),
        sessions,
      };
      parent.send(stats);
    } else if (m.type === 'heapSnapshot') {
      // For finding what holds memory: a full collection, then a snapshot at the path asked for.
      for (let i = 0; i < 3; i++) (globalThis as { gc?: () => void }).gc?.();
      parent.send({ type: 'heapSnapshot', file: writeHeapSnapshot((m as { type: string; file: string }).file) });
    } else if (m.type === 'exit') {
      delay.disable();
      void backend.close().finally(() => process.exit(0));
    }
  });
  parent.send({ type: 'listening', port: backend.port, url: backend.url });
}

function codeBytes(): number {
  const code = getHeapCodeStatistics();
  return code.code_and_metadata_size + code.bytecode_and_metadata_size;
}

void main();
