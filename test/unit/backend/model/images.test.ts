import { strict as assert } from 'node:assert';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { deflateSync } from 'node:zlib';
import * as jpeg from 'jpeg-js';
import { PNG } from 'pngjs';
import { readImageHeader } from '../../../../src/backend/model/imageHeader';
import { downscale, fitWithin } from '../../../../src/backend/model/imageScale';
import { DEFAULT_IMAGE_MAX_PIXELS, DEFAULT_IMAGE_MAX_SIDE, ImageWorker, isKnownVisionModel, prepareImage, visionEnabled, workerEntry } from '../../../../src/backend/model/images';
import { makePng } from '../../../support/png';

const limits = { maxSide: DEFAULT_IMAGE_MAX_SIDE, maxPixels: DEFAULT_IMAGE_MAX_PIXELS };

/** An RGBA image whose left half is opaque red and right half opaque blue. */
function halves(width: number, height: number): Buffer {
  const data = Buffer.alloc(width * height * 4);
  for (let y = 0; y < height; y++) {
    for (let x = 0; x < width; x++) {
      const p = (y * width + x) * 4;
      if (x < width / 2) data[p] = 255;
      else data[p + 2] = 255;
      data[p + 3] = 255;
    }
  }
  return data;
}

function pngOf(width: number, height: number): Uint8Array {
  const png = new PNG({ width, height });
  png.data = halves(width, height);
  return new Uint8Array(PNG.sync.write(png));
}

function jpegOf(width: number, height: number): Uint8Array {
  return new Uint8Array(jpeg.encode({ width, height, data: halves(width, height) }, 90).data);
}

/** A PNG whose header claims `width`×`height` and whose pixel data is a little deflated zeros. */
function pngClaiming(width: number, height: number): Uint8Array {
  const real = makePng(1, 1);
  const out = Buffer.from(real);
  out.writeUInt32BE(width, 16);
  out.writeUInt32BE(height, 20);
  const idat = deflateSync(Buffer.alloc(1 << 20));
  return new Uint8Array(Buffer.concat([out.subarray(0, 33), Buffer.from([0, 0, 0, 0]), Buffer.from('IDAT'), idat, out.subarray(out.length - 12)]));
}

