/**
 * Mode 1: the kit plays a scripted extension against a backend and reports check by check. Checks
 * run in order on fresh connections (closed after each check), except that the tool checks share
 * the thread the expansion check opened. The last check reads every message of the run again: all
 * must match the protocol's schema and framing rules.
 */
import type { Report } from '../report';
import { buildReport } from '../report';
import type { Check } from '../check';
import { runChecks, selectChecks, verify } from '../check';
import { AUTH_CHECKS } from './authChecks';
import type { BackendTarget } from './context';
import { BackendContext } from './context';
import { DECODING_CHECKS } from './decodingChecks';
import { HANDSHAKE_CHECKS } from './handshakeChecks';
import { LIMIT_CHECKS } from './limitChecks';
import { REGISTRATION_CHECKS } from './registrationChecks';
import { SESSION_CHECKS } from './sessionChecks';
import { STEER_CHECKS } from './steerChecks';
import { TOOL_CHECKS } from './toolChecks';
import { TRUNCATE_CHECKS } from './truncateChecks';

export type { BackendTarget } from './context';

const SCHEMA_CHECK: Check<BackendContext> = {
  id: 'schema.every-message',
  title: 'Every message the backend sent matches the schema and framing rules',
  expected: 'each message decodes against schema/server-to-client.json (binary frames and base64 as in Transport)',
  async run(context) {
    const received = context.everyPeer.flatMap((p) => p.received);
    const invalid = received.filter((r) => r.invalid);
    verify(invalid.length === 0, invalid.slice(0, 3).map((r) => `${r.invalid?.code}: ${r.invalid?.message}`).join('; '));
    return `${received.length} messages, ${received.filter((r) => r.binary).length} of them binary frames, all valid`;
  },
};

export const BACKEND_CHECKS: readonly Check<BackendContext>[] = [...AUTH_CHECKS, ...HANDSHAKE_CHECKS, ...REGISTRATION_CHECKS, ...DECODING_CHECKS, ...TOOL_CHECKS, ...STEER_CHECKS, ...TRUNCATE_CHECKS, ...SESSION_CHECKS, ...LIMIT_CHECKS, SCHEMA_CHECK];

export async function checkBackend(target: BackendTarget): Promise<Report> {
  const context = new BackendContext(target);
  try {
    // A check's deadline leaves room for the several answers it waits for.
    const results = await runChecks(selectChecks(BACKEND_CHECKS, target.checks), context, target.waitMs * 4, () => context.closeSpent());
    return buildReport('backend', target.url, results);
  } finally {
    await context.close();
  }
}
