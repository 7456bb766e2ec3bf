/**
 * The operations listener (`--ops-port`): `/metrics`, `/healthz`, `/readyz`, GET or HEAD only.
 *
 * Metrics stay off the editors' port: they say how busy the backend is and how tool calls end, which
 * is nobody's business who can merely reach the balancer. This listener binds loopback unless told
 * otherwise, and, like the WebSocket endpoint, refuses what a web page could send: any request with
 * an `Origin` header, and a `Host` that is neither loopback nor an IP address (a DNS name there is
 * how DNS rebinding lets a page read a loopback port). A scraper on another machine addresses the
 * replica by IP.
 */
import * as http from 'node:http';
import { isIP, type AddressInfo } from 'node:net';
import type { HealthSource } from './health';
import { answerHealth, pathOf, plain } from './health';
import type { BackendMetrics } from './metrics';

export interface OpsServer {
  readonly port: number;
  close(): Promise<void>;
}

const LOOPBACK_NAME = /^(localhost)$/i;

export async function startOpsServer(host: string, port: number, health: HealthSource, metrics: BackendMetrics): Promise<OpsServer> {
  const server = http.createServer((req, res) => {
    const refusal = refusalOf(req);
    if (refusal) return plain(req, res, 403, refusal);
    if (req.method !== 'GET' && req.method !== 'HEAD') return plain(req, res, 405, 'method not allowed', { Allow: 'GET, HEAD' });
    if (answerHealth(req, res, health)) return;
    if (pathOf(req) !== '/metrics') return plain(req, res, 404, 'not found');
    metrics.render().then(
      (text) => {
        res.writeHead(200, { 'Content-Type': metrics.contentType, 'Cache-Control': 'no-store' });
        res.end(req.method === 'HEAD' ? undefined : text);
      },
      () => plain(req, res, 500, 'metrics unavailable'),
    );
  });
  server.headersTimeout = 10_000;
  server.requestTimeout = 10_000;
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => {
      server.off('error', reject);
      resolve();
    });
  });
  return {
    port: (server.address() as AddressInfo).port,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}

/** Why a request that may come from a web page is refused; undefined when it may be answered. */
function refusalOf(req: http.IncomingMessage): string | undefined {
  if (req.headers.origin !== undefined) return 'requests with an Origin header are refused';
  const host = hostName(req.headers.host);
  if (host === undefined || !(LOOPBACK_NAME.test(host) || isIP(host) !== 0)) return 'the Host must be loopback or an IP address';
  return undefined;
}

/** The name part of a Host header (`[::1]:9464` → `::1`); undefined when absent or malformed. */
function hostName(header: string | undefined): string | undefined {
  if (!header) return undefined;
  const bracketed = /^\[([0-9a-f:.]+)\](?::\d{1,5})?$/i.exec(header);
  if (bracketed) return bracketed[1];
  const plainHost = /^([^:\[\]]+)(?::\d{1,5})?$/.exec(header);
  return plainHost?.[1];
}
