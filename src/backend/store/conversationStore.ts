/**
 * The conversation store: where a thread's history outlives the process. The agent appends what a
 * thread gains (messages, its tool state, its runs) and reloads a thread it does not hold in memory.
 * This interface is the seam a networked store (state/redisStore.ts) plugs into; `MemoryStore` is the
 * default and `LogStore` the durable one on disk (`dataDir`).
 *
 * `append` resolves only once the records are durable as far as the store can make them (for the
 * log: after fsync): the agent tells the client nothing about a message before that.
 */
import type { FinishReason } from '../../protocol';
import type { ChatMessage } from '../model/chatModel';
import type { InternalCode } from '../internalCodes';

/** The expansion a thread made of its client tool groups: cheap to keep, reapplied on reload. */
export interface StoredToolState {
  expanded: string[];
  skills: { group: string; skill: string }[];
}

export type StoredRecord =
  | { kind: 'message'; message: ChatMessage }
  | { kind: 'toolState'; state: StoredToolState }
  | { kind: 'run'; run: StoredRunStatus }
  /** The messages before it are replaced by those after it (a compaction: the whole history as it now is follows). */
  | { kind: 'historyReset' };

/** A run's last known status; `started` on reload means the backend stopped during it. */
export type StoredRunStatus = { runId: string; status: 'started' } | { runId: string; status: 'finished'; reason: FinishReason };

export interface StoredThread {
  threadId: string;
  messages: ChatMessage[];
  toolState: StoredToolState | undefined;
  lastRun: StoredRunStatus | undefined;
}

export interface ThreadSummary {
  threadId: string;
  /** Milliseconds since the epoch of the last append. */
  updatedAt: number;
}

export interface ConversationStore {
  /** Appends records to a thread (creating it), in order; resolves once they are durable. */
  append(threadId: string, records: readonly StoredRecord[]): Promise<void>;
  /** The thread's records folded into its state, or undefined when the store holds no such thread. */
  load(threadId: string): Promise<StoredThread | undefined>;
  /** Every thread held, newest first. */
  list(): Promise<ThreadSummary[]>;
  /** Forgets a thread and its binary content; deleting an unknown thread is not an error. */
  delete(threadId: string): Promise<void>;
  /** Waits for writes under way, then releases what the store holds open. */
  close(): Promise<void>;
  /**
   * For a store other processes may write too (a data folder two backends share): takes the
   * thread's writer lease for a run, or undefined while another process holds it. Optional: a store
   * only this process writes has no need of it.
   */
  leaseThread?(threadId: string): Promise<ThreadLease | undefined>;
}

/** A run's hold on a thread in a store shared between processes. */
export interface ThreadLease {
  /** Another process wrote the thread since this one last read or wrote it: reload it before the run. */
  readonly stale: boolean;
  /** Lets the thread go, after the writes already handed to the store. */
  release(): Promise<void>;
}

/**
 * Folds records, oldest first, into a thread's state. A user message saved right after its run's
 * `started` record (by a backend that did not yet mark messages with their run) gets that run's id.
 */
export function foldRecords(threadId: string, records: Iterable<StoredRecord>): StoredThread {
  const thread: StoredThread = { threadId, messages: [], toolState: undefined, lastRun: undefined };
  let justStarted: string | undefined;
  for (const r of records) {
    if (r.kind === 'message') {
      const m = r.message;
      thread.messages.push(m.role === 'user' && m.runId === undefined && justStarted !== undefined ? { ...m, runId: justStarted } : m);
    } else if (r.kind === 'toolState') thread.toolState = r.state;
    else if (r.kind === 'historyReset') thread.messages = [];
    else thread.lastRun = r.run;
    justStarted = r.kind === 'run' && r.run.status === 'started' ? r.run.runId : undefined;
  }
  return thread;
}

/** Why the store refused a file or a folder: `STORE_UNSAFE` (not ours, a link, not a regular file), `STORE_CORRUPT`, `STORE_TOO_LARGE`, `STORE_CLOSED`. */
export class StoreError extends Error {
  constructor(
    readonly code: Exclude<InternalCode, 'STORE_FENCED' | 'STATE_ERROR'>,
    message: string,
  ) {
    super(message);
    this.name = 'StoreError';
  }
}
