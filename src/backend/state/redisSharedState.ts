/**
 * The shared state in Redis (`--redis`): every replica connected to the same Redis (and prefix)
 * sees the same sessions, calls, leases and threads. Keys, all under `prefix` (default `ct:`):
 *   `session:<id>`         the session record (JSON), expiring with the session's grace
 *   `call:<requestId>`     a hash: the call record (JSON), its session, its outcome once settled
 *   `calls:<sessionId>`    a sorted set of the session's call keys in the order they were recorded
 *   `callseq`              the counter that orders them
 *   `lease:{<thread>}`     a hash: holder and fence, expiring with the lease
 *   `fences`               the one fence counter (never expires: a fence is never handed out twice)
 *   `fence:{<thread>}`     the thread's newest fence, kept as long as the thread
 * and the conversation store's keys (redisStore.ts). Records read back are parsed with a schema:
 * Redis is input like any other, and a record that does not parse is as good as absent.
 */
import * as os from 'node:os';
import { z } from 'zod';
import type { Logger } from '../log';
import { silentLogger } from '../log';
import type { StoredRecord } from '../store/conversationStore';
import type { RedisConnectionOptions, ScriptedRedis } from './redisConnection';
import { closeRedis, connectRedis, guarded } from './redisConnection';
import { RedisStore } from './redisStore';
import type { CallRecord, Lease, SessionRecord, SharedState } from './sharedState';
import { SharedStateError } from './sharedState';

/** `callsOf` returns at most this many calls, oldest first. */
export const MAX_LISTED_CALLS = 10_000;

export interface RedisSharedStateOptions extends RedisConnectionOptions {
  /** Every key starts with it (default `ct:`), so several deployments can share one Redis. */
  prefix?: string;
  /** This replica's name in records and leases (default: host name and process id). */
  replica?: string;
  /** A thread's byte cap in Redis (default 256 MiB). */
  maxThreadBytes?: number;
  /** Milliseconds a thread nobody writes is kept (default 30 days). */
  threadTtlMs?: number;
  log?: Logger;
}

const SessionSchema = z.object({
  sessionId: z.string(),
  secretDigest: z.string(),
  owner: z.string(),
  createdAt: z.number(),
  replica: z.string(),
});

const CallSchema = z.object({
  requestId: z.string(),
  sessionId: z.string(),
  threadId: z.string().optional(),
  runId: z.string().optional(),
  request: z.string(),
});

export class RedisSharedState implements SharedState {
  readonly store: RedisStore;
  private closed = false;

  private constructor(
    private readonly redis: ScriptedRedis,
    readonly replica: string,
    private readonly prefix: string,
    private readonly log: Logger,
    options: RedisSharedStateOptions,
  ) {
    this.store = new RedisStore(redis, { prefix, maxThreadBytes: options.maxThreadBytes, threadTtlMs: options.threadTtlMs, log });
  }

  /** Connects (rejecting with `STATE_UNAVAILABLE` when Redis cannot be reached within the connect timeout). */
  static async connect(o: RedisSharedStateOptions): Promise<RedisSharedState> {
    const log = o.log ?? silentLogger;
    const redis = await connectRedis({ ...o, log });
    return new RedisSharedState(redis, o.replica ?? defaultReplicaName(), o.prefix ?? 'ct:', log, o);
  }

  putSession(record: SessionRecord, ttlMs: number): Promise<void> {
    return this.op(async () => {
      await this.redis.set(this.key('session', record.sessionId), JSON.stringify(record), 'PX', wholeMs(ttlMs));
    });
  }

  getSession(sessionId: string): Promise<SessionRecord | undefined> {
    return this.op(async () => {
      const text = await this.redis.get(this.key('session', sessionId));
      if (text === null) return undefined;
      const parsed = SessionSchema.safeParse(safeJson(text));
      if (parsed.success && parsed.data.sessionId === sessionId) return parsed.data;
      this.log.warn('shared state: a session record in Redis does not parse; treated as absent');
      return undefined;
    });
  }

