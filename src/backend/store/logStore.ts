/**
 * The durable store: one append-only log per thread in `<dataDir>/threads/`, binary content in
 * `<dataDir>/blobs/<thread>/`. One file per thread rather than one shared log: deleting a thread is
 * one unlink (no compaction, no rewriting of other threads), a torn tail can only touch the thread
 * that was being written, and loading a thread reads only its own file.
 *
 * An append writes every frame of the call in one write, then fdatasync, and only then resolves;
 * a new file's folder is synced too, so the file itself survives the crash. Before the first append
 * in this process, the file is scanned and a torn tail cut off, so new frames never follow garbage.
 * File names are a digest of the thread id (ids come from the peer and are never paths); the first
 * frame of a file names its thread. Files are 0600 and opened without following links. Past the
 * quota (diskQuota.ts) the least recently written threads are forgotten after an append.
 *
 * Several processes may share the folder (the bundled backends of two VS Code windows): a run takes
 * the thread's writer lease first (threadLease.ts), and a thread another process wrote since this
 * one last read or wrote it is reported stale, so the agent reloads it before going on.
 */
import { createHash, randomBytes } from 'node:crypto';
import * as fsSync from 'node:fs';
import * as fs from 'node:fs/promises';
import * as path from 'node:path';
import type { Logger } from '../log';
import type { ConversationStore, StoredRecord, StoredThread, ThreadLease, ThreadSummary } from './conversationStore';
import { foldRecords, StoreError } from './conversationStore';
import { ensurePrivateFolder } from './dataFolder';
import { DEFAULT_DISK_QUOTA, DiskQuota, type DiskQuotaLimits } from './diskQuota';
import type { BlobContent, DiskRecord } from './diskRecord';
import { fromDiskRecord, parseDiskRecord, toDiskRecord } from './diskRecord';
import { encodeFrame, MAX_RECORD_BYTES, scanFrames } from './recordFrame';
import { FolderLeases } from './threadLease';

/** A thread file larger than this is not loaded (a warning says so) rather than read into memory. */
export const MAX_THREAD_FILE_BYTES = 256 * 1024 * 1024;

const NOFOLLOW = fsSync.constants.O_NOFOLLOW ?? 0;
const NONBLOCK = fsSync.constants.O_NONBLOCK ?? 0;
const READ_FLAGS = fsSync.constants.O_RDONLY | NOFOLLOW | NONBLOCK;
const REPAIR_FLAGS = fsSync.constants.O_RDWR | NOFOLLOW | NONBLOCK;
const APPEND_FLAGS = fsSync.constants.O_WRONLY | fsSync.constants.O_APPEND | fsSync.constants.O_CREAT | NOFOLLOW;
const CREATE_FLAGS = fsSync.constants.O_WRONLY | fsSync.constants.O_CREAT | fsSync.constants.O_EXCL | NOFOLLOW;

export class LogStore implements ConversationStore {
  private readonly threadsDir: string;
  private readonly blobsDir: string;
  private readonly leasesDir: string;
  /** Per thread (by file key), the tail of its chain of operations: one at a time per thread, in call order. */
  private readonly queues = new Map<string, Promise<unknown>>();
  private readonly quota: DiskQuota;
  /** The tail of the chain of quota checks: one at a time, so two appends never pick the same victims twice. */
  private enforcing: Promise<void> = Promise.resolve();
  /**
   * Thread files whose tail was checked in this process, with their size after the last append
   * (none: measured at the next append). Only threads with a file: a thread this process removes
   * or finds missing has no entry, so neither map grows with thread ids a client names or the
   * quota forgets.
   */
  private readonly sizes = new Map<string, number>();
  /**
   * Each thread file's size when this process last read or wrote it (none: no file then): a
   * different size means another process wrote it.
   */
  private readonly seen = new Map<string, number>();
  private readonly leases: FolderLeases;
  private closed = false;

  private constructor(
    readonly dataDir: string,
    private readonly log: Logger,
    limits: DiskQuotaLimits,
  ) {
    this.threadsDir = path.join(dataDir, 'threads');
    this.blobsDir = path.join(dataDir, 'blobs');
    this.leasesDir = path.join(dataDir, 'leases');
    this.quota = new DiskQuota(limits);
    this.leases = new FolderLeases(this.leasesDir);
  }

  /**
   * Opens (creating) the store in `dataDir` and measures what it holds; throws a `StoreError` when
   * the folder is not safe to use.
   */
  static async open(dataDir: string, log: Logger, limits: Partial<DiskQuotaLimits> = {}): Promise<LogStore> {
    const store = new LogStore(path.resolve(dataDir), log, { ...DEFAULT_DISK_QUOTA, ...limits });
    await ensurePrivateFolder(store.dataDir);
    await ensurePrivateFolder(store.threadsDir);
    await ensurePrivateFolder(store.blobsDir);
    await ensurePrivateFolder(store.leasesDir);
    await store.measure();
    return store;
  }

