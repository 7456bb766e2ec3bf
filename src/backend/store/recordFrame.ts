/**
 * How a record sits in a thread's log: an 8-byte header (payload length, CRC-32 of the payload, both
 * big-endian u32) then the payload. A write cut short by a crash (`kill -9`, power loss) leaves a
 * final frame that is shorter than its header says or whose checksum does not match; the scan stops
 * there, so a torn tail is dropped and every frame before it is read as written. A length field is
 * never trusted for an allocation: it must fit in what is left of the file and under the cap.
 */
import type { FileHandle } from 'node:fs/promises';

export const FRAME_HEADER_BYTES = 8;

/** One record's payload may not be larger (a thread's tool result is kept far smaller). */
export const MAX_RECORD_BYTES = 64 * 1024 * 1024;

const CRC_TABLE = (() => {
  const table = new Uint32Array(256);
  for (let n = 0; n < 256; n++) {
    let c = n;
    for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
    table[n] = c >>> 0;
  }
  return table;
})();

/** CRC-32 (IEEE), the checksum gzip and PNG use; zlib.crc32 needs Node 22. */
export function crc32(data: Uint8Array): number {
  let c = 0xffffffff;
  for (const byte of data) c = CRC_TABLE[(c ^ byte) & 0xff] ^ (c >>> 8);
  return (c ^ 0xffffffff) >>> 0;
}

export function encodeFrame(payload: Buffer): Buffer {
  if (payload.length > MAX_RECORD_BYTES) throw new RangeError(`a record of ${payload.length} bytes is over the ${MAX_RECORD_BYTES}-byte cap`);
  const header = Buffer.alloc(FRAME_HEADER_BYTES);
  header.writeUInt32BE(payload.length, 0);
  header.writeUInt32BE(crc32(payload), 4);
  return Buffer.concat([header, payload]);
}

export interface ScanResult {
  /** Offset just past the last good frame: where the next append must start. */
  goodEnd: number;
  /** Why the scan stopped before the end of the file, when it did. */
  problem?: string;
}

/**
 * Reads frames from offset 0 and hands each payload to `accept`, which returns false to stop
 * (a payload that is not a record). Never reads more than `size` bytes nor allocates more than
 * one frame at a time.
 */
export async function scanFrames(file: FileHandle, size: number, accept: (payload: Buffer) => boolean): Promise<ScanResult> {
  const header = Buffer.alloc(FRAME_HEADER_BYTES);
  let offset = 0;
  while (offset < size) {
    const left = size - offset;
    if (left < FRAME_HEADER_BYTES) return { goodEnd: offset, problem: `a torn frame header of ${left} bytes at the end` };
    await readExactly(file, header, offset);
    const length = header.readUInt32BE(0);
    const checksum = header.readUInt32BE(4);
    if (length > MAX_RECORD_BYTES) return { goodEnd: offset, problem: `a frame at byte ${offset} claims ${length} bytes, over the cap` };
    if (length > left - FRAME_HEADER_BYTES) return { goodEnd: offset, problem: `a torn frame at byte ${offset} (${length} bytes claimed, ${left - FRAME_HEADER_BYTES} present)` };
    const payload = Buffer.alloc(length);
    await readExactly(file, payload, offset + FRAME_HEADER_BYTES);
    if (crc32(payload) !== checksum) return { goodEnd: offset, problem: `a frame at byte ${offset} fails its checksum` };
    if (!accept(payload)) return { goodEnd: offset, problem: `a frame at byte ${offset} holds no valid record` };
    offset += FRAME_HEADER_BYTES + length;
  }
  return { goodEnd: offset };
}

async function readExactly(file: FileHandle, into: Buffer, position: number): Promise<void> {
  let done = 0;
  while (done < into.length) {
    const { bytesRead } = await file.read(into, done, into.length - done, position + done);
    if (bytesRead === 0) throw new Error(`the file ended at byte ${position + done} while reading`);
    done += bytesRead;
  }
}
