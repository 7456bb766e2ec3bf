/**
 * Mode 2 (`--serve`): the kit listens as a backend, waits for an extension to connect, runs its
 * scripted calls and reports check by check.
 */
import type { Report } from '../report';
import { buildReport } from '../report';
import { runChecks } from '../check';
import { EXTENSION_CHECKS } from './checks';
import type { ExtensionTarget } from './context';
import { ExtensionContext } from './context';
import type { ConformanceServer } from './server';
import { listen } from './server';

export type { ExtensionTarget } from './context';
export type { ConformanceServer } from './server';

/** Listens first (so the caller can print the address or point an extension at it), then checks. */
export async function serveForExtension(target: ExtensionTarget): Promise<{ server: ConformanceServer; report: Promise<Report> }> {
  const server = await listen(target.host, target.port, target.token);
  const context = new ExtensionContext(target, server);
  const report = (async () => {
    try {
      // The first check waits for the extension to connect; the others for one answer or a few.
      const results = await runChecks(EXTENSION_CHECKS, context, Math.max(target.connectMs, target.waitMs * 3) + 1_000);
      return buildReport('extension', server.url, results);
    } finally {
      context.peer?.close();
      await server.close();
    }
  })();
  return { server, report };
}
