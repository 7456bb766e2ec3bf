/**
 * 4. Flood: 10,000 tool requests in one burst at the extension core (a real ClientCore in a child
 *    process, flood-client.ts), sent by a scripted backend in this process as fast as `ws` takes
 *    them. Measured: the core's heap after a full GC before and after, its peak while draining,
 *    the time until the last answer, and how the requests were answered (done, or refused with
 *    TOO_MANY_IN_FLIGHT past the in-flight cap), and the longest the core's event loop was blocked
 *    meanwhile; every request must get exactly one answer. BENCH_CHILD_ARGS adds Node flags to the
 *    core's process (`--cpu-prof --cpu-prof-dir=DIR` profiles it).
 */
import { fork } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import type { AddressInfo } from 'node:net';
import * as path from 'node:path';
import { WebSocketServer, type WebSocket } from 'ws';
import { decodeFromClient, encode, PROTOCOL, TOKEN_HEADER } from '../src/protocol';
import { BENCH_DIR } from './lib/paths';

export interface FloodResult {
  requests: number;
  answered: number;
  succeeded: number;
  refusedTooManyInFlight: number;
  otherErrors: number;
  duplicates: number;
  drainMs: number;
  heapBeforeMB: number;
  heapAfterMB: number;
  heapPeakMB: number;
  heapGrowthMB: number;
  rssBeforeMB: number;
  rssAfterMB: number;
  /** The longest the core's event loop was blocked between connecting and the measurement, in ms. */
  hostMaxBlockMs: number;
}

const TOKEN = `flood-${randomUUID()}`;
const MB = 1024 * 1024;

export async function benchFlood(options: { requests?: number } = {}): Promise<FloodResult> {
  const total = options.requests ?? 10_000;
  const wss = new WebSocketServer({ host: '127.0.0.1', port: 0, perMessageDeflate: false });
  await new Promise<void>((resolve) => wss.once('listening', () => resolve()));
  const url = `ws://127.0.0.1:${(wss.address() as AddressInfo).port}`;
  const socket = new Promise<WebSocket>((resolve, reject) => {
    wss.on('connection', (ws, req) => {
      if (req.headers[TOKEN_HEADER] !== TOKEN) {
        ws.close(1008, 'bad token');
        reject(new Error('the flood client sent the wrong token'));
        return;
      }
      resolve(ws);
    });
  });
  // The client runs as the benchmark does: bundled under `npm run bench`, from source under tsx.
  const bundled = __filename.endsWith('.js');
  const child = fork(bundled ? path.join(BENCH_DIR, '.out', 'flood-client.js') : path.join(BENCH_DIR, 'flood-client.ts'), [url, TOKEN], {
    execArgv: [...(bundled ? [] : ['--import', 'tsx']), '--expose-gc', ...(process.env.BENCH_CHILD_ARGS ? process.env.BENCH_CHILD_ARGS.split(' ') : [])],
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
  });
  const fromChild = <T>(type: string) =>
    new Promise<T>((resolve, reject) => {
      const onMessage = (m: { type: string }) => {
        if (m.type !== type) return;
        child.off('message', onMessage);
        resolve(m as T);
      };
      child.on('message', onMessage);
      child.once('exit', (code) => reject(new Error(`the flood client exited (${code}) before "${type}"`)));
    });
  try {
    const ready = fromChild<{ heapUsed: number; rss: number }>('ready');
    const ws = await socket;
    const answers = new Map<string, number>();
    let succeeded = 0;
    let refused = 0;
    let otherErrors = 0;
    let lastAt = 0;
    let allAnswered: () => void = () => {};
    const done = new Promise<void>((resolve) => (allAnswered = resolve));
    ws.on('message', (data: Buffer, isBinary: boolean) => {
      const decoded = decodeFromClient(data, isBinary);
      if (!decoded.ok) throw new Error(`the core sent an invalid message: ${decoded.error.message}`);
      const m = decoded.message;
      if (m.type === 'hello') {
        const welcome = encode({
          type: 'welcome', protocol: PROTOCOL, sessionId: 'flood', resumed: false,
          server: { name: 'flood', version: '0', model: { name: 'none', offline: true } },
          limits: { maxMessageBytes: 32 * MB, maxInFlight: 64, invokeTimeoutMs: 30_000 },
        });
        ws.send(welcome.data);
        return;
      }
      if (m.type !== 'clientToolInvokeResponse') return;
      answers.set(m.requestId, (answers.get(m.requestId) ?? 0) + 1);
      if (m.success) succeeded++;
      else if (m.errorCode === 'TOO_MANY_IN_FLIGHT') refused++;
      else otherErrors++;
      lastAt = performance.now();
      if (answers.size === total) allAnswered();
    });
    const before = await ready;
    const frames = Array.from({ length: total }, (_, i) =>
      encode({ type: 'clientToolInvokeRequest', requestId: `flood-${i}`, toolName: 'Noop', callId: `call-${i}`, arguments: {}, timeoutMs: 30_000 }).data,
    );
    const t0 = performance.now();
    for (const f of frames) ws.send(f);
    await Promise.race([done, new Promise((_, reject) => setTimeout(() => reject(new Error(`only ${answers.size} of ${total} answered after 60 s`)), 60_000))]);
    // Late duplicates would show up here.
    await new Promise((r) => setTimeout(r, 200));
    child.send({ type: 'measure' });
    const after = await fromChild<{ heapUsed: number; rss: number; peak: number; maxBlockMs: number }>('after');
    const duplicates = [...answers.values()].filter((n) => n > 1).length;
    return {
      requests: total,
      answered: answers.size,
      succeeded,
      refusedTooManyInFlight: refused,
      otherErrors,
      duplicates,
      drainMs: lastAt - t0,
      heapBeforeMB: before.heapUsed / MB,
      heapAfterMB: after.heapUsed / MB,
      heapPeakMB: after.peak / MB,
      heapGrowthMB: (after.heapUsed - before.heapUsed) / MB,
      rssBeforeMB: before.rss / MB,
      rssAfterMB: after.rss / MB,
      hostMaxBlockMs: after.maxBlockMs,
    };
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
    for (const c of wss.clients) c.terminate();
    await new Promise<void>((resolve) => wss.close(() => resolve()));
  }
}