  /** Thread files this process keeps bookkeeping for (at most the threads with a file it touched). */
  get tracked(): number {
    return Math.max(this.sizes.size, this.seen.size);
  }

  /** Threads and bytes held now, for the quota. */
  get held(): { threads: number; bytes: number } {
    return { threads: this.quota.threads, bytes: this.quota.bytes };
  }

  async append(threadId: string, records: readonly StoredRecord[]): Promise<void> {
    // Copied now: the agent goes on shrinking its history in place while the write waits its turn.
    const copies = structuredClone(records);
    await this.serial(threadId, async () => {
      const key = fileKey(threadId);
      const file = this.threadFile(key);
      let size = this.sizes.get(key);
      if (size === undefined) size = await this.repairTail(threadId, file);
      // Deleted by another process since (a reset in another window): the thread starts over.
      else if (size > 0 && !(await exists(file))) size = 0;
      const disk: DiskRecord[] = size === 0 ? [{ kind: 'thread', threadId, createdAt: Date.now() }] : [];
      for (const r of copies) disk.push(await toDiskRecord(r, (bytes) => this.putBlob(key, bytes)));
      const data = Buffer.concat(disk.map((r) => encodeFrame(Buffer.from(JSON.stringify(r), 'utf8'))));
      const handle = await openRefusingLinks(file, APPEND_FLAGS, 0o600);
      try {
        await writeAll(handle, data);
        await handle.datasync();
      } finally {
        await handle.close();
      }
      if (size === 0) await syncFolder(this.threadsDir);
      this.sizes.set(key, size + data.length);
      this.seen.set(key, size + data.length);
      this.quota.add(key, data.length, Date.now());
    });
    // Outside the thread's turn: forgetting another thread waits for that thread's own turn.
    await this.enforceQuota(fileKey(threadId));
  }

  load(threadId: string): Promise<StoredThread | undefined> {
    return this.serial(threadId, async () => {
      const key = fileKey(threadId);
      const read = await this.readThread(threadId, this.threadFile(key));
      if (!read) {
        this.seen.delete(key);
        return undefined;
      }
      this.seen.set(key, read.size);
      const records: StoredRecord[] = [];
      for (const r of read.records) records.push(await fromDiskRecord(r, (ref) => this.getBlob(key, ref)));
      return foldRecords(threadId, records);
    });
  }

  async list(): Promise<ThreadSummary[]> {
    this.checkOpen();
    const out: ThreadSummary[] = [];
    for (const name of await fs.readdir(this.threadsDir)) {
      if (!/^[0-9a-f]{40}\.log$/.test(name)) continue;
      const file = path.join(this.threadsDir, name);
      try {
        const header = await this.readHeader(file);
        if (header) out.push(header);
      } catch (e) {
        this.log.warn(`conversation store: skipped ${name}: ${describe(e)}`);
      }
    }
    return out.sort((a, b) => b.updatedAt - a.updatedAt);
  }

  delete(threadId: string): Promise<void> {
    return this.serial(threadId, async () => {
      const key = fileKey(threadId);
      await this.remove(key);
      await syncFolder(this.threadsDir);
    });
  }

  /**
   * Takes the thread's writer lease for a run, in the thread's turn (after the writes already asked
   * for); undefined while another process holds it. Its release waits for the writes asked for
   * before it, so a run's last record lands inside its lease.
   */
  leaseThread(threadId: string): Promise<ThreadLease | undefined> {
    return this.serial(threadId, async () => {
      const key = fileKey(threadId);
      const held = await this.leases.take(key);
      if (!held) return undefined;
      const now = (await fs.lstat(this.threadFile(key)).catch(() => undefined))?.size ?? 0;
      const stale = (this.seen.get(key) ?? 0) !== now;
      // Written elsewhere: the next append measures the file again instead of trusting its last size.
      if (stale) this.sizes.delete(key);
      this.seen.set(key, now);
      return {
        stale,
        release: () => (this.closed ? held.release() : this.serialByKey(key, () => held.release())).catch((e: unknown) => this.log.warn(`conversation store: a thread lease could not be released (it expires by itself): ${describe(e)}`)),
      };
    });
  }

  async close(): Promise<void> {
    this.closed = true;
    await Promise.allSettled([...this.queues.values()]);
    await this.leases.releaseAll();
  }

  private threadFile(key: string): string {
    return path.join(this.threadsDir, `${key}.log`);
  }

  private checkOpen(): void {
    if (this.closed) throw new StoreError('STORE_CLOSED', 'The conversation store is closed.');
  }

