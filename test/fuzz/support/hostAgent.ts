/**
 * The target side of the fuzzer's harness, in each process under test (test/fuzz/hosts/): a tiny
 * health endpoint where the process has none of its own, memory after a full GC on request (the
 * process runs with --expose-gc), its own event-loop delay (for `npm run bench`'s attacks), and
 * requests from the fuzzer over IPC, answered by id. A request handler that throws answers
 * `{ error }`; the process itself must never die of one.
 */
import * as http from 'node:http';
import type { AddressInfo } from 'node:net';
import { monitorEventLoopDelay } from 'node:perf_hooks';

export interface MemoryFigures {
  /** V8 heap in use plus memory outside it held by JS objects (Buffers), after two full GCs. */
  heap: number;
  rss: number;
}

type Handler = (payload: unknown) => Promise<unknown> | unknown;

const handlers = new Map<string, Handler>();

/** Answers `request` messages of `type` from the fuzzer. */
export function onRequest(type: string, handler: Handler): void {
  handlers.set(type, handler);
}

/** A 200 on GET /healthz from this process's event loop; resolves with the URL. */
export async function serveHealth(): Promise<string> {
  const server = http.createServer((_req, res) => res.end('ok'));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  server.unref();
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}/healthz`;
}

export function memoryAfterGc(): MemoryFigures {
  const gc = (globalThis as { gc?: () => void }).gc;
  gc?.();
  gc?.();
  const m = process.memoryUsage();
  return { heap: m.heapUsed + m.external, rss: m.rss };
}

/** Tells the fuzzer the target is ready, with what it needs to reach it, and starts answering requests. */
export interface LoopDelay {
  maxMs: number;
  p99Ms: number;
}

export function ready(info: Record<string, unknown>, onExit: () => Promise<void> = async () => {}): void {
  onRequest('memory', () => memoryAfterGc());
  // 10 ms resolution: a blocked loop shows as one sample as long as the block.
  const delay = monitorEventLoopDelay({ resolution: 10 });
  delay.enable();
  onRequest('loopDelay', (payload): LoopDelay => {
    const figures = { maxMs: delay.max / 1e6, p99Ms: delay.percentile(99) / 1e6 };
    if ((payload as { reset?: boolean } | undefined)?.reset) delay.reset();
    return figures;
  });
  process.on('message', (m: { type: string; id?: number; request?: string; payload?: unknown }) => {
    if (m.type === 'exit') {
      void onExit().finally(() => process.exit(0));
      return;
    }
    if (m.type !== 'request' || m.id === undefined) return;
    const handler = handlers.get(m.request ?? '');
    Promise.resolve()
      .then(() => (handler ? handler(m.payload) : Promise.reject(new Error(`no handler for ${m.request}`))))
      .then(
        (result) => process.send?.({ type: 'reply', id: m.id, result }),
        (e: unknown) => process.send?.({ type: 'reply', id: m.id, error: e instanceof Error ? e.message : String(e) }),
      );
  });
  process.on('disconnect', () => process.exit(0));
  process.send?.({ type: 'ready', ...info });
}
