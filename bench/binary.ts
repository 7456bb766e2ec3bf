/**
 * 2. Binary results: a client tool answering 64 KiB, 1 MiB and 16 MiB of binary content through the
 *    full stack (binary frame with a JSON header, see src/protocol/codec.ts), against the same bytes
 *    as one raw binary ws frame, and as base64 inside JSON over ws (encoded by the answering side,
 *    parsed and decoded by the asking side). The baselines' clients send unmasked frames as ours
 *    does on loopback (src/core/connection.ts); one more raw frame with ws's default random masking
 *    shows what that saves.
 */
import { randomBytes } from 'node:crypto';
import { blobTool, startStack } from './lib/stack';
import { rawWsSubject } from './roundtrip';
import { interleavedLatency, median, type Subject } from './lib/stats';

export const SIZES = [64 * 1024, 1024 * 1024, 16 * 1024 * 1024];

export interface BinaryResult {
  /** Median µs per size (bytes → subject → µs). */
  medianUs: Record<number, Record<string, number>>;
  samples: Record<number, number>;
}

const REQUEST = Buffer.from(JSON.stringify({ type: 'clientToolInvokeRequest', requestId: `req_${'0'.repeat(36)}`, toolName: 'Blob', callId: `call_${'0'.repeat(36)}`, arguments: { size: 0 }, timeoutMs: 30_000 }));

export async function benchBinary(options: { quick: boolean }): Promise<BinaryResult> {
  const buffers = new Map(SIZES.map((n) => [n, new Uint8Array(randomBytes(n))]));
  // 16 MiB of content plus its JSON header is over the default 16 MiB result cap; the setting goes to 128 MiB.
  const stack = await startStack([blobTool(buffers)], { limits: { maxResultBytes: 32 * 1024 * 1024 } });
  const result: BinaryResult = { medianUs: {}, samples: {} };
  try {
    for (const size of SIZES) {
      const bytes = buffers.get(size)!;
      let received = 0;
      const full: Subject = {
        name: 'client-tools (binary frame)',
        async call() {
          const r = await stack.backend.invokeClientTool(stack.sessionId, 'Blob', { size });
          const item = r.content[0];
          if (r.outcome !== 'succeeded' || item?.type !== 'binary' || item.bytes.byteLength !== size) throw new Error(`Blob ended ${r.outcome}: ${r.errorCode} ${r.errorMessage}`);
        },
        close: async () => {},
      };
      const raw = await rawWsSubject('raw binary ws frame', REQUEST, Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength), (data, isBinary) => {
        if (!isBinary || data.length !== size) throw new Error('raw frame lost bytes');
        received += data.length;
      }, true);
      const rawMasked = await rawWsSubject('raw binary ws frame, masked', REQUEST, Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength), (data, isBinary) => {
        if (!isBinary || data.length !== size) throw new Error('raw frame lost bytes');
      }, true, true);
      const base64 = await rawWsSubject(
        'base64 in JSON over ws',
        REQUEST,
        () => JSON.stringify({ type: 'clientToolInvokeResponse', requestId: `req_${'0'.repeat(36)}`, success: true, content: [{ type: 'binary', mimeType: 'application/octet-stream', byteLength: size, data: Buffer.from(bytes).toString('base64') }] }),
        (data) => {
          const msg = JSON.parse(data.toString('utf8')) as { content: { data: string }[] };
          const decoded = Buffer.from(msg.content[0].data, 'base64');
          if (decoded.length !== size) throw new Error('base64 lost bytes');
          received += decoded.length;
        },
      );
      // About 8 MiB per subject and round (4 MiB quick), at least 2 calls: 16 MiB calls take a quarter second.
      const perRound = Math.max(2, Math.round(((options.quick ? 4 : 8) * 1024 * 1024) / size));
      const subjects = [full, raw, rawMasked, base64];
      const lat = await interleavedLatency(subjects, 4, perRound, Math.min(perRound, 32));
      result.medianUs[size] = Object.fromEntries([...lat].map(([k, v]) => [k, median(v)]));
      result.samples[size] = lat.get(full.name)!.length;
      await raw.close();
      await rawMasked.close();
      await base64.close();
      if (received === 0) throw new Error('the baselines received nothing');
    }
  } finally {
    await stack.close();
  }
  return result;
}