describe('images for the model', () => {
  describe('the vision decision', () => {
    it('knows the vision models by name, with or without a provider prefix or a tag', () => {
      for (const name of ['gpt-4o', 'gpt-4o-mini', 'GPT-4o-2024-08-06', 'gpt-4.1-mini', 'gpt-5', 'gpt-5-nano', 'o3', 'o4-mini', 'claude-3-5-sonnet-latest', 'anthropic/claude-sonnet-4', 'gemini-2.5-flash', 'llava:13b', 'llama3.2-vision:11b', 'qwen2.5-vl-7b-instruct', 'qwen2.5vl:7b', 'openrouter/qwen/qwen3-vl-235b', 'gemma3:27b', 'pixtral-12b']) {
        assert.equal(isKnownVisionModel(name), true, name);
      }
    });

    it('counts unknown and text-only models as without vision', () => {
      for (const name of ['gpt-test', 'gpt-3.5-turbo', 'o3-mini', 'o1-mini', 'gpt-4o-audio-preview', 'gpt-4o-realtime-preview', 'llama3.1', 'qwen2.5-coder:7b', 'mistral', 'deepseek-r1', '']) {
        assert.equal(isKnownVisionModel(name), false, name);
      }
    });

    it('on and off override the table; auto follows it', () => {
      assert.equal(visionEnabled('auto', 'gpt-4o'), true);
      assert.equal(visionEnabled('auto', 'llama3.1'), false);
      assert.equal(visionEnabled('on', 'llama3.1'), true);
      assert.equal(visionEnabled('off', 'gpt-4o'), false);
    });
  });

  describe('reading the header', () => {
    it('reads the size of PNG, JPEG, GIF and WebP from their first bytes', () => {
      assert.deepEqual(readImageHeader(pngOf(7, 3)), { format: 'png', width: 7, height: 3 });
      assert.deepEqual(readImageHeader(jpegOf(9, 5)), { format: 'jpeg', width: 9, height: 5 });
      const gif = Buffer.from('GIF89a\x40\x01\xf0\x00', 'latin1');
      assert.deepEqual(readImageHeader(gif), { format: 'gif', width: 320, height: 240 });
      const webp = Buffer.alloc(30);
      webp.write('RIFF', 0, 'latin1');
      webp.write('WEBPVP8X', 8, 'latin1');
      webp.writeUIntLE(1919, 24, 3);
      webp.writeUIntLE(1079, 27, 3);
      assert.deepEqual(readImageHeader(webp), { format: 'webp', width: 1920, height: 1080 });
      assert.equal(readImageHeader(new Uint8Array([1, 2, 3])), undefined);
      assert.equal(readImageHeader(jpegOf(9, 5).subarray(0, 20)), undefined, 'a JPEG cut before its frame header');
    });
  });

  describe('downscaling', () => {
    it('fits the longest side, keeps the aspect ratio, never upscales', () => {
      assert.deepEqual(fitWithin(3000, 1000, 1568), { width: 1568, height: 523 });
      assert.deepEqual(fitWithin(2000, 3000, 1568), { width: 1045, height: 1568 });
      assert.deepEqual(fitWithin(800, 600, 1568), { width: 800, height: 600 });
      assert.deepEqual(fitWithin(10_000, 1, 100), { width: 100, height: 1 });
    });

    it('averages by area and weights colour by alpha (a transparent pixel does not darken its neighbour)', () => {
      const out = downscale({ width: 2, height: 1, data: new Uint8Array([200, 100, 50, 255, 0, 0, 0, 0]) }, 1, 1);
      assert.deepEqual([...out.data], [200, 100, 50, 128]);
    });

    it('scales a wide PNG down to the longest side, still a PNG with the same picture', async () => {
      const bytes = pngOf(2400, 800);
      const image = await prepareImage(bytes, limits);
      assert.ok(image.ok);
      assert.equal(image.mimeType, 'image/png');
      assert.deepEqual([image.width, image.height, image.original], [1568, 523, { width: 2400, height: 800 }]);
      const decoded = PNG.sync.read(Buffer.from(image.bytes));
      assert.deepEqual([decoded.width, decoded.height], [1568, 523]);
      assert.deepEqual([...decoded.data.subarray(0, 4)], [255, 0, 0, 255], 'left edge still red');
      const right = (decoded.width - 1) * 4;
      assert.deepEqual([...decoded.data.subarray(right, right + 4)], [0, 0, 255, 255], 'right edge still blue');
      assert.ok(image.bytes.length < bytes.length);
    });

    it('scales a tall JPEG down to a given longest side, still a JPEG', async () => {
      const image = await prepareImage(jpegOf(600, 900), { ...limits, maxSide: 300 });
      assert.ok(image.ok);
      assert.equal(image.mimeType, 'image/jpeg');
      const decoded = jpeg.decode(image.bytes, { useTArray: true });
      assert.deepEqual([decoded.width, decoded.height], [200, 300]);
      assert.deepEqual([...decoded.data.subarray(0, 3)].map((v) => Math.round(v / 16)), [16, 0, 0], 'left edge still red');
    });

    it('honours a smaller longest side', async () => {
      const image = await prepareImage(pngOf(640, 480), { ...limits, maxSide: 320 });
      assert.ok(image.ok);
      assert.deepEqual([image.width, image.height], [320, 240]);
    });

    it('sends an image that already fits as it is, and labels it by its bytes, not the MIME type it came with', async () => {
      const bytes = jpegOf(40, 30);
      const image = await prepareImage(bytes, limits);
      assert.ok(image.ok);
      assert.equal(image.bytes, bytes);
      assert.equal(image.mimeType, 'image/jpeg');
    });

    it('decodes each image once, however many turns send the history again', async () => {
      const bytes = pngOf(400, 100);
      const small = { ...limits, maxSide: 200 };
      const first = prepareImage(bytes, small);
      assert.ok(first === prepareImage(bytes, small), 'a second turn waits for the same job');
      await first;
      assert.equal(await prepareImage(bytes, small), await prepareImage(bytes, small));
    });
  });

  describe('what is not sent', () => {
    it('refuses a PNG whose header claims 100000x100000 pixels, before decoding it', async () => {
      const image = await prepareImage(pngClaiming(100_000, 100_000), limits);
      assert.deepEqual(image, { ok: false, reason: '100000x100000 pixels is over the 25000000-pixel limit for images sent to the model' });
    });

    it('refuses a JPEG whose header claims 65535x65535 pixels', async () => {
      const bytes = Buffer.from(jpegOf(8, 8));
      const sof = bytes.indexOf(Buffer.from([0xff, 0xc0]));
      bytes.writeUInt16BE(65535, sof + 5);
      bytes.writeUInt16BE(65535, sof + 7);
      const image = await prepareImage(new Uint8Array(bytes), limits);
      assert.equal(image.ok, false);
      assert.match(image.ok ? '' : image.reason, /^65535x65535 pixels is over the 25000000-pixel limit/);
    });

    it('gives the reason for bytes that are no image, a corrupt PNG, and a large GIF it cannot shrink', async () => {
      assert.deepEqual(await prepareImage(new Uint8Array([1, 2, 3]), limits), { ok: false, reason: 'not a PNG, JPEG, GIF or WebP image (unreadable header)' });
      const corrupt = Buffer.from(makePng(4, 4));
      corrupt.fill(0x55, 41, corrupt.length - 12); // the compressed pixel data
      const bad = await prepareImage(new Uint8Array(corrupt), limits);
      assert.equal(bad.ok, false);
      assert.match(bad.ok ? '' : bad.reason, /^the PNG could not be decoded: /);
      const gif = Buffer.from('GIF89a\xd0\x07\x10\x00', 'latin1');
      assert.deepEqual(await prepareImage(gif, limits), { ok: false, reason: '2000x16 GIF is larger than 1568 px and only PNG and JPEG can be downscaled' });
      const smallGif = Buffer.from('GIF89a\x10\x00\x10\x00', 'latin1');
      assert.equal((await prepareImage(smallGif, limits)).ok, true);
    });
  });

  describe('the image worker', () => {
    const job = { format: 'png' as const, bytes: pngOf(2400, 800), width: 2400, height: 800, target: { width: 1568, height: 523 }, maxPixels: DEFAULT_IMAGE_MAX_PIXELS };
    let worker: ImageWorker | undefined;
    afterEach(async () => {
      await worker?.close();
      worker = undefined;
    });

    it('gives an image over its time limit the placeholder "took too long", then works again with a new worker', async () => {
      worker = new ImageWorker({ maxQueued: 4, timeoutMs: 1 });
      assert.deepEqual(await worker.run(job), { ok: false, reason: 'the image took too long to downscale (over 1 ms)' });
      worker.options.timeoutMs = 60_000;
      const again = await worker.run(job);
      assert.ok(again.ok);
      assert.deepEqual([again.width, again.height], [1568, 523]);
    });

    it('a worker that dies mid-image gives that image a placeholder with the exit code; the next image gets a new worker and works', async () => {
      const real = workerEntry();
      assert.ok(real, 'the image worker entry is found');
      const dir = mkdtempSync(path.join(tmpdir(), 'image-worker-'));
      const marker = path.join(dir, 'crashed');
      // The first worker dies on its first job, as one killed by the OOM killer or a native fault would;
      // later workers are the real one.
      const script = `
        const fs = require('node:fs');
        const { parentPort } = require('node:worker_threads');
        if (!fs.existsSync(${JSON.stringify(marker)})) {
          fs.writeFileSync(${JSON.stringify(marker)}, '');
          parentPort.once('message', () => process.exit(3));
        } else if (${JSON.stringify(real.options?.eval === true)}) {
          eval(${JSON.stringify(real.file)});
        } else {
          require(${JSON.stringify(real.file)});
        }`;
      try {
        worker = new ImageWorker({ maxQueued: 4, timeoutMs: 60_000, entry: { file: script, options: { eval: true } } });
        assert.deepEqual(await worker.run(job), { ok: false, reason: 'the image worker stopped (exit code 3)' });
        const again = await worker.run(job);
        assert.ok(again.ok, JSON.stringify(again));
        assert.deepEqual([again.width, again.height], [1568, 523]);
      } finally {
        rmSync(dir, { recursive: true, force: true });
      }
    });

    it('answers past the queue bound at once with a placeholder and the reason', async () => {
      worker = new ImageWorker({ maxQueued: 1, timeoutMs: 60_000 });
      const first = worker.run(job); // on the worker
      const second = worker.run(job); // waiting
      assert.deepEqual(await worker.run(job), { ok: false, reason: 'too many images are waiting to be downscaled (1); try again later', transient: true });
      assert.ok((await first).ok);
      assert.ok((await second).ok);
    });
  });
});
