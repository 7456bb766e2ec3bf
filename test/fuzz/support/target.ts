/**
 * The fuzzer's handle on one process under test and its prober: forks the host
 * (test/fuzz/hosts/*.ts, with --expose-gc) and the prober (prober.ts) aimed at the host's health
 * URL and pid, and asks both for figures over IPC with deadlines, because a frozen target cannot
 * answer. `kill()` ends both; a target the fuzzer had to kill is started again by its entry.
 */
import { fork, type ChildProcess } from 'node:child_process';
import { existsSync } from 'node:fs';
import * as path from 'node:path';
import type { MemoryFigures } from './hostAgent';
import type { ProbeWindow } from './prober';

const TSX = ['-r', 'tsx/cjs'];
/** The repository (found upwards, so that `npm run bench`'s bundle in bench/.out starts the same hosts). */
const ROOT = rootOf(__dirname);
const HOSTS = path.join(ROOT, 'test', 'fuzz', 'hosts');

function rootOf(dir: string): string {
  for (let d = dir; d !== path.dirname(d); d = path.dirname(d)) if (existsSync(path.join(d, 'package.json'))) return d;
  return process.cwd();
}

export class Target {
  private nextId = 1;
  private readonly waiting = new Map<number, { resolve: (v: unknown) => void; reject: (e: Error) => void }>();
  private exited = false;

  private constructor(
    readonly child: ChildProcess,
    readonly info: Record<string, unknown> & { healthUrl: string },
    private readonly prober: ChildProcess,
  ) {
    child.on('message', (m: { type: string; id?: number; result?: unknown; error?: string }) => {
      if (m.type !== 'reply' || m.id === undefined) return;
      const w = this.waiting.get(m.id);
      this.waiting.delete(m.id);
      if (m.error !== undefined) w?.reject(new Error(m.error));
      else w?.resolve(m.result);
    });
    child.once('exit', () => {
      this.exited = true;
      for (const w of this.waiting.values()) w.reject(new Error('the target exited'));
      this.waiting.clear();
    });
  }

  /** Forks `host` (a file in test/fuzz/hosts/) with `options` as its argument and waits for it to be ready. */
  static async start(host: string, options: unknown, env: NodeJS.ProcessEnv = {}): Promise<Target> {
    const child = fork(path.join(HOSTS, host), [JSON.stringify(options)], {
      cwd: ROOT,
      execArgv: ['--expose-gc', ...(process.env.CLIENT_TOOLS_FUZZ_PROFILE ? ['--cpu-prof', `--cpu-prof-dir=${process.env.CLIENT_TOOLS_FUZZ_PROFILE}`] : []), ...TSX],
      env: { ...process.env, ...env },
      stdio: ['ignore', 'ignore', 'inherit', 'ipc'],
    });
    const info = await new Promise<Record<string, unknown> & { healthUrl: string }>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`${host} was not ready within 60 s`)), 60_000);
      child.on('message', (m: { type: string }) => {
        if (m.type !== 'ready') return;
        clearTimeout(timer);
        resolve(m as unknown as Record<string, unknown> & { healthUrl: string });
      });
      child.once('exit', (code) => reject(new Error(`${host} exited (${code}) before it was ready`)));
    });
    const prober = fork(path.join(ROOT, 'test', 'fuzz', 'support', 'prober.ts'), [info.healthUrl, String(child.pid)], { execArgv: TSX, stdio: ['ignore', 'ignore', 'inherit', 'ipc'] });
    const target = new Target(child, info, prober);
    await target.ask(prober, 'marked', { type: 'mark' }, 30_000);
    return target;
  }

  get alive(): boolean {
    return !this.exited;
  }

  /** Sends a request to the host's handler of `type`; rejects after `timeoutMs`. */
  request<T>(type: string, payload?: unknown, timeoutMs = 30_000): Promise<T> {
    const id = this.nextId++;
    return new Promise<T>((resolve, reject) => {
      const timer = setTimeout(() => {
        this.waiting.delete(id);
        reject(new Error(`no answer to ${type} within ${timeoutMs} ms`));
      }, timeoutMs);
      this.waiting.set(id, {
        resolve: (v) => (clearTimeout(timer), resolve(v as T)),
        reject: (e) => (clearTimeout(timer), reject(e)),
      });
      if (this.exited || !this.child.connected) {
        this.waiting.get(id)?.reject(new Error('the target exited'));
        return;
      }
      this.child.send({ type: 'request', id, request: type, payload });
    });
  }

  memory(timeoutMs = 30_000): Promise<MemoryFigures> {
    return this.request<MemoryFigures>('memory', undefined, timeoutMs);
  }

  /** Opens a new probe window. */
  async mark(): Promise<void> {
    await this.ask(this.prober, 'marked', { type: 'mark' }, 10_000);
  }

  /** The probe window since the last mark. */
  async window(): Promise<ProbeWindow> {
    const w = await this.ask<ProbeWindow>(this.prober, 'window', { type: 'read' }, 10_000);
    if (!w) throw new Error('the prober did not answer');
    return w;
  }

  async kill(): Promise<void> {
    this.prober.kill('SIGKILL');
    if (this.exited) return;
    const gone = new Promise<void>((resolve) => this.child.once('exit', () => resolve()));
    this.child.kill('SIGKILL');
    await gone;
  }

  /** Asks the target to exit; kills it when it does not within 5 s. */
  async stop(): Promise<void> {
    this.prober.kill('SIGKILL');
    if (this.exited) return;
    const gone = new Promise<void>((resolve) => this.child.once('exit', () => resolve()));
    if (this.child.connected) this.child.send({ type: 'exit' });
    const timer = setTimeout(() => this.child.kill('SIGKILL'), 5_000);
    await gone;
    clearTimeout(timer);
  }

  private ask<T>(child: ChildProcess, type: string, message: unknown, timeoutMs: number): Promise<T | undefined> {
    return new Promise((resolve) => {
      const done = (v: T | undefined) => {
        clearTimeout(timer);
        child.off('message', onMessage);
        resolve(v);
      };
      const onMessage = (m: { type: string }) => m.type === type && done(m as T);
      const timer = setTimeout(() => done(undefined), timeoutMs);
      child.on('message', onMessage);
      child.send(message as object);
    });
  }
}
