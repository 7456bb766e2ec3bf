/**
 * The worker thread that decodes, downscales and re-encodes PNG and JPEG images (pure JavaScript,
 * seconds for a few megapixels), so that no image a peer sends can stall the backend's event loop.
 * images.ts checks the header first and sends only images within the pixel cap; this file answers
 * one job at a time. Bundled to dist/backend/imageWorker.js beside cli.js and index.js.
 */
import { parentPort } from 'node:worker_threads';
import { PNG } from 'pngjs';
import * as jpeg from 'jpeg-js';
import { jpegOrientation, orient } from './exifOrientation';
import { downscale, type Rgba } from './imageScale';

const JPEG_QUALITY = 85;

export interface ImageJob {
  id: number;
  format: 'png' | 'jpeg';
  bytes: Uint8Array;
  /** What the header claims; the decoded image must match it. */
  width: number;
  height: number;
  target: { width: number; height: number };
  maxPixels: number;
}

export type ImageJobResult =
  | { id: number; ok: true; bytes: Uint8Array | undefined; width: number; height: number }
  | { id: number; ok: false; reason: string };

/** Decodes, checks, downscales and turns upright one image; `bytes` undefined means the original already fits. */
export function runImageJob(job: ImageJob): ImageJobResult {
  const { id, format, width, height, target } = job;
  let pixels: Rgba;
  try {
    pixels = decode(format, job.bytes, job.maxPixels);
  } catch (e) {
    return { id, ok: false, reason: `the ${format.toUpperCase()} could not be decoded: ${e instanceof Error ? e.message : String(e)}` };
  }
  if (pixels.width !== width || pixels.height !== height) return { id, ok: false, reason: `the ${format.toUpperCase()} decodes to a size its header does not claim` };
  // Re-encoding drops EXIF, so a turned JPEG is turned upright in its pixels; one that fits and is
  // upright goes as it is.
  const orientation = format === 'jpeg' ? jpegOrientation(job.bytes) : 1;
  const fits = target.width === width && target.height === height;
  if (fits && orientation === 1) return { id, ok: true, bytes: undefined, width, height };
  const upright = orient(fits ? pixels : downscale(pixels, target.width, target.height), orientation);
  return { id, ok: true, bytes: encode(format, upright), width: upright.width, height: upright.height };
}

function decode(format: 'png' | 'jpeg', bytes: Uint8Array, maxPixels: number): Rgba {
  const buffer = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  if (format === 'png') {
    const png = PNG.sync.read(buffer);
    return { width: png.width, height: png.height, data: png.data };
  }
  const maxMegapixels = maxPixels / 1_000_000;
  const image = jpeg.decode(buffer, { useTArray: true, formatAsRGBA: true, maxResolutionInMP: maxMegapixels, maxMemoryUsageInMB: Math.ceil(maxMegapixels * 4 * 2) + 64 });
  return { width: image.width, height: image.height, data: image.data };
}

function encode(format: 'png' | 'jpeg', image: Rgba): Uint8Array {
  if (format === 'jpeg') return new Uint8Array(jpeg.encode({ width: image.width, height: image.height, data: Buffer.from(image.data.buffer, image.data.byteOffset, image.data.byteLength) }, JPEG_QUALITY).data);
  const png = new PNG({ width: image.width, height: image.height });
  png.data = Buffer.from(image.data.buffer, image.data.byteOffset, image.data.byteLength);
  return new Uint8Array(PNG.sync.write(png, { colorType: 6 }));
}

const port = parentPort;
if (port) {
  port.on('message', (job: ImageJob) => {
    const result = runImageJob(job);
    // A copy of the bytes in a buffer of their own, so the transfer moves nothing else.
    if (result.ok && result.bytes) {
      const own = new Uint8Array(result.bytes);
      port.postMessage({ ...result, bytes: own }, [own.buffer]);
    } else port.postMessage(result);
  });
}
