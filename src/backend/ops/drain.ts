/**
 * Graceful drain (SIGTERM, `backend.drain()`): the server has already stopped admitting (`/readyz`
 * answers 503, new upgrades get 503). Here each attached session is handed over as soon as it is
 * idle: its socket is closed with 1012 (Service Restart), which the extension treats like any lost
 * connection, reconnecting at once (first retry within a second) to the next URL or through the
 * balancer; with shared state (`--redis`) another replica resumes the session. A session with a run
 * or a client call in progress keeps its socket until that ends, so the run finishes here rather
 * than being cut, up to the deadline; then every session left is handed over as it stands.
 */

export interface DrainableSession {
  /** A client is connected to it. */
  readonly attached: boolean;
  /** A run or a client call is in progress. */
  readonly busy: boolean;
  /** Closes its socket so that the client reconnects elsewhere; the session itself stays until the server closes. */
  handOver(): void;
}

export interface DrainReport {
  /** Sessions handed over while idle. */
  handedOverIdle: number;
  /** Sessions still busy at the deadline, handed over as they stood. */
  handedOverAtDeadline: number;
  /** Whether the deadline was reached with sessions still busy. */
  timedOut: boolean;
  elapsedMs: number;
}

/** How often busy sessions are looked at again; a run's end is noticed within this. */
const POLL_MS = 100;

export async function drainSessions(sessions: () => Iterable<DrainableSession>, timeoutMs: number): Promise<DrainReport> {
  const started = Date.now();
  // A handed-over session stays attached until its close handshake ends: never count it twice.
  const handedOver = new Set<DrainableSession>();
  for (;;) {
    let busy = 0;
    for (const s of sessions()) {
      if (!s.attached || handedOver.has(s)) continue;
      if (s.busy) {
        busy++;
        continue;
      }
      s.handOver();
      handedOver.add(s);
    }
    const handedOverIdle = handedOver.size;
    if (busy === 0) return { handedOverIdle, handedOverAtDeadline: 0, timedOut: false, elapsedMs: Date.now() - started };
    if (Date.now() - started >= timeoutMs) break;
    await new Promise((resolve) => setTimeout(resolve, Math.min(POLL_MS, Math.max(1, timeoutMs - (Date.now() - started)))));
  }
  const handedOverIdle = handedOver.size;
  let handedOverAtDeadline = 0;
  for (const s of sessions()) {
    if (!s.attached || handedOver.has(s)) continue;
    s.handOver();
    handedOverAtDeadline++;
  }
  return { handedOverIdle, handedOverAtDeadline, timedOut: true, elapsedMs: Date.now() - started };
}