  private serial<T>(threadId: string, work: () => Promise<T>): Promise<T> {
    return this.serialByKey(fileKey(threadId), work);
  }

  private serialByKey<T>(key: string, work: () => Promise<T>): Promise<T> {
    try {
      this.checkOpen();
    } catch (e) {
      return Promise.reject(e as Error);
    }
    const previous = this.queues.get(key) ?? Promise.resolve();
    const next = previous.then(work, work);
    const tail = next.catch(() => undefined);
    this.queues.set(key, tail);
    void tail.then(() => {
      if (this.queues.get(key) === tail) this.queues.delete(key);
    });
    return next;
  }

  /** Removes a thread's log and binary content (in its turn). */
  private async remove(key: string): Promise<void> {
    await fs.rm(this.threadFile(key), { force: true });
    await fs.rm(path.join(this.blobsDir, key), { recursive: true, force: true });
    this.sizes.delete(key);
    this.seen.delete(key);
    this.quota.forget(key);
  }

  /** Forgets the least recently written threads while the store holds more than its quota. */
  private enforceQuota(keep: string): Promise<void> {
    const run = async () => {
      const victims = this.quota.victims(keep);
      if (victims.length === 0) return;
      for (const key of victims) await this.serialByKey(key, () => this.remove(key));
      await syncFolder(this.threadsDir);
      const { maxThreads, maxBytes } = this.quota.limits;
      this.log.info(`conversation store: forgot ${victims.length} least recently written thread(s) to stay within ${maxThreads} threads and ${maxBytes} bytes`);
    };
    this.enforcing = this.enforcing.then(run, run);
    return this.enforcing;
  }

  /** What the folder holds per thread: the log's size and time, and its binary content. */
  private async measure(): Promise<void> {
    for (const name of await fs.readdir(this.threadsDir)) {
      const match = /^([0-9a-f]{40})\.log$/.exec(name);
      if (!match) continue;
      try {
        const st = await fs.lstat(path.join(this.threadsDir, name));
        if (st.isFile()) this.quota.set(match[1], st.size + (await this.blobBytes(match[1])), st.mtimeMs);
      } catch {
        // Gone since the listing: nothing to count.
      }
    }
  }

  private async blobBytes(key: string): Promise<number> {
    let names: string[];
    try {
      names = await fs.readdir(path.join(this.blobsDir, key));
    } catch {
      return 0;
    }
    let bytes = 0;
    for (const name of names) {
      const st = await fs.lstat(path.join(this.blobsDir, key, name)).catch(() => undefined);
      if (st?.isFile()) bytes += st.size;
    }
    return bytes;
  }

