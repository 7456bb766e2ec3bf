import { strict as assert } from 'node:assert';
import * as jpeg from 'jpeg-js';
import { jpegOrientation, orient, type Orientation } from '../../../../src/backend/model/exifOrientation';
import { DEFAULT_IMAGE_MAX_PIXELS, prepareImage } from '../../../../src/backend/model/images';

/** A width×height JPEG whose top-left quarter is red and the rest blue. */
function cornerJpeg(width: number, height: number): Buffer {
  const data = Buffer.alloc(width * height * 4);
  for (let y = 0; y < height; y++) {
    for (let x = 0; x < width; x++) {
      const p = (y * width + x) * 4;
      if (x < width / 2 && y < height / 2) data[p] = 255;
      else data[p + 2] = 255;
      data[p + 3] = 255;
    }
  }
  return jpeg.encode({ width, height, data }, 95).data;
}

/** The JPEG with an APP1 EXIF segment (big- or little-endian TIFF) holding the orientation, right after SOI. */
function withOrientation(bytes: Buffer, orientation: number, little = false): Buffer {
  const tiff = Buffer.alloc(8 + 2 + 12 + 4);
  tiff.write(little ? 'II' : 'MM', 0, 'latin1');
  const u16 = (v: number, at: number) => (little ? tiff.writeUInt16LE(v, at) : tiff.writeUInt16BE(v, at));
  const u32 = (v: number, at: number) => (little ? tiff.writeUInt32LE(v, at) : tiff.writeUInt32BE(v, at));
  u16(42, 2);
  u32(8, 4);
  u16(1, 8); // one entry
  u16(0x0112, 10); // Orientation
  u16(3, 12); // SHORT
  u32(1, 14); // count
  u16(orientation, 18);
  const payload = Buffer.concat([Buffer.from('Exif\0\0', 'latin1'), tiff]);
  const app1 = Buffer.alloc(4);
  app1.writeUInt16BE(0xffe1, 0);
  app1.writeUInt16BE(payload.length + 2, 2);
  return Buffer.concat([bytes.subarray(0, 2), app1, payload, bytes.subarray(2)]);
}

/** Whether the pixel at (x, y) of a decoded RGBA image is reddish. */
function red(image: { width: number; data: Uint8Array }, x: number, y: number): boolean {
  const p = (y * image.width + x) * 4;
  return image.data[p] > 150 && image.data[p + 2] < 100;
}

describe('EXIF orientation of JPEGs sent to the model', () => {
  it('reads the orientation from big- and little-endian EXIF, and 1 without EXIF or from a broken segment', () => {
    const plain = cornerJpeg(8, 4);
    assert.equal(jpegOrientation(plain), 1);
    assert.equal(jpegOrientation(withOrientation(plain, 6)), 6);
    assert.equal(jpegOrientation(withOrientation(plain, 8, true)), 8);
    assert.equal(jpegOrientation(withOrientation(plain, 9)), 1, 'out of range');
    const truncated = withOrientation(plain, 6).subarray(0, 30);
    assert.equal(jpegOrientation(truncated), 1);
    assert.equal(jpegOrientation(new Uint8Array([0xff, 0xd8, 0xff, 0xe1, 0xff, 0xff])), 1, 'a segment longer than the file');
  });

  it('turns pixels as each of the eight orientations says (the red corner lands where EXIF puts it)', () => {
    // 4×2 stored, red at stored (0, 0).
    const data = new Uint8Array(4 * 2 * 4);
    data.set([255, 0, 0, 255], 0);
    const stored = { width: 4, height: 2, data };
    const where: Record<Orientation, [number, number]> = { 1: [0, 0], 2: [3, 0], 3: [3, 1], 4: [0, 1], 5: [0, 0], 6: [1, 0], 7: [1, 3], 8: [0, 3] };
    for (const [o, [x, y]] of Object.entries(where)) {
      const upright = orient(stored, Number(o) as Orientation);
      assert.deepEqual([upright.width, upright.height], Number(o) >= 5 ? [2, 4] : [4, 2], `orientation ${o} size`);
      assert.ok(red(upright, x, y), `orientation ${o}: red at ${x},${y}`);
    }
  });

  it('a downscaled photo taken on its side (orientation 6) reaches the model upright, width and height swapped', async () => {
    const bytes = withOrientation(cornerJpeg(400, 200), 6);
    const image = await prepareImage(new Uint8Array(bytes), { maxSide: 100, maxPixels: DEFAULT_IMAGE_MAX_PIXELS });
    assert.ok(image.ok);
    if (!image.ok) return;
    assert.deepEqual([image.width, image.height], [50, 100]);
    const decoded = jpeg.decode(Buffer.from(image.bytes), { useTArray: true, formatAsRGBA: true });
    assert.deepEqual([decoded.width, decoded.height], [50, 100]);
    // Stored top-left is red; turned 90° clockwise it is the top-right.
    assert.ok(red(decoded, 40, 10), 'top right is red');
    assert.ok(!red(decoded, 10, 10), 'top left is not');
  });

  it('a small photo with orientation 3 is re-encoded upright rather than sent as stored', async () => {
    const bytes = withOrientation(cornerJpeg(40, 20), 3);
    const image = await prepareImage(new Uint8Array(bytes), { maxSide: 1568, maxPixels: DEFAULT_IMAGE_MAX_PIXELS });
    assert.ok(image.ok);
    if (!image.ok) return;
    assert.notEqual(image.bytes.length, bytes.length);
    const decoded = jpeg.decode(Buffer.from(image.bytes), { useTArray: true, formatAsRGBA: true });
    assert.ok(red(decoded, 35, 15), 'the red corner is bottom right');
    assert.ok(!red(decoded, 4, 4));
  });
});
