/**
 * Protocol messages as the strings the shared state keeps (a call's request, its outcome), and back.
 * Written with the protocol codec and read back through it: Redis is input like any other, so a
 * record that does not decode as the message it should be is treated as absent, never trusted.
 * A binary frame (results with images) is kept as base64 behind a `b64:` prefix.
 */
import type { ClientToolInvokeRequest, ClientToolInvokeResponse } from '../../protocol';
import { decodeFromClient, decodeFromServer, encode } from '../../protocol';

const BINARY = 'b64:';

export function messageRecord(message: ClientToolInvokeRequest | ClientToolInvokeResponse): string {
  const frame = encode(message);
  if (!frame.binary) return typeof frame.data === 'string' ? frame.data : frame.data.toString('utf8');
  return BINARY + Buffer.from(frame.data).toString('base64');
}

export function requestFromRecord(record: string): ClientToolInvokeRequest | undefined {
  const decoded = decodeFromServer(...frameOf(record));
  return decoded.ok && decoded.message.type === 'clientToolInvokeRequest' ? decoded.message : undefined;
}

export function responseFromRecord(record: string): ClientToolInvokeResponse | undefined {
  const decoded = decodeFromClient(...frameOf(record));
  return decoded.ok && decoded.message.type === 'clientToolInvokeResponse' ? decoded.message : undefined;
}

function frameOf(record: string): [Buffer | string, boolean] {
  return record.startsWith(BINARY) ? [Buffer.from(record.slice(BINARY.length), 'base64'), true] : [record, false];
}
