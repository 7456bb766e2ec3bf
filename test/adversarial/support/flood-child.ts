/**
 * The extension core alone in a child process started with --expose-gc, so its heap can be measured
 * apart from the backend that floods it (done-when.test.ts). Talks to the parent over IPC:
 *   child → {event:'ready', heapBefore}     connected; heap after full GCs
 *   parent → 'measure'; child → {event:'measured', heapAfter, peak}
 *   parent → 'exit'
 * argv: url token
 */
import * as os from 'node:os';
import { ClientCore } from '../../../src/core/clientCore';
import { defineTool, jsonResult } from '../../../src/core/tool';
import { FakeHost } from '../../support/fake-host';

const [url, token] = process.argv.slice(2);
const gc = (globalThis as { gc?: () => void }).gc;
if (!gc || !process.send) throw new Error('run with --expose-gc and an IPC channel');

async function settledHeap(): Promise<number> {
  for (let i = 0; i < 4; i++) {
    gc?.();
    await new Promise((r) => setImmediate(r));
  }
  return process.memoryUsage().heapUsed;
}

const host = new FakeHost([{ name: 'ws', path: os.tmpdir() }], os.tmpdir());
const core = new ClientCore({
  url,
  token,
  clientInfo: { name: 'flood-child', version: '0', ide: 'none' },
  host,
  presenter: host,
  connection: { handshakeTimeoutMs: 5000, heartbeatMs: 60_000, reconnect: { initialDelayMs: 10, maxDelayMs: 40, maxAttempts: 5 } },
  permissions: { backgroundCalls: 'allow' },
});
core.registry.register({ name: 'Flood', description: 'a no-op tool' }, [
  defineTool({
    name: 'Noop', group: 'Flood', description: 'does nothing', requiresPermission: false, declineStrategy: 'reject',
    parameters: { type: 'object', properties: { i: { type: 'integer' } }, additionalProperties: false },
    run: async () => jsonResult({ ok: true }),
  }),
]);

let peak = 0;
const sampler = setInterval(() => (peak = Math.max(peak, process.memoryUsage().heapUsed)), 2);

core.onDidChangeState((s) => {
  if (s.kind !== 'connected') return;
  void settledHeap().then((heapBefore) => {
    peak = heapBefore;
    process.send?.({ event: 'ready', heapBefore });
  });
});

process.on('message', (m) => {
  if (m === 'measure') {
    void settledHeap().then((heapAfter) => process.send?.({ event: 'measured', heapAfter, peak }));
  } else if (m === 'exit') {
    clearInterval(sampler);
    core.dispose();
    process.exit(0);
  }
});

core.start();
