/**
 * The rules every local HTTP endpoint of this project applies before anything else: no `Origin`
 * header (a browser page sends one; nothing we serve is for browsers) and a loopback `Host` (a
 * DNS-rebinding page reaches 127.0.0.1 under its own host name). The backend's WebSocket handshake
 * and the extension's MCP server both use these, so the two cannot drift apart.
 */
import { createHash, timingSafeEqual } from 'node:crypto';
import type { IncomingHttpHeaders } from 'node:http';

/** A loopback host name with an optional port; nothing else (no `127.0.0.1.evil.com`, no user info). */
export const LOOPBACK_HOST = /^(127\.0\.0\.1|localhost|\[::1\])(:\d{1,5})?$/i;

export interface Refusal {
  status: 401 | 403;
  text: string;
}

/** 403 for a request with an `Origin` or a `Host` that is not loopback; undefined when both pass. */
export function refuseBrowserOrForeignHost(headers: IncomingHttpHeaders): Refusal | undefined {
  if (headers.origin !== undefined) return { status: 403, text: 'Requests with an Origin header are refused: browsers may not connect.' };
  const host = headers.host;
  if (!host || !LOOPBACK_HOST.test(host)) return { status: 403, text: 'Only a loopback Host (127.0.0.1, localhost, [::1]) is accepted.' };
  return undefined;
}

/** SHA-256 of a secret, so two secrets of any lengths compare in constant time. */
export function secretDigest(value: string): Buffer {
  return createHash('sha256').update(value, 'utf8').digest();
}

/** Whether `presented` is the secret whose digest is `expected`, in time that does not depend on where they differ. */
export function secretMatches(presented: string, expected: Buffer): boolean {
  return timingSafeEqual(secretDigest(presented), expected);
}
