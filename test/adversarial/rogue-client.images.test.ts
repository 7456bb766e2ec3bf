/**
 * A rogue client answers ReadFile with decompression bombs: a PNG whose header claims 100000×100000
 * pixels (40 GB of RGBA) over a real deflate stream of zeros, and a JPEG claiming 65535×65535. The
 * real backend, with images on, must refuse both from their headers, without decoding: the model
 * reads the reason, the run completes, and the backend's memory does not grow with the claim.
 */
import * as assert from 'node:assert/strict';
import { deflateSync } from 'node:zlib';
import * as jpeg from 'jpeg-js';
import { makePng } from '../support/png';
import type { Harness } from '../support/backend-harness';
import { harness } from '../support/backend-harness';

function pngBomb(): Uint8Array<ArrayBuffer> {
  const real = makePng(1, 1);
  const ihdr = Buffer.from(real.subarray(0, 33));
  ihdr.writeUInt32BE(100_000, 16);
  ihdr.writeUInt32BE(100_000, 20);
  // 64 MiB of zero rows in about 64 KB: what a decoder would start inflating.
  const data = deflateSync(Buffer.alloc(64 * 1024 * 1024));
  const length = Buffer.alloc(4);
  length.writeUInt32BE(data.length, 0);
  return new Uint8Array(Buffer.concat([ihdr, length, Buffer.from('IDAT'), data, Buffer.alloc(4), real.subarray(real.length - 12)]));
}

function jpegBomb(): Uint8Array<ArrayBuffer> {
  const bytes = Buffer.from(jpeg.encode({ width: 8, height: 8, data: Buffer.alloc(8 * 8 * 4, 255) }, 90).data);
  const sof = bytes.indexOf(Buffer.from([0xff, 0xc0]));
  bytes.writeUInt16BE(65535, sof + 5);
  bytes.writeUInt16BE(65535, sof + 7);
  return new Uint8Array(bytes);
}

describe('rogue client: image bombs', () => {
  let h: Harness | undefined;
  afterEach(async () => {
    await h?.close();
    h = undefined;
  });

  it('T-IMG-01 images claiming 100000x100000 and 65535x65535 pixels are refused from the header, never decoded; memory stays bounded', async () => {
    h = await harness({}, { preExpanded: ['IDE'] }, { model: 'gpt-4o', vision: 'on' });
    const png = pngBomb();
    const jpg = jpegBomb();
    h.fake.enqueue({ toolCalls: [{ name: 'ReadFile', id: 'call_bomb', arguments: { path: 'bomb.png' } }] }, { text: 'That image is too large.' });
    h.client.autoAnswer(() => ({
      success: true,
      content: [
        { type: 'binary', mimeType: 'image/png', filename: 'bomb.png', bytes: png },
        { type: 'binary', mimeType: 'image/jpeg', filename: 'bomb.jpg', bytes: jpg },
      ],
    }));
    const before = process.memoryUsage();
    const { finished } = await h.client.run('t1', 'show me bomb.png');
    const after = process.memoryUsage();
    assert.equal(finished.reason, 'completed');

    const messages = h.fake.requests[1].body.messages;
    assert.equal(
      messages.find((m) => m.role === 'tool')?.content,
      `[bomb.png: image/png, ${png.length} bytes; not shown to the model: 100000x100000 pixels is over the 25000000-pixel limit for images sent to the model]\n` +
        `[bomb.jpg: image/jpeg, ${jpg.length} bytes; not shown to the model: 65535x65535 pixels is over the 25000000-pixel limit for images sent to the model]`,
    );
    assert.ok(!messages.some((m) => Array.isArray(m.content)), 'no image part was sent');
    const grown = after.arrayBuffers + after.heapUsed - (before.arrayBuffers + before.heapUsed);
    assert.ok(grown < 64 * 1024 * 1024, `memory grew by ${Math.round(grown / 1024 / 1024)} MiB`);
  });
});
