/**
 * The shared state of a backend that runs alone (no `--redis`): today's behaviour, everything in this
 * process. It wraps the conversation store the backend already uses (`MemoryStore`, or `LogStore`
 * with a data folder). `peer()` gives a second replica's view of the same maps, which is how the
 * contract tests prove leases and fences between two holders without Redis.
 *
 * Expiry is checked on read and swept on write (at most once a second), so an abandoned record
 * costs memory only until the first write a second after its deadline.
 */
import type { ConversationStore, StoredRecord } from '../store/conversationStore';
import { MemoryStore } from '../store/memoryStore';
import type { CallRecord, Lease, SessionRecord, SharedState } from './sharedState';
import { SharedStateError } from './sharedState';

const SWEEP_INTERVAL_MS = 1_000;
/**
 * Threads whose newest fence is kept by name; past it the least recently leased without a live
 * lease are dropped into one floor (thread ids come from clients: a fence per id ever leased grew
 * for the life of the process).
 */
export const MAX_FENCED_THREADS = 10_000;

interface Expiring<T> {
  value: T;
  expiresAt: number;
}

/** What every view of one in-process state shares. */
class MemoryCore {
  readonly sessions = new Map<string, Expiring<SessionRecord>>();
  /** Insertion order is call order: a Map iterates in it. */
  readonly calls = new Map<string, Expiring<CallRecord>>();
  readonly leases = new Map<string, Lease>();
  /** Per thread, the newest fence granted, least recently leased first. */
  readonly fences = new Map<string, number>();
  /** The newest fence of the threads dropped from `fences`: the newest fence of any thread it lacks. */
  private fenceFloor = 0;
  /** One counter for every thread: a fence is never handed out twice, even after its thread was forgotten. */
  lastFence = 0;

  constructor(
    readonly store: ConversationStore,
    private readonly maxFenced = MAX_FENCED_THREADS,
  ) {}

  /** The thread's newest fence: an append under an older one is refused. */
  newestFence(threadId: string): number {
    return this.fences.get(threadId) ?? this.fenceFloor;
  }

  /**
   * Records a fence granted and drops the least recently leased threads past the bound. A thread
   * with a live lease is never dropped, so its holder's appends go on; a dropped thread's stale
   * holder is refused, as the floor is at least the fence that superseded it.
   */
  noteFence(threadId: string, fence: number, now: number): void {
    const newest = Math.max(fence, this.fences.get(threadId) ?? 0);
    this.fences.delete(threadId);
    this.fences.set(threadId, newest);
    if (this.fences.size <= this.maxFenced) return;
    for (const [id, f] of this.fences) {
      if (this.fences.size <= this.maxFenced) break;
      const lease = this.leases.get(id);
      if (lease && lease.expiresAt > now) continue;
      this.fences.delete(id);
      this.fenceFloor = Math.max(this.fenceFloor, f);
    }
  }

  private lastSweep = 0;

  /** Drops what expired, at most once a second: a write must not walk every record each time. */
  sweep(now: number): void {
    if (now - this.lastSweep < SWEEP_INTERVAL_MS) return;
    this.lastSweep = now;
    for (const [id, e] of this.sessions) if (e.expiresAt <= now) this.sessions.delete(id);
    for (const [id, e] of this.calls) if (e.expiresAt <= now) this.calls.delete(id);
    for (const [id, l] of this.leases) if (l.expiresAt <= now) this.leases.delete(id);
  }
}

export class MemorySharedState implements SharedState {
  readonly replica: string;
  private readonly core: MemoryCore;
  private closed = false;

  constructor(options: { replica?: string; store?: ConversationStore; maxFencedThreads?: number } = {}, core?: MemoryCore) {
    this.replica = options.replica ?? 'local';
    this.core = core ?? new MemoryCore(options.store ?? new MemoryStore(), options.maxFencedThreads);
  }

  /** Threads whose fence is kept by name (at most MAX_FENCED_THREADS plus those with a live lease). */
  get fencedThreads(): number {
    return this.core.fences.size;
  }

  get store(): ConversationStore {
    return this.core.store;
  }

  /** Another replica's view of the same state (tests, and a single process that runs several). */
  peer(replica: string): MemorySharedState {
    return new MemorySharedState({ replica }, this.core);
  }

