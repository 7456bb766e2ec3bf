/**
 * Connecting and authentication: the checks a backend makes before it upgrades (token, Origin,
 * Host), the order it makes them in against a plain request and a malformed handshake, and the
 * subprotocol it selects.
 */
import * as http from 'node:http';
import * as https from 'node:https';
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

/**
 * The HTTP status a request to the backend's URL gets, sent as written: `upgrade` adds the headers
 * of a WebSocket upgrade (with a `Sec-WebSocket-Version` the backend cannot speak when `badVersion`).
 */
function statusOf(context: BackendContext, headers: Record<string, string>, upgrade: { badVersion: boolean } | undefined): Promise<string> {
  const url = new URL(context.target.url);
  const secure = url.protocol === 'wss:';
  const request = (secure ? https : http).request;
  const all: Record<string, string> = { ...headers };
  if (upgrade) Object.assign(all, { Connection: 'Upgrade', Upgrade: 'websocket', 'Sec-WebSocket-Key': 'Y29uZm9ybWFuY2Uta2V5IQ==', 'Sec-WebSocket-Version': upgrade.badVersion ? '99' : '13' });
  return new Promise((resolve) => {
    const req = request({ host: url.hostname, port: url.port || (secure ? 443 : 80), path: `${url.pathname}${url.search}`, method: 'GET', headers: all, timeout: context.target.waitMs });
    req.on('response', (res) => {
      res.resume();
      resolve(`HTTP ${res.statusCode ?? 0}`);
    });
    req.on('upgrade', (_res, socket) => {
      socket.destroy();
      resolve('HTTP 101 (upgraded)');
    });
    req.on('timeout', () => req.destroy(new Error('timeout')));
    req.on('error', (e) => resolve(`no answer: ${e.message}`));
    req.end();
  });
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
  {
    id: 'auth.order',
    title: 'A plain request gets 426; the credential is checked after Origin and Host and before the handshake itself',
    expected: 'a GET without Upgrade: 426; an upgrade with an unsupported Sec-WebSocket-Version and no token: 401; the same with the token: 400; with an Origin and a wrong token: 403 (loopback backends, or --origin-check)',
    async run(context) {
      const token = { [TOKEN_HEADER]: context.target.token };
      const seen: [string, string, string][] = [
        ['a GET without Upgrade', 'HTTP 426', await statusOf(context, {}, undefined)],
        ['a malformed upgrade without a token', 'HTTP 401', await statusOf(context, {}, { badVersion: true })],
        ['a malformed upgrade with the token', 'HTTP 400', await statusOf(context, token, { badVersion: true })],
      ];
      if (context.loopback || context.target.originCheck) {
        seen.push(['an upgrade with an Origin and a wrong token', 'HTTP 403', await statusOf(context, { Origin: 'https://conformance.example', [TOKEN_HEADER]: `${context.target.token}-wrong` }, { badVersion: false })]);
      }
      const wrong = seen.filter(([, expected, got]) => got !== expected);
      verify(wrong.length === 0, wrong.map(([what, expected, got]) => `${what}: ${got} (expected ${expected})`).join('; '));
      return seen.map(([what, , got]) => `${what}: ${got}`).join('; ');
    },
  },
];
