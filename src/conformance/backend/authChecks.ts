/**
 * Connecting and authentication: the checks a backend makes before it upgrades (token, Origin,
 * Host) and the subprotocol it selects.
 */
import { SUBPROTOCOL, TOKEN_HEADER } from '../../protocol';
import type { Upgrade } from '../backendPeer';
import type { Check } from '../check';
import { skip, verify } from '../check';
import type { BackendContext } from './context';

function outcome(result: Upgrade): string {
  if (result.kind === 'refused') return `HTTP ${result.status}`;
  if (result.kind === 'failed') return `the upgrade failed: ${result.message}`;
  return `the upgrade succeeded (subprotocol "${result.peer.protocol}")`;
}

function refusedWith(status: number, result: Upgrade): string {
  verify(result.kind === 'refused' && result.status === status, outcome(result));
  return `refused with HTTP ${status}`;
}

/** The browser refusals protect a backend on loopback; behind a proxy they may not apply. */
function needsOriginCheck(context: BackendContext): void {
  if (!context.loopback && !context.target.originCheck) skip('the backend is not on loopback; pass --origin-check to test the browser refusals anyway');
}

export const AUTH_CHECKS: Check<BackendContext>[] = [
  {
    id: 'auth.subprotocol',
    title: `A correct upgrade selects the subprotocol ${SUBPROTOCOL}`,
    expected: `HTTP 101 with Sec-WebSocket-Protocol: ${SUBPROTOCOL}`,
    async run(context) {
      const result = await context.upgrade();
      verify(result.kind === 'open' && result.peer.protocol === SUBPROTOCOL, outcome(result));
      return `upgraded with subprotocol ${SUBPROTOCOL}`;
    },
  },
  {
    id: 'auth.wrong-subprotocol',
    title: 'An upgrade that offers only another subprotocol is not served as this protocol',
    expected: `the upgrade refused, or completed without selecting the offered subprotocol`,
    async run(context) {
      const result = await context.upgrade({ protocols: ['client-tools.v0-conformance'] });
      verify(result.kind !== 'open', outcome(result));
      return outcome(result);
    },
  },
  {
    id: 'auth.no-token',
    title: `An upgrade without ${TOKEN_HEADER} is refused`,
    expected: 'HTTP 401 before the upgrade',
    async run(context) {
      return refusedWith(401, await context.upgrade({ token: undefined }));
    },
  },
  {
    id: 'auth.wrong-token',
    title: 'An upgrade with a wrong token is refused',
    expected: 'HTTP 401 before the upgrade',
    async run(context) {
      return refusedWith(401, await context.upgrade({ token: `${context.target.token}-wrong` }));
    },
  },
  {
    id: 'auth.origin',
    title: 'An upgrade with an Origin header (a browser) is refused',
    expected: 'HTTP 403 before the upgrade',
    async run(context) {
      needsOriginCheck(context);
      return refusedWith(403, await context.upgrade({ origin: 'https://conformance.example' }));
    },
  },
  {
    id: 'auth.host',
    title: 'An upgrade with a non-loopback Host (DNS rebinding) is refused',
    expected: 'HTTP 403 before the upgrade',
    async run(context) {
      needsOriginCheck(context);
      return refusedWith(403, await context.upgrade({ host: 'conformance.example' }));
    },
  },
];
