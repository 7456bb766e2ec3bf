/**
 * The limits the extension announces in `hello.limits` (PROTOCOL.md "Limits each side announces"),
 * which the backend must respect. Every message to the extension fits its `maxMessageBytes`, and its
 * JSON text (a text frame, or a binary frame's JSON part) its `maxJsonBytes`: a
 * display event that would not fit is shortened (a result echoed in `toolCallEnded`, arguments in
 * `toolCallStarted`, a long `textDelta` split, context and descriptions in `toolGroupState`), and
 * what cannot be shortened (a `clientToolInvokeRequest`) is not sent: the caller fails the call.
 */
import type { HelloLimits, EncodedParts, Hello, ServerToClient } from '../../protocol';
import { assertNever, DEFAULT_LIMITS, encodeParts } from '../../protocol';

/** What an extension that announces nothing (an older one) is taken to accept: the protocol's defaults. */
export const DEFAULT_CLIENT_LIMITS: HelloLimits = {
  maxMessageBytes: DEFAULT_LIMITS.maxMessageBytes,
  maxInFlight: DEFAULT_LIMITS.maxInFlight,
  replayWindowMs: DEFAULT_LIMITS.replayWindowMs,
};

export function clientLimitsOf(hello: Hello): HelloLimits {
  return hello.limits ?? DEFAULT_CLIENT_LIMITS;
}

export function encodedBytes(encoded: EncodedParts): number {
  return encoded.binary ? encoded.parts.reduce((n, p) => n + p.length, 0) : Buffer.byteLength(encoded.data);
}

/** The bytes of an encoded message's JSON text: the text frame, or a binary frame's JSON part (after its 4-byte length). */
function jsonBytes(encoded: EncodedParts): number {
  return encoded.binary ? encoded.parts[0].length - 4 : Buffer.byteLength(encoded.data);
}

/** Characters of a text kept when it has to be cut, in `toolGroupState`. */
const CLIPPED_TEXT_CHARS = 200;
/** JSON writes a UTF-16 unit in at most 6 bytes (`\uXXXX`): a text of N units fits in 6 N bytes. */
const MAX_JSON_BYTES_PER_UNIT = 6;

/**
 * `message` as frames that each fit `maxBytes`, their JSON `maxJsonBytes`: itself when it fits, else
 * shortened (one frame) or split (a `textDelta`, several); undefined when it cannot be made to fit.
 */
export function fitted(message: ServerToClient, maxBytes: number, maxJsonBytes = maxBytes): EncodedParts[] | undefined {
  const fitsLimits = (e: EncodedParts | undefined): e is EncodedParts => e !== undefined && encodedBytes(e) <= maxBytes && jsonBytes(e) <= maxJsonBytes;
  const encoded = encodedOrNot(message);
  if (fitsLimits(encoded)) return [encoded];
  const limit = Math.min(maxBytes, maxJsonBytes);
  const note = (what: string) => (encoded ? leftOut(encodedBytes(encoded), what, limit) : `[${what} not shown here: it is nested too deeply to be sent]`);
  const fits = (m: ServerToClient): EncodedParts[] | undefined => {
    const e = encodedOrNot(m);
    return fitsLimits(e) ? [e] : undefined;
  };
  switch (message.type) {
    case 'toolCallEnded':
      return fits({ ...message, content: [{ type: 'text', text: note('result') }] });
    case 'toolCallStarted':
      return fits({ ...message, arguments: { '…': note('arguments') } });
    case 'textDelta':
      return splitText(message, limit);
    case 'toolGroupState':
      return fits({
        ...message,
        groups: message.groups.map((g) => ({ ...g, description: clip(g.description) })),
        ...(message.context ? { context: message.context.map((c) => ({ ...c, text: clip(c.text) })) } : {}),
      });
    // Small by their schemas (ids, one sentence of at most 10,000 characters, a list of names), or a
    // request that cannot be cut: the caller fails the call.
    case 'welcome':
    case 'clientToolInvokeRequest':
    case 'clientToolCancel':
    case 'runStarted':
    case 'toolCallUpdated':
    case 'groupExpanded':
    case 'contextCompacted':
    case 'steerUpdated':
    case 'contextUsage':
    case 'modelRetry':
    case 'threadTruncated':
    case 'runFinished':
    case 'runError':
    case 'error':
      return undefined;
    default:
      return assertNever(message, 'message to the client');
  }
}

/**
 * `message` encoded, or undefined when it cannot be: a result or arguments nested thousands of
 * levels deep (JSON that parses, as parsing is iterative) overflow `JSON.stringify`'s stack, and
 * the card would never end.
 */
function encodedOrNot(message: ServerToClient): EncodedParts | undefined {
  try {
    return encodeParts(message);
  } catch (e) {
    if (e instanceof RangeError) return undefined;
    throw e;
  }
}

function leftOut(bytes: number, what: string, maxBytes: number): string {
  return `[${what} not shown here: this message would have been ${bytes} bytes, more than the editor accepts (${maxBytes})]`;
}

function clip(text: string): string {
  return text.length <= CLIPPED_TEXT_CHARS ? text : `${text.slice(0, CLIPPED_TEXT_CHARS)}…`;
}

/** A long delta as several, each short enough to fit whatever its characters; never splits a surrogate pair. */
function splitText(message: Extract<ServerToClient, { type: 'textDelta' }>, maxBytes: number): EncodedParts[] | undefined {
  const envelope = encodedBytes(encodeParts({ ...message, text: '' }));
  const units = Math.floor((maxBytes - envelope) / MAX_JSON_BYTES_PER_UNIT);
  if (units < 2) return undefined;
  const frames: EncodedParts[] = [];
  for (let start = 0; start < message.text.length; ) {
    let end = Math.min(start + units, message.text.length);
    if (end < message.text.length && /[\uD800-\uDBFF]/.test(message.text[end - 1])) end--;
    frames.push(encodeParts({ ...message, text: message.text.slice(start, end) }));
    start = end;
  }
  return frames;
}
