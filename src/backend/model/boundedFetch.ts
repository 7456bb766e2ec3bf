/**
 * The fetch the SDK sends model requests with, with bounds on what it reads: each response body is
 * capped (a streamed answer's framing is about 200 bytes per token; an error body, which the SDK
 * reads whole into its message, gets a small cap), and a streamed body reaches the SDK in whole
 * server-sent events, each at most `maxEventBytes`. The SDK's SSE decoders copy their buffer and
 * scan it from the start for every chunk that arrives, which is quadratic in the size of one event:
 * handed whole events, their work is linear. Past a cap the body fails with a coded `ModelFailure`.
 */
import { ErrorCode } from '../../protocol';
import { ModelFailure } from './chatModel';

/** A streamed answer's body: 128k one-token chunks (the longest answers models give) are about 28 MB. */
export const MAX_STREAM_BODY_BYTES = 64 * 1024 * 1024;
/** An error response's body: a sentence in JSON. */
export const MAX_ERROR_BODY_BYTES = 1024 * 1024;

const SEPARATORS = [Buffer.from('\n\n'), Buffer.from('\r\n\r\n'), Buffer.from('\r\r')];

export function boundedFetch(inner: typeof fetch, where: string, maxEventBytes: number): typeof fetch {
  return async (input, init) => {
    const response = await inner(input, init);
    if (!response.body) return response;
    const maxBytes = response.ok ? MAX_STREAM_BODY_BYTES : MAX_ERROR_BODY_BYTES;
    const streamed = response.ok && (response.headers.get('content-type') ?? '').includes('text/event-stream');
    const failure = (what: string) => new ModelFailure(ErrorCode.LimitExceeded, `${where} sent ${what}, over the limit; it was not read further.`, true);
    let seen = 0;
    /** Bytes of the event under way (everything after the last separator), not handed on yet. */
    let pending: Buffer[] = [];
    let pendingBytes = 0;
    const capped = response.body.pipeThrough(
      new TransformStream<Uint8Array, Uint8Array>({
        transform(chunk, controller) {
          seen += chunk.byteLength;
          if (seen > maxBytes) return controller.error(failure(`a response of more than ${maxBytes} bytes`));
          if (!streamed) return controller.enqueue(chunk);
          const bytes = Buffer.from(chunk.buffer, chunk.byteOffset, chunk.byteLength);
          const end = lastEventEnd(pending, bytes);
          if (end < 0) {
            pending.push(bytes);
            pendingBytes += bytes.byteLength;
            if (pendingBytes > maxEventBytes) controller.error(failure(`a streamed event of more than ${maxEventBytes} bytes`));
            return;
          }
          controller.enqueue(Buffer.concat([...pending, bytes.subarray(0, end)]));
          const rest = bytes.subarray(end);
          pending = rest.byteLength ? [Buffer.from(rest)] : [];
          pendingBytes = rest.byteLength;
        },
        flush(controller) {
          if (pendingBytes > 0) controller.enqueue(Buffer.concat(pending));
        },
      }),
    );
    return new Response(capped, { status: response.status, statusText: response.statusText, headers: response.headers });
  };
}

/**
 * Where the last complete event in `chunk` ends (just after its separator), looking across the
 * chunk's start into the bytes held back; -1 when `chunk` completes no event. Native searches over
 * the new chunk and at most three held-back bytes: linear in what arrives.
 */
function lastEventEnd(pending: readonly Buffer[], chunk: Buffer): number {
  const last = pending[pending.length - 1];
  const carry = last ? last.subarray(Math.max(0, last.byteLength - 3)) : Buffer.alloc(0);
  const window = carry.byteLength ? Buffer.concat([carry, chunk]) : chunk;
  let end = -1;
  for (const sep of SEPARATORS) {
    const at = window.lastIndexOf(sep);
    if (at >= 0) end = Math.max(end, at + sep.byteLength - carry.byteLength);
  }
  return end > 0 ? end : -1;
}
