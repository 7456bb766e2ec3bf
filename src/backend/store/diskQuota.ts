/**
 * What the durable store holds on disk, per thread, and which threads to forget when it holds too
 * much. Thread ids come from clients, so without a bound a client could fill the disk with new
 * threads; past `maxThreads` or `maxBytes` the least recently written threads are forgotten, as the
 * memory store forgets past its cap. The thread just written is never the one forgotten.
 */

export interface DiskQuotaLimits {
  /** Threads kept in the data folder. */
  maxThreads: number;
  /** Bytes of thread logs and their binary content together. */
  maxBytes: number;
}

export const DEFAULT_DISK_QUOTA: DiskQuotaLimits = { maxThreads: 5_000, maxBytes: 4 * 1024 * 1024 * 1024 };

interface Usage {
  bytes: number;
  /** Milliseconds since the epoch of the last write. */
  writtenAt: number;
}

export class DiskQuota {
  private readonly usage = new Map<string, Usage>();
  private total = 0;

  constructor(readonly limits: DiskQuotaLimits) {}

  /** Sets what a thread holds (from a scan of the folder, or after a write). */
  set(key: string, bytes: number, writtenAt: number): void {
    this.total += bytes - (this.usage.get(key)?.bytes ?? 0);
    // Re-inserted, so the map's order stays the order of writes for threads written in this process.
    this.usage.delete(key);
    this.usage.set(key, { bytes, writtenAt });
  }

  /** Adds bytes written to a thread now. */
  add(key: string, bytes: number, now: number): void {
    this.set(key, (this.usage.get(key)?.bytes ?? 0) + bytes, now);
  }

  forget(key: string): void {
    const u = this.usage.get(key);
    if (!u) return;
    this.total -= u.bytes;
    this.usage.delete(key);
  }

  get bytes(): number {
    return this.total;
  }

  get threads(): number {
    return this.usage.size;
  }

  /** The threads to forget, least recently written first, so that the rest fits; never `keep`. */
  victims(keep: string): string[] {
    let threads = this.usage.size;
    let bytes = this.total;
    if (threads <= this.limits.maxThreads && bytes <= this.limits.maxBytes) return [];
    const oldestFirst = [...this.usage.entries()].filter(([key]) => key !== keep).sort((a, b) => a[1].writtenAt - b[1].writtenAt);
    const out: string[] = [];
    for (const [key, u] of oldestFirst) {
      if (threads <= this.limits.maxThreads && bytes <= this.limits.maxBytes) break;
      out.push(key);
      threads--;
      bytes -= u.bytes;
    }
    return out;
  }
}
