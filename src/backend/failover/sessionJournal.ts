/**
 * One session's entries in the state replicas share (docs/BACKEND.md, "Failover"):
 * - every client call is recorded before its request is sent and settled with its outcome when it
 *   ends (the first outcome wins), so a replica that takes the session over knows what the client
 *   may have run and what is still owed;
 * - every run holds its thread's lease (renewed while it runs; the fence makes a stale holder's
 *   appends fail) and a run marker (`run:<runId>`), so the replica taking over knows which runs to
 *   continue even when no call was in flight.
 * A call's record goes once its result is saved in the thread (the batch's end); the rest live as
 * long as the session's grace period, and a finished run removes its own.
 */
import type { ClientToolInvokeRequest, ClientToolInvokeResponse } from '../../protocol';
import type { ClientCall, InvokeJournal } from '../session/invoker';
import type { Logger } from '../log';
import type { StoredRecord } from '../store/conversationStore';
import type { Lease, SharedState } from '../state/sharedState';
import { messageRecord } from './wireRecord';

/** The run marker's request id prefix; real request ids start with `req_`. */
export const RUN_MARKER = 'run:';

/** What a run holds while it may write its thread. */
export interface RunTicket {
  /** Appends under the run's fence: refused (STORE_FENCED) once another replica took the thread over. */
  append(records: readonly StoredRecord[]): Promise<void>;
  /** The run ended: marker, its calls' records and the lease go. Safe to call twice. */
  release(): void;
  /** The run's last batch ended and its results are saved in the thread: their call records are not needed any more. */
  batchSaved(): void;
  /** The session moved to another replica: stop renewing and let the lease go, leaving every record to that replica. */
  drop(): void;
}

export interface JournalTimings {
  /** How long records outlive their last write: the session's grace period. */
  recordTtlMs: number;
  /** A run's lease lasts this long unless renewed (a third of it); another replica waits it out after a crash. */
  leaseMs: number;
}

export class SessionJournal implements InvokeJournal {
  /** Request ids recorded per run, removed with the run. */
  private readonly callsByRun = new Map<string, Set<string>>();
  private readonly tickets = new Set<RunTicket>();
  /** The session ended or moved: no lease is taken any more. */
  private closed = false;

  constructor(
    private readonly shared: SharedState,
    private readonly sessionId: string,
    private readonly timings: JournalTimings,
    private readonly log: Logger,
    /** Called when a lease renewal finds the session held by another replica now. */
    private readonly onTakenOver: () => void = () => {},
    /**
     * The key the thread is stored under (auth/scopedStore.ts): the lease and the fenced appends use
     * it, so a run writes exactly where its user's view of the store reads.
     */
    private readonly storeKey: (threadId: string) => string = (threadId) => threadId,
  ) {}

  record(request: ClientToolInvokeRequest, call: ClientCall): Promise<void> {
    if (call.runId) this.remember(call.runId, request.requestId);
    return this.shared.putCall(
      { requestId: request.requestId, sessionId: this.sessionId, threadId: call.threadId, runId: call.runId, request: messageRecord(request), outcome: undefined },
      this.timings.recordTtlMs,
    );
  }

  settle(response: ClientToolInvokeResponse): void {
    this.shared.settleCall(response.requestId, messageRecord(response)).catch((e: unknown) => {
      // Unsettled, the call is sent again (same request id) by a replica that takes over: the
      // client answers from its replay cache, so nothing runs twice.
      this.log.warn(`a call's outcome could not be written to the shared state: ${describe(e)}`);
    });
  }

  /** Request ids a taken-over run already recorded, so its end removes them too. */
  remember(runId: string, requestId: string): void {
    let ids = this.callsByRun.get(runId);
    if (!ids) this.callsByRun.set(runId, (ids = new Set()));
    ids.add(requestId);
  }

  /**
   * Takes the thread's lease for a run and writes its marker. Waits up to `waitMs` (default one
   * lease) for another holder's lease to end (a crashed replica's runs out within `leaseMs`, a
   * finished run's is released at once); undefined when it did not. Rejects with the shared
   * state's error when it cannot be reached.
   */
  async begin(threadId: string, runId: string, waitMs = this.timings.leaseMs): Promise<RunTicket | undefined> {
    const { leaseMs, recordTtlMs } = this.timings;
    const deadline = Date.now() + waitMs;
    let lease = this.closed ? undefined : await this.shared.acquireLease(this.storeKey(threadId), leaseMs);
    while (!lease && !this.closed && Date.now() < deadline) {
      await sleep(Math.min(100, leaseMs / 4));
      lease = await this.shared.acquireLease(this.storeKey(threadId), leaseMs);
    }
    if (lease && this.closed) await this.shared.releaseLease(lease);
    if (!lease || this.closed) return undefined;
    const marker = RUN_MARKER + runId;
    try {
      await this.shared.putCall({ requestId: marker, sessionId: this.sessionId, threadId, runId, request: 'run', outcome: undefined }, recordTtlMs);
    } catch (e) {
      void this.shared.releaseLease(lease).catch(() => undefined);
      throw e;
    }
    let held: Lease = lease;
    // Each renewal also checks who holds the session: a replica that lost its client to another
    // (a network split rather than a crash) hands the session over instead of running on.
    const renew = setInterval(() => {
      void (async () => {
        const record = await this.shared.getSession(this.sessionId);
        if (record && record.replica !== this.shared.replica) return this.onTakenOver();
        const l = await this.shared.acquireLease(this.storeKey(threadId), leaseMs, held);
        if (l) held = l;
        else this.log.warn(`run ${runId}: another replica took over its thread; its writes are fenced off from now on`);
      })().catch((e: unknown) => this.log.warn(`run ${runId}: the thread's lease could not be renewed: ${describe(e)}`));
    }, leaseMs / 3);
    renew.unref();
    let released = false;
    const ticket: RunTicket = {
      append: (records) => this.shared.appendFenced(held, records),
      release: () => {
        if (released) return;
        released = true;
        this.tickets.delete(ticket);
        clearInterval(renew);
        const ids = [...(this.callsByRun.get(runId) ?? [])];
        this.callsByRun.delete(runId);
        // The lease first: the client may send its next message as soon as it hears runFinished.
        void (async () => {
          await this.shared.releaseLease(held);
          await this.shared.settleCall(marker, 'finished');
          await Promise.all([marker, ...ids].map((id) => this.shared.deleteCall(id)));
        })().catch((e: unknown) => this.log.warn(`run ${runId}: its shared records could not be cleared (they expire on their own): ${describe(e)}`));
      },
      batchSaved: () => {
        const ids = [...(this.callsByRun.get(runId) ?? [])];
        this.callsByRun.set(runId, new Set());
        Promise.all(ids.map((id) => this.shared.deleteCall(id))).catch((e: unknown) => this.log.warn(`run ${runId}: collected call records could not be removed (they expire on their own): ${describe(e)}`));
      },
      drop: () => {
        if (released) return;
        released = true;
        this.tickets.delete(ticket);
        clearInterval(renew);
        this.callsByRun.delete(runId);
        this.shared.releaseLease(held).catch(() => undefined);
      },
    };
    this.tickets.add(ticket);
    return ticket;
  }

  /** The session ended: no new lease is taken (runs still under way release theirs as they end). */
  close(): void {
    this.closed = true;
  }

  /** The session moved to another replica: no new lease, and every lease held is let go. */
  handOver(): void {
    this.closed = true;
    for (const ticket of [...this.tickets]) ticket.drop();
  }
}

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

function describe(e: unknown): string {
  return e instanceof Error ? e.message : String(e);
}
