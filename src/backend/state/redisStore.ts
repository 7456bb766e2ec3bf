/**
 * The conversation store in Redis, so every replica reads the thread another one wrote. Per thread
 * (keys named by a digest of its id, which is the peer's text):
 *   `<prefix>thread:{<key>}:log`   a list, one JSON record per entry (the log store's record shape)
 *   `<prefix>thread:{<key>}:blobs` a hash of binary content by SHA-256, stored as raw bytes
 *   `<prefix>thread:{<key>}:meta`  the thread id, its size in bytes, when it was last written
 * and `<prefix>threads`, a sorted set of thread ids by last write, for `list`.
 *
 * One append is one script: the fence check, the size check, the records and their blobs land
 * together or not at all, in the order appends were called (one connection keeps the order). Every
 * append renews the thread's time to live; a thread nobody writes for `threadTtlMs` goes. A thread is
 * capped at `maxThreadBytes`: an append past it is refused, and a load sums lengths inside Redis
 * before anything is sent, so one thread can never make a replica read an unbounded amount.
 */
import { createHash } from 'node:crypto';
import type { Logger } from '../log';
import type { ConversationStore, StoredRecord, StoredThread, ThreadSummary } from '../store/conversationStore';
import { foldRecords, StoreError } from '../store/conversationStore';
import type { BlobContent, DiskRecord } from '../store/diskRecord';
import { fromDiskRecord, parseDiskRecord } from '../store/diskRecord';
import { MAX_RECORD_BYTES } from '../store/recordFrame';
import type { ScriptedRedis } from './redisConnection';
import { guarded, keyOf } from './redisConnection';

export const DEFAULT_MAX_THREAD_BYTES = 256 * 1024 * 1024;
export const DEFAULT_THREAD_TTL_MS = 30 * 24 * 60 * 60 * 1000;
/** `list` returns at most this many threads, newest first. */
export const MAX_LISTED_THREADS = 10_000;

export interface RedisStoreOptions {
  prefix: string;
  maxThreadBytes?: number;
  threadTtlMs?: number;
  log: Logger;
}

export class RedisStore implements ConversationStore {
  private readonly maxThreadBytes: number;
  private readonly threadTtlMs: number;
  private readonly pending = new Set<Promise<unknown>>();
  private closed = false;

  constructor(
    private readonly redis: ScriptedRedis,
    private readonly o: RedisStoreOptions,
  ) {
    this.maxThreadBytes = o.maxThreadBytes ?? DEFAULT_MAX_THREAD_BYTES;
    this.threadTtlMs = o.threadTtlMs ?? DEFAULT_THREAD_TTL_MS;
  }

  append(threadId: string, records: readonly StoredRecord[]): Promise<void> {
    return this.appendUnder(threadId, records, 0);
  }

