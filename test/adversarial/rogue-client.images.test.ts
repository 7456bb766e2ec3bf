/**
 * T-IMG-01: a rogue client answers ReadFile with decompression bombs: a PNG whose header claims 100000×100000
 * pixels (40 GB of RGBA) over a real deflate stream of zeros, and a JPEG claiming 65535×65535. The
 * real backend, with images on, must refuse both from their headers, without decoding: the model
 * reads the reason, the run completes, and the backend's memory does not grow with the claim.
 * T-IMG-02: a client answers with a real 12-megapixel JPEG, seconds of pure-JavaScript decoding; the
 * backend's event loop (this process's: the backend runs in it) must keep turning meanwhile, and a
 * second client's handshake must complete while the image is prepared.
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

/** A width×height JPEG of a colour gradient: real pixels, so decoding costs what a photo's would. */
function bigJpeg(width: number, height: number): Uint8Array<ArrayBuffer> {
  const data = Buffer.alloc(width * height * 4);
  for (let y = 0; y < height; y++) {
    for (let x = 0; x < width; x++) {
      const p = (y * width + x) * 4;
      data[p] = (x * 255) / width;
      data[p + 1] = (y * 255) / height;
      data[p + 2] = 128;
      data[p + 3] = 255;
    }
  }
  return new Uint8Array(jpeg.encode({ width, height, data }, 75).data);
}

/**
 * Generous: a tick or a handshake takes milliseconds; decoding the image on the event loop took seconds (the
 * whole of the image's preparation, one stall). On a loaded machine (a fresh-clone CI at load 12 saw a 517 ms
 * gap while the image took 5,174 ms) the bound grows with the preparation it is measured against: a quarter
 * of it, never under 500 ms; the old code's stall was the decode itself, most of the preparation.
 */
const STALL_BOUND_MS = 500;
const stallBound = (preparingMs: number): number => Math.max(STALL_BOUND_MS, preparingMs / 4);

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

  it('T-IMG-02 while a 4000x3000 JPEG is decoded and downscaled, the event loop never stalls over 500 ms and a second client completes its handshake', async function () {
    this.timeout(120_000);
    const big = bigJpeg(4000, 3000);
    // A photo's JPEG is megabytes: the history keeps it whole, as a backend configured for photos would.
    h = await harness({ historyResultBytes: 8 * 1024 * 1024, historyBudgetBytes: 16 * 1024 * 1024 }, { preExpanded: ['IDE'] }, { model: 'gpt-4o', vision: 'on' });
    const backend = h;
    h.fake.enqueue({ toolCalls: [{ name: 'ReadFile', id: 'call_big', arguments: { path: 'photo.jpg' } }] }, { text: 'A gradient.' });

    let maxGap = 0;
    let last = performance.now();
    const ticker = setInterval(() => {
      const now = performance.now();
      maxGap = Math.max(maxGap, now - last);
      last = now;
    }, 10);
    let answeredAt = 0;
    let second: Promise<{ handshakeMs: number; doneAt: number }> | undefined;
    h.client.autoAnswer(() => {
      answeredAt = performance.now();
      // Once the answer has reached the backend and the image is being prepared. Counted from when
      // the connection was due: a stalled loop delays the timer itself, not only the handshake.
      const due = answeredAt + 100;
      second = new Promise((resolve, reject) => {
        setTimeout(() => {
          backend.connect().then(() => resolve({ handshakeMs: performance.now() - due, doneAt: performance.now() }), reject);
        }, 100);
      });
      return { success: true, content: [{ type: 'binary', mimeType: 'image/jpeg', filename: 'photo.jpg', bytes: big }] };
    });
    let finishedAt: number;
    try {
      const { finished } = await h.client.run('t1', 'describe photo.jpg', 110_000);
      finishedAt = performance.now();
      assert.equal(finished.reason, 'completed');
    } finally {
      clearInterval(ticker);
    }
    assert.ok(second, 'the tool was called');
    const { handshakeMs, doneAt } = await second;
    const preparingMs = finishedAt - answeredAt;

    const messages = h.fake.requests[1].body.messages;
    assert.equal(messages.find((m) => m.role === 'tool')?.content, `[photo.jpg: image/jpeg, ${big.length} bytes; image 1 below, downscaled from 4000x3000 to 1568x1176]`);
    assert.ok(preparingMs > STALL_BOUND_MS, `the image took ${preparingMs.toFixed(0)} ms to prepare: too fast to show a stall`);
    assert.ok(doneAt < finishedAt, 'the second handshake completed while the image was prepared');
    assert.ok(handshakeMs < stallBound(preparingMs), `the second client's handshake completed ${handshakeMs.toFixed(0)} ms after it was due`);
    assert.ok(maxGap < stallBound(preparingMs), `the event loop stalled for ${maxGap.toFixed(0)} ms while the image took ${preparingMs.toFixed(0)} ms`);
    console.log(`      event loop max delay ${maxGap.toFixed(0)} ms; image prepared in ${preparingMs.toFixed(0)} ms; second handshake ${handshakeMs.toFixed(0)} ms`);
  });
});
