import { grantKey, type Grant } from '../../../../src/core/consent/grants';
import type { PermissionAnswer, PermissionPrompt } from '../../../../src/core/consent/presenter';
import type { PermissionStore } from '../../../../src/core/consent/permissionGate';
import type { Timers } from '../../../../src/core/timers';

/** Timers on a clock the test moves: nothing fires until `advance` passes its time. */
export class ManualTimers implements Timers {
  private time = 1_000_000;
  private seq = 0;
  private readonly pending = new Map<number, { at: number; callback: () => void }>();

  now(): number {
    return this.time;
  }

  setTimeout(callback: () => void, ms: number): unknown {
    const id = ++this.seq;
    this.pending.set(id, { at: this.time + ms, callback });
    return id;
  }

  clearTimeout(handle: unknown): void {
    this.pending.delete(handle as number);
  }

  setInterval(): unknown {
    throw new Error('not used by the permission gate');
  }

  clearInterval(): void {}

  /** Moves the clock and runs what fell due, in order. */
  advance(ms: number): void {
    this.time += ms;
    const due = [...this.pending.entries()].filter(([, t]) => t.at <= this.time).sort((a, b) => a[1].at - b[1].at);
    for (const [id, t] of due) {
      this.pending.delete(id);
      t.callback();
    }
  }
}

/** A workspace store in memory. */
export class MemoryStore implements PermissionStore {
  grants: Grant[] = [];
  list() {
    return this.grants;
  }
  add(g: Grant) {
    this.grants.push(g);
  }
  remove(key: string) {
    this.grants = this.grants.filter((x) => grantKey(x) !== key);
  }
  clear() {
    this.grants = [];
  }
  get tools() {
    return this.grants.map((g) => g.toolName);
  }
}

/** Answers every prompt with `answer` (which a test may change) and keeps what it showed. */
export class AnsweringPrompter {
  readonly shown: PermissionPrompt[] = [];
  constructor(public answer: PermissionAnswer | undefined) {}
  confirm(prompt: PermissionPrompt): Promise<PermissionAnswer | undefined> {
    this.shown.push(prompt);
    return Promise.resolve(this.answer);
  }
}
