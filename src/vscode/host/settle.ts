/**
 * Answers that reflect the settled state. A language server handed a file a moment ago (opened,
 * edited) has often not read it yet: asked at once, it answers "no references", "no symbols", "no
 * problems" that are simply not computed. So, within SETTLE_WINDOW_MS of the document's last change:
 * - an empty answer to a query is asked again every SETTLE_POLL_MS until it is not empty or the
 *   window closes (`settledAnswer`);
 * - diagnostics are awaited until the server reports them for this change, or, once it has answered
 *   another request on the file (so it has read it), until DIAGNOSTICS_QUIET_MS pass without a report
 *   (a clean file gets no report at all), or until the window closes (`settledDiagnostics`).
 * Outside the window the first answer stands. Every wait is bounded and ends when the call does.
 */
import type { Disposable } from '../../base/events';
import { systemTimers, type Timers } from '../../core/timers';

export const SETTLE_WINDOW_MS = 15_000;
export const SETTLE_POLL_MS = 250;
export const DIAGNOSTICS_QUIET_MS = 1_500;

/** Runs `query`; while the answer is empty and the document changed less than SETTLE_WINDOW_MS ago, asks again. */
export async function settledAnswer<T>(
  query: () => Promise<T>,
  isEmpty: (answer: T) => boolean,
  changedAt: number | undefined,
  signal?: AbortSignal,
  timers: Timers = systemTimers,
): Promise<T> {
  let answer = await query();
  if (changedAt === undefined) return answer;
  const deadline = changedAt + SETTLE_WINDOW_MS;
  while (isEmpty(answer) && timers.now() + SETTLE_POLL_MS <= deadline && !signal?.aborted) {
    await sleep(SETTLE_POLL_MS, timers, signal);
    answer = await query();
  }
  return answer;
}

export interface DiagnosticsSettling {
  /** When the document last changed (opened or edited); undefined when it has not in this session. */
  changedAt: number | undefined;
  /** When diagnostics were last reported for it. */
  reportedAt: number | undefined;
  /** Subscribes to reports for this document. */
  onReport(listener: () => void): Disposable;
  /** A request the server answers once it has read the file (the document's symbols). */
  read(): Promise<unknown>;
}

/** Resolves once the document's diagnostics can be taken as settled (see the file's header). */
export async function settledDiagnostics(doc: DiagnosticsSettling, signal?: AbortSignal, timers: Timers = systemTimers): Promise<void> {
  const { changedAt } = doc;
  if (changedAt === undefined || (doc.reportedAt !== undefined && doc.reportedAt >= changedAt)) return;
  const left = changedAt + SETTLE_WINDOW_MS - timers.now();
  if (left <= 0) return;
  await new Promise<void>((resolve) => {
    const handles: unknown[] = [];
    let done = false;
    const finish = () => {
      if (done) return;
      done = true;
      subscription.dispose();
      for (const h of handles) timers.clearTimeout(h);
      signal?.removeEventListener('abort', finish);
      resolve();
    };
    const subscription = doc.onReport(finish);
    handles.push(timers.setTimeout(finish, left));
    signal?.addEventListener('abort', finish, { once: true });
    if (signal?.aborted) finish();
    void doc.read().then(
      () => {
        if (!done) handles.push(timers.setTimeout(finish, Math.min(DIAGNOSTICS_QUIET_MS, Math.max(0, changedAt + SETTLE_WINDOW_MS - timers.now()))));
      },
      () => undefined,
    );
  });
}

function sleep(ms: number, timers: Timers, signal: AbortSignal | undefined): Promise<void> {
  return new Promise((resolve) => {
    const handle = timers.setTimeout(done, ms);
    function done() {
      timers.clearTimeout(handle);
      signal?.removeEventListener('abort', done);
      resolve();
    }
    signal?.addEventListener('abort', done, { once: true });
  });
}
