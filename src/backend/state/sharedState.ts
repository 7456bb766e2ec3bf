/**
 * What backend replicas share so that any of them can carry on a session another one held (issue
 * 18): sessions and their resume secrets, the client calls each session has in flight with their
 * outcomes, and a per-thread run lease with a fencing token. With no `--redis` URL the in-process
 * implementation keeps today's behaviour; with one, Redis holds it and every replica sees the same.
 *
 * Every method may reject with a `SharedStateError` (code `STATE_UNAVAILABLE` when Redis cannot be
 * reached): callers turn it into a coded protocol error, never a crash.
 */
import type { ConversationStore, StoredRecord } from '../store/conversationStore';
import type { ErrorCode } from '../../protocol';
import type { InternalCode } from '../internalCodes';

/** A session as every replica sees it. Holds a digest of the resume secret, never the secret. */
export interface SessionRecord {
  sessionId: string;
  /** SHA-256 of the resume secret (hex). */
  secretDigest: string;
  /** The authenticated user the session belongs to (`anonymous` with the single shared token). */
  owner: string;
  /** Milliseconds since the epoch. */
  createdAt: number;
  /** The replica that holds the session's socket now, for logs and handover. */
  replica: string;
}

/** One client tool call a replica sent, kept until its outcome is collected. */
export interface CallRecord {
  requestId: string;
  sessionId: string;
  threadId: string | undefined;
  runId: string | undefined;
  /** The `clientToolInvokeRequest` as sent (JSON), so another replica can send it again unchanged. */
  request: string;
  /** The client's `clientToolInvokeResponse` (JSON) once it came, or the coded failure the backend settled on. */
  outcome: string | undefined;
}

/** Who may run a thread's model turn now; `fence` grows with every grant, so a stale holder is told apart. */
export interface Lease {
  threadId: string;
  holder: string;
  fence: number;
  /** Milliseconds since the epoch after which another replica may take it. */
  expiresAt: number;
}

export interface SharedState {
  /** This replica's name in records and leases. */
  readonly replica: string;

  putSession(record: SessionRecord, ttlMs: number): Promise<void>;
  getSession(sessionId: string): Promise<SessionRecord | undefined>;
  deleteSession(sessionId: string): Promise<void>;

  /** Records a call before it is sent. */
  putCall(record: CallRecord, ttlMs: number): Promise<void>;
  /** Stores the outcome once; returns false when an outcome was already stored (the first one wins). */
  settleCall(requestId: string, outcome: string): Promise<boolean>;
  /** Every call of a session, settled or not, oldest first. */
  callsOf(sessionId: string): Promise<CallRecord[]>;
  deleteCall(requestId: string): Promise<void>;

  /**
   * Takes or renews the thread's lease for this replica; undefined when another holder's lease has not
   * expired. `renewing`: the lease this replica renews; if it ran out before the renewal came (a late
   * timer on a loaded machine) and nobody took the thread since, it is renewed under the same fence, so
   * appends under it that are already in flight are not refused as stale.
   */
  acquireLease(threadId: string, ttlMs: number, renewing?: Lease): Promise<Lease | undefined>;
  /** Releases the lease if this replica still holds it under `fence`. */
  releaseLease(lease: Lease): Promise<void>;

  /**
   * Appends to the lease's thread in `store` unless a newer grant exists: rejects with
   * `SharedStateError` `STORE_FENCED` when `lease.fence` is older than the thread's newest fence
   * (the check and the append are one atomic step). Does not require the lease to be unexpired: the
   * fence, not the clock, tells a stale writer apart.
   */
  appendFenced(lease: Lease, records: readonly StoredRecord[]): Promise<void>;

  /**
   * The conversation store. With a lease, an append under a fence older than the thread's newest
   * grant is refused (`STORE_FENCED`), so a replica that lost its lease cannot write after the one
   * that took it over.
   */
  readonly store: ConversationStore;

  close(): Promise<void>;
}

export class SharedStateError extends Error {
  constructor(
    readonly code: typeof ErrorCode.StateUnavailable | typeof InternalCode.StoreFenced,
    message: string,
  ) {
    super(message);
    this.name = 'SharedStateError';
  }
}
