/**
 * The fetch the SDK sends model requests with, with a cap on the bytes of each response body. The
 * stream guard bounds what an answer keeps; this bounds what the SDK reads at all: a streamed
 * answer's framing (a one-token chunk is about 200 bytes of SSE) and error bodies, which the SDK
 * reads whole into its message. Past the cap the body fails with a coded `ModelFailure`.
 */
import { ErrorCode } from '../../protocol';
import { ModelFailure } from './chatModel';

/** A streamed answer's body: 128k one-token chunks (the longest answers models give) are about 28 MB. */
export const MAX_STREAM_BODY_BYTES = 64 * 1024 * 1024;
/** An error response's body: a sentence in JSON. */
export const MAX_ERROR_BODY_BYTES = 1024 * 1024;

export function boundedFetch(inner: typeof fetch, where: string): typeof fetch {
  return async (input, init) => {
    const response = await inner(input, init);
    if (!response.body) return response;
    const maxBytes = response.ok ? MAX_STREAM_BODY_BYTES : MAX_ERROR_BODY_BYTES;
    let seen = 0;
    const capped = response.body.pipeThrough(
      new TransformStream<Uint8Array, Uint8Array>({
        transform(chunk, controller) {
          seen += chunk.byteLength;
          if (seen > maxBytes) {
            controller.error(new ModelFailure(ErrorCode.LimitExceeded, `${where} sent a response of more than ${maxBytes} bytes, over the limit; it was not read further.`, true));
            return;
          }
          controller.enqueue(chunk);
        },
      }),
    );
    return new Response(capped, { status: response.status, statusText: response.statusText, headers: response.headers });
  };
}