  putSession(record: SessionRecord, ttlMs: number): Promise<void> {
    return this.run(() => {
      this.core.sweep(Date.now());
      this.core.sessions.set(record.sessionId, { value: { ...record }, expiresAt: Date.now() + ttlMs });
    });
  }

  getSession(sessionId: string): Promise<SessionRecord | undefined> {
    return this.run(() => {
      const e = this.core.sessions.get(sessionId);
      return e && e.expiresAt > Date.now() ? { ...e.value } : undefined;
    });
  }

  deleteSession(sessionId: string): Promise<void> {
    return this.run(() => void this.core.sessions.delete(sessionId));
  }

  putCall(record: CallRecord, ttlMs: number): Promise<void> {
    return this.run(() => {
      this.core.sweep(Date.now());
      const existing = this.core.calls.get(record.requestId);
      // Recording a call again keeps its place and any outcome already stored: the first one wins.
      const outcome = existing && existing.expiresAt > Date.now() ? existing.value.outcome : undefined;
      const value = { ...record, outcome: outcome ?? record.outcome };
      if (existing) Object.assign(existing, { value, expiresAt: Date.now() + ttlMs });
      else this.core.calls.set(record.requestId, { value, expiresAt: Date.now() + ttlMs });
    });
  }

  settleCall(requestId: string, outcome: string): Promise<boolean> {
    return this.run(() => {
      const e = this.core.calls.get(requestId);
      if (!e || e.expiresAt <= Date.now() || e.value.outcome !== undefined) return false;
      e.value.outcome = outcome;
      return true;
    });
  }

  callsOf(sessionId: string): Promise<CallRecord[]> {
    return this.run(() => {
      const now = Date.now();
      return [...this.core.calls.values()].filter((e) => e.expiresAt > now && e.value.sessionId === sessionId).map((e) => ({ ...e.value }));
    });
  }

  deleteCall(requestId: string): Promise<void> {
    return this.run(() => void this.core.calls.delete(requestId));
  }

  acquireLease(threadId: string, ttlMs: number, renewing?: Lease): Promise<Lease | undefined> {
    return this.run(() => {
      const now = Date.now();
      const current = this.core.leases.get(threadId);
      const live = current && current.expiresAt > now ? current : undefined;
      if (live && live.holder !== this.replica) return undefined;
      // A late renewal keeps its fence while it is still the thread's newest (see ACQUIRE_LEASE).
      const keeps = !live && renewing !== undefined && renewing.holder === this.replica && renewing.fence > 0 && this.core.newestFence(threadId) === renewing.fence;
      const fence = live ? live.fence : keeps ? renewing.fence : ++this.core.lastFence;
      const lease: Lease = { threadId, holder: this.replica, fence, expiresAt: now + ttlMs };
      this.core.leases.set(threadId, lease);
      this.core.noteFence(threadId, fence, now);
      return { ...lease };
    });
  }

  releaseLease(lease: Lease): Promise<void> {
    return this.run(() => {
      const current = this.core.leases.get(lease.threadId);
      if (current && current.holder === this.replica && current.fence === lease.fence) this.core.leases.delete(lease.threadId);
    });
  }

  appendFenced(lease: Lease, records: readonly StoredRecord[]): Promise<void> {
    try {
      this.check();
      const newest = this.core.newestFence(lease.threadId);
      if (lease.fence < newest) throw fenced(lease, newest);
    } catch (e) {
      return Promise.reject(e as Error);
    }
    // Checked and started in one synchronous step: the store orders appends in call order.
    return this.core.store.append(lease.threadId, records);
  }

  close(): Promise<void> {
    this.closed = true;
    return Promise.resolve();
  }

  private check(): void {
    if (this.closed) throw new SharedStateError('STATE_UNAVAILABLE', 'The shared state is closed.');
  }

  private run<T>(work: () => T): Promise<T> {
    try {
      this.check();
      return Promise.resolve(work());
    } catch (e) {
      return Promise.reject(e as Error);
    }
  }
}

export function fenced(lease: Lease, newest: number): SharedStateError {
  return new SharedStateError('STORE_FENCED', `This replica's lease on the thread (fence ${lease.fence}) was superseded (fence ${newest}); the append was refused.`);
}
