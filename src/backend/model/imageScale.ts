/**
 * Downscales RGBA pixels by area averaging (each output pixel is the alpha-weighted mean of the
 * source pixels it covers), the filter that keeps text and thin lines legible when shrinking.
 * Works one output row at a time, so memory beyond the two images is one row of accumulators.
 */

export interface Rgba {
  width: number;
  height: number;
  /** width × height × 4 bytes, row by row. */
  data: Uint8Array;
}

/** The size that fits `maxSide` on the longer side, keeping the aspect ratio (never upscales, never 0). */
export function fitWithin(width: number, height: number, maxSide: number): { width: number; height: number } {
  const scale = Math.min(1, maxSide / Math.max(width, height));
  return { width: Math.max(1, Math.round(width * scale)), height: Math.max(1, Math.round(height * scale)) };
}

interface Span {
  from: number;
  weights: Float64Array;
}

/** For each output index, the source indices it covers and how much of each (weights sum to 1). */
function spans(source: number, target: number): Span[] {
  const scale = source / target;
  return Array.from({ length: target }, (_, i) => {
    const start = i * scale;
    const end = Math.min(source, (i + 1) * scale);
    const from = Math.floor(start);
    const to = Math.min(source, Math.ceil(end));
    const weights = new Float64Array(to - from);
    for (let s = from; s < to; s++) weights[s - from] = (Math.min(end, s + 1) - Math.max(start, s)) / scale;
    return { from, weights };
  });
}

export function downscale(image: Rgba, width: number, height: number): Rgba {
  const columns = spans(image.width, width);
  const rows = spans(image.height, height);
  const out = new Uint8Array(width * height * 4);
  const row = new Float64Array(width * 4); // premultiplied r, g, b and a, summed over the source rows
  const src = image.data;
  for (let y = 0; y < height; y++) {
    row.fill(0);
    const { from: fromRow, weights: rowWeights } = rows[y];
    for (let r = 0; r < rowWeights.length; r++) {
      const base = (fromRow + r) * image.width * 4;
      for (let x = 0; x < width; x++) {
        const { from, weights } = columns[x];
        let red = 0, green = 0, blue = 0, alpha = 0;
        for (let c = 0; c < weights.length; c++) {
          const p = base + (from + c) * 4;
          const w = weights[c] * src[p + 3];
          red += w * src[p];
          green += w * src[p + 1];
          blue += w * src[p + 2];
          alpha += w;
        }
        const o = x * 4;
        const rw = rowWeights[r];
        row[o] += rw * red;
        row[o + 1] += rw * green;
        row[o + 2] += rw * blue;
        row[o + 3] += rw * alpha;
      }
    }
    for (let x = 0; x < width; x++) {
      const i = x * 4;
      const alpha = row[i + 3];
      const o = (y * width + x) * 4;
      if (alpha > 0) {
        out[o] = Math.round(row[i] / alpha);
        out[o + 1] = Math.round(row[i + 1] / alpha);
        out[o + 2] = Math.round(row[i + 2] / alpha);
      }
      out[o + 3] = Math.round(alpha);
    }
  }
  return { width, height, data: out };
}
