/**
 * Which runs the user started from this window's chat. A tool call is the user's only while such a
 * run is in progress on the call's thread; anything else (a request while idle, on a thread the user
 * never wrote on, after the run ended) is a background call.
 *
 * A run counts only when the user sent a message on its thread first: a `runStarted` the backend
 * sends on its own does not make a thread the user's. One message lets one run start.
 */
import { assertNever, type RunEvent } from '../../protocol';

/** Threads and runs remembered at most; the oldest are forgotten first (they count as background then). */
const MAX_TRACKED = 64;

export class UserRuns {
  /** Threads the user sent a message on whose run has not started yet. */
  private readonly awaitingStart = new Set<string>();
  /** Runs in progress that the user started: runId → threadId. */
  private readonly active = new Map<string, string>();

  /** The user's message went out on `threadId`: the next run that starts there is the user's. */
  userMessageSent(threadId: string): void {
    this.awaitingStart.delete(threadId);
    this.awaitingStart.add(threadId);
    trim(this.awaitingStart);
  }

  onRunEvent(event: RunEvent): void {
    switch (event.type) {
      case 'runStarted':
        if (!this.awaitingStart.delete(event.threadId)) return;
        this.active.set(event.runId, event.threadId);
        if (this.active.size > MAX_TRACKED) this.active.delete(this.active.keys().next().value as string);
        return;
      case 'runFinished':
      case 'runError':
        this.active.delete(event.runId);
        return;
      case 'textDelta':
      case 'toolCallStarted':
      case 'toolCallUpdated':
      case 'toolCallEnded':
      case 'groupExpanded':
      case 'contextCompacted':
      case 'steerUpdated':
      case 'contextUsage':
      case 'modelRetry':
        // Inside a run: whose run it is was settled at runStarted.
        return;
      default:
        assertNever(event, 'run event');
    }
  }

  /** The thread was reset (New Chat): nothing on it is the user's any more. */
  forgetThread(threadId: string): void {
    this.awaitingStart.delete(threadId);
    for (const [runId, thread] of this.active) if (thread === threadId) this.active.delete(runId);
  }

  /** A new backend session: the runs of the old one are gone. */
  clear(): void {
    this.awaitingStart.clear();
    this.active.clear();
  }

  /** A run the user started is in progress on `threadId`. */
  isUserRun(threadId: string | undefined): boolean {
    if (threadId === undefined) return false;
    for (const thread of this.active.values()) if (thread === threadId) return true;
    return false;
  }
}

function trim(set: Set<string>): void {
  while (set.size > MAX_TRACKED) set.delete(set.values().next().value as string);
}
