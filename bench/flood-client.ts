/**
 * The extension core alone in its own process, for the flood benchmark (flood.ts): a real ClientCore
 * with the fake host and the no-op tool, connected to the URL in argv. It reports its heap over IPC
 * after a full garbage collection (run with --expose-gc): once connected, and when asked again,
 * with the longest its event loop was blocked in between (monitorEventLoopDelay, 1 ms resolution).
 */
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { ClientCore } from '../src/core';
import { createTempWorkspace } from '../test/support/fake-host';
import { GROUP, noopTool } from './lib/stack';

type Parent = { send(message: unknown): void };

function heap(): { heapUsed: number; rss: number } {
  const gc = (globalThis as { gc?: () => void }).gc;
  if (!gc) throw new Error('run with --expose-gc');
  gc();
  gc();
  const m = process.memoryUsage();
  return { heapUsed: m.heapUsed, rss: m.rss };
}

async function main(): Promise<void> {
  const [url, token] = process.argv.slice(2);
  const parent = process as unknown as Parent;
  const workspace = await createTempWorkspace(['ws']);
  const core = new ClientCore({ url, token, clientInfo: { name: 'bench-flood', version: '0', ide: 'node' }, host: workspace.host, preExpanded: [GROUP], permissions: { backgroundCalls: 'allow' } });
  core.registry.register({ name: GROUP, description: 'Benchmark tools.', startCollapsed: false }, [noopTool]);
  let peak = 0;
  const sampler = setInterval(() => (peak = Math.max(peak, process.memoryUsage().heapUsed)), 2);
  const delay = monitorEventLoopDelay({ resolution: 1 });
  core.onDidChangeState((s) => {
    if (s.kind === 'connected') {
      const before = heap();
      peak = before.heapUsed;
      parent.send({ type: 'ready', ...before });
      delay.enable();
    }
  });
  process.on('message', (m: { type: string }) => {
    if (m.type === 'measure') {
      delay.disable();
      parent.send({ type: 'after', ...heap(), peak, maxBlockMs: delay.max / 1e6 });
    }
    if (m.type === 'exit') {
      clearInterval(sampler);
      core.dispose();
      void workspace.dispose().finally(() => process.exit(0));
    }
  });
  core.start();
}

void main();