  /** Cuts a torn or unreadable tail off the thread's file; returns the size left (0: none or emptied). */
  private async repairTail(threadId: string, file: string): Promise<number> {
    let handle: fs.FileHandle;
    try {
      handle = await openRefusingLinks(file, REPAIR_FLAGS);
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code === 'ENOENT') return 0;
      throw e;
    }
    try {
      const st = await handle.stat();
      if (!st.isFile()) throw new StoreError('STORE_UNSAFE', `${file} is not a regular file.`);
      let first = true;
      const scan = await scanFrames(handle, st.size, (payload) => {
        const record = parseDiskRecord(payload);
        const ok = first ? record?.kind === 'thread' && record.threadId === threadId : record !== undefined && record.kind !== 'thread';
        first = false;
        return ok;
      });
      if (scan.goodEnd < st.size) {
        this.log.warn(`conversation store: dropped ${st.size - scan.goodEnd} bytes at the end of a thread file (${scan.problem ?? 'unreadable'})`);
        await handle.truncate(scan.goodEnd);
        await handle.sync();
      }
      return scan.goodEnd;
    } finally {
      await handle.close();
    }
  }

  /** The thread's records, or undefined (with a warning when a file was there but unusable). */
  private async readThread(threadId: string, file: string): Promise<{ records: Exclude<DiskRecord, { kind: 'thread' }>[]; size: number } | undefined> {
    let handle: fs.FileHandle;
    try {
      handle = await openRefusingLinks(file, READ_FLAGS);
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
      this.log.warn(`conversation store: a thread was not loaded: ${describe(e)}`);
      return undefined;
    }
    try {
      const st = await handle.stat();
      if (!st.isFile()) {
        this.log.warn(`conversation store: a thread was not loaded: ${file} is not a regular file`);
        return undefined;
      }
      if (st.size > MAX_THREAD_FILE_BYTES) {
        this.log.warn(`conversation store: a thread was not loaded: its file holds ${st.size} bytes, over the ${MAX_THREAD_FILE_BYTES}-byte cap`);
        return undefined;
      }
      let header: DiskRecord | undefined;
      const records: Exclude<DiskRecord, { kind: 'thread' }>[] = [];
      const scan = await scanFrames(handle, st.size, (payload) => {
        const record = parseDiskRecord(payload);
        if (!header) {
          header = record;
          return record?.kind === 'thread' && record.threadId === threadId;
        }
        if (!record || record.kind === 'thread') return false;
        records.push(record);
        return true;
      });
      if (scan.problem) this.log.warn(`conversation store: a thread file ends in ${st.size - scan.goodEnd} unreadable bytes (${scan.problem}); they were not loaded`);
      if (header?.kind !== 'thread' || header.threadId !== threadId) return undefined;
      return { records, size: st.size };
    } finally {
      await handle.close();
    }
  }

  private async readHeader(file: string): Promise<ThreadSummary | undefined> {
    const handle = await openRefusingLinks(file, READ_FLAGS);
    try {
      const st = await handle.stat();
      if (!st.isFile()) throw new StoreError('STORE_UNSAFE', 'not a regular file');
      let header: DiskRecord | undefined;
      await scanFrames(handle, st.size, (payload) => {
        header = parseDiskRecord(payload);
        return false;
      });
      if (header?.kind !== 'thread') throw new StoreError('STORE_CORRUPT', 'its first record does not name a thread');
      return { threadId: header.threadId, updatedAt: st.mtimeMs };
    } finally {
      await handle.close();
    }
  }

  /** Writes the bytes once per thread under their digest (temporary file, fsync, rename); returns the digest. */
  private async putBlob(key: string, bytes: Uint8Array): Promise<string> {
    if (bytes.byteLength > MAX_RECORD_BYTES) throw new StoreError('STORE_TOO_LARGE', `binary content of ${bytes.byteLength} bytes is over the ${MAX_RECORD_BYTES}-byte cap`);
    const digest = createHash('sha256').update(bytes).digest('hex');
    const dir = path.join(this.blobsDir, key);
    const target = path.join(dir, digest);
    if (await this.getBlob(key, { byteLength: bytes.byteLength, blob: digest })) return digest;
    await ensurePrivateFolder(dir);
    const temporary = path.join(dir, `${digest}.${randomBytes(6).toString('hex')}.tmp`);
    const handle = await openRefusingLinks(temporary, CREATE_FLAGS, 0o600);
    try {
      await writeAll(handle, bytes);
      await handle.datasync();
    } finally {
      await handle.close();
    }
    await fs.rename(temporary, target);
    await syncFolder(dir);
    this.quota.add(key, bytes.byteLength, Date.now());
    return digest;
  }

  /** The blob's bytes when they are there, the right size and match their digest; else undefined. */
  private async getBlob(key: string, ref: Pick<BlobContent, 'byteLength' | 'blob'>): Promise<Uint8Array<ArrayBuffer> | undefined> {
    let handle: fs.FileHandle;
    try {
      handle = await openRefusingLinks(path.join(this.blobsDir, key, ref.blob), READ_FLAGS);
    } catch {
      return undefined;
    }
    try {
      const st = await handle.stat();
      if (!st.isFile() || st.size !== ref.byteLength || st.size > MAX_RECORD_BYTES) return undefined;
      const bytes = await handle.readFile();
      return createHash('sha256').update(bytes).digest('hex') === ref.blob ? new Uint8Array(bytes) : undefined;
    } finally {
      await handle.close();
    }
  }
}

/** The file name of a thread: a digest, since ids are the peer's text. */
export function fileKey(threadId: string): string {
  return createHash('sha256').update(threadId, 'utf8').digest('hex').slice(0, 40);
}

async function exists(file: string): Promise<boolean> {
  return (await fs.lstat(file).catch(() => undefined)) !== undefined;
}

async function openRefusingLinks(file: string, flags: number, mode?: number): Promise<fs.FileHandle> {
  try {
    return await fs.open(file, flags, mode);
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'ELOOP') throw new StoreError('STORE_UNSAFE', `${path.basename(file)} is a symbolic link, which is never followed.`);
    throw e;
  }
}

async function writeAll(handle: fs.FileHandle, data: Uint8Array): Promise<void> {
  let done = 0;
  while (done < data.length) {
    const { bytesWritten } = await handle.write(data, done, data.length - done);
    done += bytesWritten;
  }
}

/** Makes a new or removed name in `dir` durable; folders cannot be opened for sync on Windows. */
async function syncFolder(dir: string): Promise<void> {
  let handle: fs.FileHandle | undefined;
  try {
    handle = await fs.open(dir, 'r');
    await handle.sync();
  } catch {
    // Best effort where the platform has no folder sync.
  } finally {
    await handle?.close();
  }
}

function describe(e: unknown): string {
  return e instanceof Error ? e.message : String(e);
}