  /** Appends unless `fence` (> 0) is older than the thread's newest fence (`STORE_FENCED`). */
  appendUnder(threadId: string, records: readonly StoredRecord[], fence: number): Promise<void> {
    return this.track(async () => {
      // Serialised now: the caller may change its messages while the command is under way.
      const blobs = new Map<string, Uint8Array>();
      const lines = records.map((r) => JSON.stringify(toRedisRecord(r, blobs)));
      const k = this.keys(threadId);
      const blobArgs = [...blobs].flatMap(([digest, bytes]) => [digest, Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength)]);
      await guarded(() => this.redis.ctAppend(k.fence, k.log, k.blobs, k.meta, this.index, fence, this.maxThreadBytes, this.threadTtlMs, threadId, lines.length, ...lines, ...blobArgs));
    });
  }

  load(threadId: string): Promise<StoredThread | undefined> {
    return this.track(async () => {
      const k = this.keys(threadId);
      const read = await guarded(() => this.redis.ctLoad(k.log, k.meta, this.maxThreadBytes));
      // A digest shared by two ids, or a record someone else wrote: not this thread.
      if (!read || read[0] !== threadId) return undefined;
      const disk: Exclude<DiskRecord, { kind: 'thread' }>[] = [];
      for (const line of read.slice(1)) {
        const record = parseDiskRecord(Buffer.from(line, 'utf8'));
        if (!record || record.kind === 'thread') {
          this.o.log.warn(`conversation store: a thread in Redis holds an unreadable record; the ${read.length - 1 - disk.length} records from it on were not loaded`);
          break;
        }
        disk.push(record);
      }
      const blobs = await this.loadBlobs(k.blobs, disk);
      const records: StoredRecord[] = [];
      for (const r of disk) records.push(await fromDiskRecord(r, (ref) => Promise.resolve(checkedBlob(blobs.get(ref.blob), ref))));
      return foldRecords(threadId, records);
    });
  }

  list(): Promise<ThreadSummary[]> {
    return this.track(async () => {
      const flat = await guarded(() => this.redis.zrevrange(this.index, 0, MAX_LISTED_THREADS - 1, 'WITHSCORES'));
      const all: ThreadSummary[] = [];
      for (let i = 0; i + 1 < flat.length; i += 2) all.push({ threadId: flat[i], updatedAt: Number(flat[i + 1]) });
      if (all.length === 0) return all;
      // The index outlives threads that expired; those are dropped from it here.
      const exists = await guarded(() => Promise.all(all.map((t) => this.redis.exists(this.keys(t.threadId).meta))));
      const gone = all.filter((_, i) => exists[i] === 0).map((t) => t.threadId);
      if (gone.length > 0) await guarded(() => this.redis.zrem(this.index, ...gone));
      return all.filter((_, i) => exists[i] === 1);
    });
  }

  delete(threadId: string): Promise<void> {
    return this.track(async () => {
      const k = this.keys(threadId);
      // The fence key stays: a stale holder must not write the thread back after it was deleted.
      await guarded(() => this.redis.multi().del(k.log, k.blobs, k.meta).zrem(this.index, threadId).exec());
    });
  }

  async close(): Promise<void> {
    this.closed = true;
    // The connection belongs to the shared state, which closes it after this.
    await Promise.allSettled([...this.pending]);
  }

  /** The keys of a thread (the fence and lease keys too, which the shared state uses). */
  keys(threadId: string): { log: string; blobs: string; meta: string; fence: string; lease: string } {
    const key = keyOf(threadId);
    const p = this.o.prefix;
    return { log: `${p}thread:{${key}}:log`, blobs: `${p}thread:{${key}}:blobs`, meta: `${p}thread:{${key}}:meta`, fence: `${p}fence:{${key}}`, lease: `${p}lease:{${key}}` };
  }

  get threadTtl(): number {
    return this.threadTtlMs;
  }

  private get index(): string {
    return `${this.o.prefix}threads`;
  }

  private async loadBlobs(key: string, records: readonly DiskRecord[]): Promise<Map<string, Buffer>> {
    const digests = new Set<string>();
    for (const r of records) if (r.kind === 'message' && r.message.role === 'tool') for (const c of r.message.content) if (c.type === 'binary') digests.add(c.blob);
    const found = new Map<string, Buffer>();
    if (digests.size === 0) return found;
    const list = [...digests];
    const bytes = await guarded(() => this.redis.ctLoadBlobsBuffer(key, this.maxThreadBytes, ...list));
    list.forEach((d, i) => {
      const b = bytes[i];
      if (b) found.set(d, b);
    });
    return found;
  }

  private track<T>(work: () => Promise<T>): Promise<T> {
    if (this.closed) return Promise.reject(new StoreError('STORE_CLOSED', 'The conversation store is closed.'));
    const p = work();
    this.pending.add(p);
    void p.then(
      () => this.pending.delete(p),
      () => this.pending.delete(p),
    );
    return p;
  }
}

/** The record as Redis keeps it: binary content swapped for its digest, the bytes put in `blobs`. */
function toRedisRecord(record: StoredRecord, blobs: Map<string, Uint8Array>): DiskRecord {
  if (record.kind !== 'message') return record;
  if (record.message.role !== 'tool') return { kind: 'message', message: record.message };
  const content = record.message.content.map((c) => {
    if (c.type !== 'binary') return c;
    if (c.bytes.byteLength > MAX_RECORD_BYTES) throw new StoreError('STORE_TOO_LARGE', `binary content of ${c.bytes.byteLength} bytes is over the ${MAX_RECORD_BYTES}-byte cap`);
    const blob = createHash('sha256').update(c.bytes).digest('hex');
    blobs.set(blob, c.bytes);
    return { type: 'binary' as const, mimeType: c.mimeType, ...(c.filename !== undefined ? { filename: c.filename } : {}), byteLength: c.bytes.byteLength, blob };
  });
  return { kind: 'message', message: { ...record.message, content } };
}

/** The bytes when they are the size and digest the record says; else undefined (a placeholder says so). */
function checkedBlob(bytes: Buffer | undefined, ref: BlobContent): Uint8Array<ArrayBuffer> | undefined {
  if (!bytes || bytes.byteLength !== ref.byteLength) return undefined;
  if (createHash('sha256').update(bytes).digest('hex') !== ref.blob) return undefined;
  return new Uint8Array(bytes);
}
