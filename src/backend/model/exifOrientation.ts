/**
 * A JPEG's EXIF orientation, and pixels turned upright by it. Phones store photos as the sensor saw
 * them and say in EXIF how to turn them; re-encoding a downscaled image drops EXIF, so the worker
 * turns the pixels itself or the model would see the photo on its side. The parser reads only the
 * markers before the image data and the first IFD, with every offset checked against the buffer.
 */
import type { Rgba } from './imageScale';

/** 1 is upright; 2–8 are the mirrorings and rotations TIFF/EXIF define. */
export type Orientation = 1 | 2 | 3 | 4 | 5 | 6 | 7 | 8;

const ORIENTATION_TAG = 0x0112;
const SHORT = 3;
/** More IFD0 entries than any camera writes: a larger count is a hostile or broken file. */
const MAX_ENTRIES = 512;

/** The orientation in a JPEG's APP1 EXIF segment; 1 when there is none or it cannot be read. */
export function jpegOrientation(bytes: Uint8Array): Orientation {
  if (bytes.length < 4 || bytes[0] !== 0xff || bytes[1] !== 0xd8) return 1;
  let at = 2;
  while (at + 4 <= bytes.length && bytes[at] === 0xff) {
    const marker = bytes[at + 1];
    // Start of scan or end of image: EXIF, if any, came before.
    if (marker === 0xda || marker === 0xd9) return 1;
    const length = (bytes[at + 2] << 8) | bytes[at + 3];
    if (length < 2 || at + 2 + length > bytes.length) return 1;
    if (marker === 0xe1) {
      const found = exifOrientation(bytes.subarray(at + 4, at + 2 + length));
      if (found) return found;
    }
    at += 2 + length;
  }
  return 1;
}

function exifOrientation(segment: Uint8Array): Orientation | undefined {
  // "Exif\0\0", then a TIFF header: byte order, 42, the offset of IFD0.
  if (segment.length < 14 || String.fromCharCode(...segment.subarray(0, 4)) !== 'Exif' || segment[4] !== 0 || segment[5] !== 0) return undefined;
  const tiff = new DataView(segment.buffer, segment.byteOffset + 6, segment.length - 6);
  const order = tiff.getUint16(0);
  if (order !== 0x4949 && order !== 0x4d4d) return undefined;
  const little = order === 0x4949;
  if (tiff.getUint16(2, little) !== 42) return undefined;
  const ifd = tiff.getUint32(4, little);
  if (ifd + 2 > tiff.byteLength) return undefined;
  const count = tiff.getUint16(ifd, little);
  if (count > MAX_ENTRIES) return undefined;
  for (let i = 0; i < count; i++) {
    const entry = ifd + 2 + i * 12;
    if (entry + 12 > tiff.byteLength) return undefined;
    if (tiff.getUint16(entry, little) !== ORIENTATION_TAG) continue;
    if (tiff.getUint16(entry + 2, little) !== SHORT) return undefined;
    const value = tiff.getUint16(entry + 8, little);
    return value >= 1 && value <= 8 ? (value as Orientation) : undefined;
  }
  return undefined;
}

/** The pixels as they should be seen: `orientation` applied (5–8 swap width and height). */
export function orient(image: Rgba, orientation: Orientation): Rgba {
  if (orientation === 1) return image;
  const { width: w, height: h, data } = image;
  const swap = orientation >= 5;
  const outW = swap ? h : w;
  const outH = swap ? w : h;
  const out = new Uint8Array(data.length);
  // One 32-bit word per RGBA pixel; a view needs 4-byte alignment, which a slice gives.
  const aligned = data.byteOffset % 4 === 0 ? data : data.slice();
  const src = new Uint32Array(aligned.buffer, aligned.byteOffset, w * h);
  const dst = new Uint32Array(out.buffer);
  for (let y = 0; y < h; y++) {
    for (let x = 0; x < w; x++) {
      // Where the stored pixel (x, y) lands in the upright image.
      let u: number;
      let v: number;
      switch (orientation) {
        case 2: u = w - 1 - x; v = y; break;
        case 3: u = w - 1 - x; v = h - 1 - y; break;
        case 4: u = x; v = h - 1 - y; break;
        case 5: u = y; v = x; break;
        case 6: u = h - 1 - y; v = x; break;
        case 7: u = h - 1 - y; v = w - 1 - x; break;
        case 8: u = y; v = w - 1 - x; break;
      }
      dst[v * outW + u] = src[y * w + x];
    }
  }
  return { width: outW, height: outH, data: out };
}
