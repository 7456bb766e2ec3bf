/**
 * The store used when no data folder is given: threads live as long as the process, so a session
 * that ended (or an evicted thread) can still be continued, and nothing touches the disk. Bounded:
 * past `maxThreads` the least recently written thread is forgotten.
 */
import type { ConversationStore, StoredRecord, StoredThread, ThreadSummary } from './conversationStore';
import { foldRecords } from './conversationStore';

export const DEFAULT_MEMORY_THREADS = 256;

interface Entry {
  records: StoredRecord[];
  updatedAt: number;
}

export class MemoryStore implements ConversationStore {
  private readonly threads = new Map<string, Entry>();

  constructor(private readonly maxThreads = DEFAULT_MEMORY_THREADS) {}

  append(threadId: string, records: readonly StoredRecord[]): Promise<void> {
    const entry = this.threads.get(threadId) ?? { records: [], updatedAt: 0 };
    // A copy: the agent shrinks its own history in place, the store keeps what was appended.
    entry.records.push(...records.map((r) => structuredClone(r)));
    entry.updatedAt = Date.now();
    this.threads.delete(threadId);
    this.threads.set(threadId, entry);
    while (this.threads.size > this.maxThreads) {
      const oldest = this.threads.keys().next().value;
      if (oldest === undefined) break;
      this.threads.delete(oldest);
    }
    return Promise.resolve();
  }

  load(threadId: string): Promise<StoredThread | undefined> {
    const entry = this.threads.get(threadId);
    return Promise.resolve(entry ? foldRecords(threadId, entry.records.map((r) => structuredClone(r))) : undefined);
  }

  list(): Promise<ThreadSummary[]> {
    const all = [...this.threads].map(([threadId, e]) => ({ threadId, updatedAt: e.updatedAt }));
    return Promise.resolve(all.reverse());
  }

  delete(threadId: string): Promise<void> {
    this.threads.delete(threadId);
    return Promise.resolve();
  }

  close(): Promise<void> {
    return Promise.resolve();
  }
}
