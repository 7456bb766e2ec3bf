/**
 * Sending one encoded protocol message on a `ws` socket, held for the turn (see coalesce.ts).
 *
 * A binary message made of several parts (header and JSON, then each attachment as a view of the
 * content's own bytes) goes out as one fragmented WebSocket message, a frame per part, so a large
 * attachment is handed to the socket as it is instead of being copied into one frame buffer first
 * (that copy was the largest cost of a 1 MiB result after masking). The receiving end sees the same
 * bytes either way; with `binaryType: 'fragments'` it also skips joining them. A message has at most
 * 1,001 parts (content is capped at 1,000 items), far below the 16,384 fragments a `ws` receiver
 * accepts before closing with 1008.
 */
import { WebSocket } from 'ws';
import { holdForTurn } from './coalesce';

/** Structurally the protocol codec's `EncodedParts` (this directory imports nothing of ours). */
export type OutgoingMessage = { data: string; binary: false } | { parts: readonly Buffer[]; binary: true };

/** Queues the message; `onSent` runs once, when all of it was written or the socket failed first. */
export function sendEncoded(ws: WebSocket, message: OutgoingMessage, onSent?: (error?: Error) => void): void {
  holdForTurn(ws);
  const done = onSent && ((error?: Error | null) => onSent(error ?? undefined));
  if (!message.binary) {
    ws.send(message.data, { binary: false }, done);
  } else {
    const last = message.parts.length - 1;
    // Fragments of one message go out back to back: nothing else can be queued between them, since
    // they are queued in this one synchronous loop.
    message.parts.forEach((part, i) => ws.send(part, { binary: true, fin: i === last }, i === last ? done : undefined));
  }
  const cap = outputCaps.get(ws);
  if (cap && ws.bufferedAmount > cap.maxBytes) cap.exceeded(ws.bufferedAmount);
}

const outputCaps = new WeakMap<WebSocket, { maxBytes: number; exceeded: (buffered: number) => void }>();

/**
 * From now on, once more than `maxBytes` wait unsent on `ws` after a `sendEncoded`, `exceeded` runs
 * (every time, until the caller stops sending: it is expected to close the socket, after which
 * `ws` queues nothing more). Without it, everything sent to a peer that stopped reading stays in
 * memory for as long as the connection lives.
 */
export function capUnsentOutput(ws: WebSocket, maxBytes: number, exceeded: (buffered: number) => void): void {
  outputCaps.set(ws, { maxBytes, exceeded });
}

/** Makes `ws` deliver binary messages as their frames' payloads, which the codec reads in place. */
export function receiveFragments(ws: WebSocket): void {
  ws.binaryType = 'fragments';
}

/** A received message as the codec takes it (text as bytes, binary as one or more fragments). */
export function receivedData(data: WebSocket.RawData): Buffer | Buffer[] {
  return Buffer.isBuffer(data) || Array.isArray(data) ? data : Buffer.from(data);
}
