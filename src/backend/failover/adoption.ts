/**
 * Taking over a session another replica held (docs/BACKEND.md, "Failover"). A `hello` that resumes
 * a session this replica does not hold is looked up in the shared state; only the session's resume
 * secret adopts it (its SHA-256 compared in constant time with the stored digest: the secret itself
 * is never stored). The adopting replica then
 * 1. takes over every call without an outcome, to be sent again with the SAME request id as soon as
 *    the client is attached (the client answers a repeated id from its replay cache, so nothing runs
 *    twice); calls already settled keep their outcome;
 * 2. continues every run whose marker has no outcome: it waits for the thread's lease (a crashed
 *    holder's runs out), loads the thread, adds the collected results and goes on with the model
 *    turn under the same run id. A run whose lease never frees ends with a coded `runError`.
 */
import { createHash, timingSafeEqual } from 'node:crypto';
import { ErrorCode } from '../../protocol';
import type { ClientInvoker } from '../session/invoker';
import { resultOf } from '../session/invoker';
import type { Logger } from '../log';
import type { ToolCallResult } from '../toolset/serverTools';
import type { CallRecord, SessionRecord, SharedState } from '../state/sharedState';
import { RUN_MARKER, type RunTicket, type SessionJournal } from './sessionJournal';
import { requestFromRecord, responseFromRecord } from './wireRecord';

export function secretDigestHex(secret: string): string {
  return createHash('sha256').update(secret, 'utf8').digest('hex');
}

/** The shared record of the session, when `secret` proves it; anything else (unknown, expired, wrong secret) is undefined. */
export async function adoptableSession(shared: SharedState, sessionId: string, secret: string | undefined): Promise<SessionRecord | undefined> {
  const record = await shared.getSession(sessionId);
  if (!record || secret === undefined) return undefined;
  const presented = Buffer.from(secretDigestHex(secret), 'utf8');
  const stored = Buffer.from(record.secretDigest, 'utf8');
  // Equal lengths for any well-formed record; a malformed one (Redis lied) never matches.
  if (presented.length !== stored.length || !timingSafeEqual(presented, stored)) return undefined;
  return record.sessionId === sessionId ? record : undefined;
}

/** What a taken-over session owes: runs to continue, and each call's outcome, collected or still coming. */
export interface Recovery {
  runs: { threadId: string; runId: string }[];
  /** Calls without an outcome, sent again once the client is attached. */
  resent: number;
  /** The outcome of the model's call `callId` in `runId`; undefined when no call was ever recorded for it. */
  outcomeOf(runId: string, callId: string): Promise<ToolCallResult | undefined>;
}

/**
 * Hands the session's unsettled calls to its new invoker (before the client is attached, so an
 * answer it kept while away finds its call waiting) and lists the runs to continue.
 */
export function takeOverCalls(calls: readonly CallRecord[], invoker: ClientInvoker, journal: SessionJournal, log: Logger): Recovery {
  const runs: Recovery['runs'] = [];
  let resent = 0;
  const outcomes = new Map<string, Promise<ToolCallResult>>();
  for (const record of calls) {
    if (record.requestId.startsWith(RUN_MARKER)) {
      if (record.outcome === undefined && record.threadId && record.runId) runs.push({ threadId: record.threadId, runId: record.runId });
      continue;
    }
    const request = requestFromRecord(record.request);
    if (!request || request.requestId !== record.requestId) {
      log.warn('a call record in the shared state does not decode as a request; it is ignored');
      continue;
    }
    if (record.runId) journal.remember(record.runId, record.requestId);
    const settled = record.outcome !== undefined ? responseFromRecord(record.outcome) : undefined;
    if (!settled) resent++;
    const outcome = settled ? Promise.resolve(resultOf(request.toolName, settled)) : invoker.adopt(request, record.runId);
    // Calls come oldest first; a model that reuses a call id in a later turn means the later call.
    outcomes.set(key(record.runId, request.callId), outcome);
  }
  return {
    runs,
    resent,
    outcomeOf: (runId, callId) => outcomes.get(key(runId, callId)) ?? Promise.resolve(undefined),
  };
}

/** What continuing a run needs from the session. */
export interface RunContinuation {
  journal: SessionJournal;
  /** How long to wait for the previous holder's lease. */
  leaseWaitMs: number;
  resume(threadId: string, runId: string, ticket: RunTicket): void;
  /** Ends a run that cannot be continued, with a coded reason the client sees. */
  abandon(threadId: string, runId: string, code: ErrorCode, message: string): void;
  log: Logger;
}

/** Continues each run of `recovery` once its thread's lease is this replica's. */
export function continueRuns(recovery: Recovery, c: RunContinuation): void {
  for (const { threadId, runId } of recovery.runs) {
    c.journal.begin(threadId, runId, c.leaseWaitMs).then(
      (ticket) => {
        c.log.debug?.(`run ${runId}: ${ticket ? 'lease taken, continuing' : 'lease not freed'}`);
        if (ticket) c.resume(threadId, runId, ticket);
        else c.abandon(threadId, runId, ErrorCode.RunBusy, `Another backend replica still holds this thread's run after ${Math.round(c.leaseWaitMs / 1000)} s; the run was stopped here. Send the message again to continue.`);
      },
      (e: unknown) => {
        c.log.warn(`run ${runId} could not be continued: ${e instanceof Error ? e.message : String(e)}`);
        c.abandon(threadId, runId, ErrorCode.StateUnavailable, 'The shared state could not be reached to continue this run after the backend replica running it stopped. Send the message again to continue.');
      },
    );
  }
}

function key(runId: string | undefined, callId: string): string {
  return `${runId ?? ''}\n${callId}`;
}
