/**
 * `/healthz` and `/readyz`: plain GETs a load balancer or an orchestrator may send without the
 * connection token. They answer fixed words only (no version, no counts, no error text), so anyone
 * who can reach the port learns nothing but whether to send editors there.
 */
import type * as http from 'node:http';

/** Rejects (with a reason for the log) when a dependency the backend needs, such as Redis, is unreachable. */
export type ReadinessProbe = () => Promise<void>;

/** Why the backend is not ready, in words fit for an unauthenticated answer; undefined when ready. */
export type NotReady = 'draining' | 'shutting down' | 'shared state unreachable';

export interface HealthSource {
  /** Undefined when the backend takes new connections. */
  notReady(): Promise<NotReady | undefined>;
}

export const HEALTH_PATHS = ['/healthz', '/readyz'] as const;

/** Answers `/healthz` and `/readyz`; false for any other path, left to the caller. */
export function answerHealth(req: http.IncomingMessage, res: http.ServerResponse, source: HealthSource): boolean {
  const path = pathOf(req);
  if (path === '/healthz') {
    // Alive: this process answers HTTP. Nothing else is checked, so an orchestrator restarts only a hung process.
    plain(req, res, 200, 'ok');
    return true;
  }
  if (path === '/readyz') {
    source.notReady().then(
      (why) => plain(req, res, why ? 503 : 200, why ? `not ready: ${why}` : 'ready'),
      () => plain(req, res, 503, 'not ready'),
    );
    return true;
  }
  return false;
}

/** The path without the query; undefined for a malformed target. */
export function pathOf(req: http.IncomingMessage): string | undefined {
  const target = req.url ?? '';
  if (!target.startsWith('/')) return undefined;
  const q = target.indexOf('?');
  return q < 0 ? target : target.slice(0, q);
}

/** A short text answer that no cache keeps; a HEAD gets the headers alone. */
export function plain(req: http.IncomingMessage, res: http.ServerResponse, status: number, text: string, headers: http.OutgoingHttpHeaders = {}): void {
  if (res.headersSent) return;
  const body = `${text}\n`;
  res.writeHead(status, { 'Content-Type': 'text/plain; charset=utf-8', 'Content-Length': Buffer.byteLength(body), 'Cache-Control': 'no-store', ...headers });
  res.end(req.method === 'HEAD' ? undefined : body);
}

/** A probe that has not answered by then counts as failed: a health check must not hang. */
export const PROBE_TIMEOUT_MS = 2_000;

/** The first failing probe's verdict; its reason goes to `onFailure` (the log), never to the answer. */
export async function probeAll(probes: readonly ReadinessProbe[], onFailure: (reason: string) => void, timeoutMs = PROBE_TIMEOUT_MS): Promise<NotReady | undefined> {
  for (const probe of probes) {
    let timer: NodeJS.Timeout | undefined;
    try {
      await Promise.race([
        probe(),
        new Promise<never>((_, reject) => {
          timer = setTimeout(() => reject(new Error(`no answer within ${timeoutMs} ms`)), timeoutMs);
        }),
      ]);
    } catch (e) {
      onFailure(e instanceof Error ? e.message : String(e));
      return 'shared state unreachable';
    } finally {
      clearTimeout(timer);
    }
  }
  return undefined;
}