  deleteSession(sessionId: string): Promise<void> {
    return this.op(async () => {
      await this.redis.del(this.key('session', sessionId));
    });
  }

  putCall(record: CallRecord, ttlMs: number): Promise<void> {
    return this.op(async () => {
      const { outcome, ...rest } = record;
      const key = this.key('call', record.requestId);
      await this.redis.ctPutCall(key, this.key('calls', record.sessionId), this.key('callseq'), JSON.stringify(rest), record.sessionId, wholeMs(ttlMs));
      if (outcome !== undefined) await this.redis.ctSettleCall(key, outcome);
    });
  }

  settleCall(requestId: string, outcome: string): Promise<boolean> {
    return this.op(async () => (await this.redis.ctSettleCall(this.key('call', requestId), outcome)) === 1);
  }

  callsOf(sessionId: string): Promise<CallRecord[]> {
    return this.op(async () => {
      const index = this.key('calls', sessionId);
      const keys = await this.redis.zrange(index, 0, MAX_LISTED_CALLS - 1);
      if (keys.length === 0) return [];
      const rows = await Promise.all(keys.map((k) => this.redis.hmget(k, 'record', 'outcome')));
      const calls: CallRecord[] = [];
      const gone: string[] = [];
      rows.forEach(([text, outcome], i) => {
        const parsed = text === null ? undefined : CallSchema.safeParse(safeJson(text));
        if (!parsed?.success || parsed.data.sessionId !== sessionId) return void gone.push(keys[i]);
        calls.push({ ...parsed.data, threadId: parsed.data.threadId, runId: parsed.data.runId, outcome: outcome ?? undefined });
      });
      // Calls that expired leave their place in the index behind; it is tidied here.
      if (gone.length > 0) await this.redis.zrem(index, ...gone);
      return calls;
    });
  }

  deleteCall(requestId: string): Promise<void> {
    return this.op(async () => {
      await this.redis.ctDeleteCall(this.key('call', requestId), `${this.key('calls')}:`);
    });
  }

  acquireLease(threadId: string, ttlMs: number, renewing?: Lease): Promise<Lease | undefined> {
    return this.op(async () => {
      const k = this.store.keys(threadId);
      const granted = await this.redis.ctAcquireLease(k.lease, this.key('fences'), k.fence, this.replica, wholeMs(ttlMs), this.store.threadTtl, renewing?.holder === this.replica ? renewing.fence : 0);
      if (!granted) return undefined;
      return { threadId, holder: this.replica, fence: Number(granted[0]), expiresAt: Number(granted[1]) };
    });
  }

  releaseLease(lease: Lease): Promise<void> {
    return this.op(async () => {
      await this.redis.ctReleaseLease(this.store.keys(lease.threadId).lease, this.replica, lease.fence);
    });
  }

  appendFenced(lease: Lease, records: readonly StoredRecord[]): Promise<void> {
    if (this.closed) return Promise.reject(closedError());
    return this.store.appendUnder(lease.threadId, records, lease.fence);
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    await this.store.close();
    await closeRedis(this.redis);
  }

  private key(kind: string, id = ''): string {
    return `${this.prefix}${kind}${id ? `:${id}` : ''}`;
  }

  private op<T>(work: () => Promise<T>): Promise<T> {
    if (this.closed) return Promise.reject(closedError());
    return guarded(work);
  }
}

function closedError(): SharedStateError {
  return new SharedStateError('STATE_UNAVAILABLE', 'The shared state is closed.');
}

/** Redis takes whole milliseconds, at least one. */
function wholeMs(ms: number): number {
  return Math.max(1, Math.ceil(ms));
}

function safeJson(text: string): unknown {
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return undefined;
  }
}

function defaultReplicaName(): string {
  return `${os.hostname()}-${process.pid}`;
}
