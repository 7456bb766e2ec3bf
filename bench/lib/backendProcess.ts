/**
 * The parent's handle on bench/backend-child.ts: forks it (bundled under `npm run bench`, from
 * source under tsx, as flood.ts does), and asks it for figures over IPC with a deadline, because a
 * backend whose event loop is blocked cannot answer.
 */
import { fork, type ChildProcess } from 'node:child_process';
import * as path from 'node:path';
import type { BackendOptions } from '../../src/backend';
import type { ChildStats } from '../backend-child';
import { BENCH_DIR } from './paths';

export class BackendProcess {
  private constructor(
    private readonly child: ChildProcess,
    readonly url: string,
  ) {}

  static async start(options: BackendOptions): Promise<BackendProcess> {
    const bundled = __filename.endsWith('.js');
    const child = fork(bundled ? path.join(BENCH_DIR, '.out', 'backend-child.js') : path.join(BENCH_DIR, 'backend-child.ts'), [JSON.stringify(options)], {
      execArgv: [...(bundled ? [] : ['--import', 'tsx']), '--expose-gc'],
      stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
    });
    const starting = new BackendProcess(child, '');
    const listening = await starting.reply<{ url: string }>('listening', undefined, 30_000);
    if (!listening) {
      await starting.stop(true);
      throw new Error('the backend did not start within 30 s');
    }
    return new BackendProcess(child, listening.url);
  }

  /** Starts a new event-loop delay window. */
  async reset(): Promise<void> {
    if (!(await this.reply('reset', { type: 'reset' }, 10_000))) throw new Error('the backend did not answer "reset" within 10 s');
  }

  /** The figures, or undefined when the backend did not answer within `timeoutMs` (its loop is blocked). */
  stats(timeoutMs = 5_000): Promise<ChildStats | undefined> {
    return this.reply<ChildStats>('stats', { type: 'stats' }, timeoutMs);
  }

  /** The figures after a full garbage collection in the backend. */
  statsAfterGc(timeoutMs = 10_000): Promise<ChildStats | undefined> {
    return this.reply<ChildStats>('stats', { type: 'statsAfterGc' }, timeoutMs);
  }

  /** Writes a heap snapshot (after a full collection) to `file`; resolves with its path. */
  async heapSnapshot(file: string, timeoutMs = 120_000): Promise<string> {
    const written = await this.reply<{ file: string }>('heapSnapshot', { type: 'heapSnapshot', file } as { type: string }, timeoutMs);
    if (!written) throw new Error('the backend did not write its heap snapshot');
    return written.file;
  }

  /** Asks it to close; kills it when it does not exit within 5 s (or at once, for a frozen one). */
  async stop(kill = false): Promise<void> {
    if (this.child.exitCode !== null || this.child.signalCode !== null) return;
    const exited = new Promise<void>((resolve) => this.child.once('exit', () => resolve()));
    if (kill || !this.child.connected) this.child.kill('SIGKILL');
    else this.child.send({ type: 'exit' });
    const timer = setTimeout(() => this.child.kill('SIGKILL'), 5_000);
    await exited;
    clearTimeout(timer);
  }

  private reply<T>(type: string, request: { type: string } | undefined, timeoutMs: number): Promise<T | undefined> {
    return new Promise((resolve) => {
      const done = (value: T | undefined) => {
        clearTimeout(timer);
        this.child.off('message', onMessage);
        this.child.off('exit', onExit);
        resolve(value);
      };
      const onMessage = (m: { type: string }) => m.type === type && done(m as T);
      const onExit = () => done(undefined);
      const timer = setTimeout(() => done(undefined), timeoutMs);
      this.child.on('message', onMessage);
      this.child.once('exit', onExit);
      if (request) this.child.send(request);
    });
  }
}
