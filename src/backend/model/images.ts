/**
 * Images from client tools, made ready for a model: whether the model takes images at all (the
 * `vision` setting and a table of known vision models), and each image checked, downscaled to a
 * longest side and re-encoded, or else a reason the model reads instead. Adapter-neutral: the
 * chat-completions adapter (openai.ts) and any other adapter call `prepareImage`.
 */
import { PNG } from 'pngjs';
import * as jpeg from 'jpeg-js';
import type { ContentItem } from '../../protocol';
import { IMAGE_MIME_TYPES, readImageHeader } from './imageHeader';
import { downscale, fitWithin, type Rgba } from './imageScale';

export type VisionSetting = 'auto' | 'on' | 'off';
export const VISION_SETTINGS: readonly VisionSetting[] = ['auto', 'on', 'off'];

/** The longest side images are scaled down to; vision models tile or shrink anything larger anyway. */
export const DEFAULT_IMAGE_MAX_SIDE = 1568;
/** Pixels an image may claim before it is decoded: 25 MP is 100 MB of RGBA, the most we hold at once. */
export const DEFAULT_IMAGE_MAX_PIXELS = 25_000_000;
const JPEG_QUALITY = 85;

/**
 * Model names known to accept image input, matched against the name without a provider prefix
 * (`openai/gpt-4o` → `gpt-4o`) and lower-cased. Unknown names count as text-only: an image part
 * sent to a model without vision fails the whole request, a placeholder only loses the picture.
 */
const VISION_MODELS: readonly RegExp[] = [
  /^(chatgpt-)?gpt-4o(?!.*(audio|realtime|transcribe|tts|search))/,
  /^gpt-4\.1/,
  /^gpt-4-turbo/,
  /^gpt-4-vision/,
  /^gpt-4\.5/,
  /^gpt-5(?!.*(audio|realtime|transcribe|tts))/,
  /^o1(?!-mini|-preview)/,
  /^o3(?!-mini)/,
  /^o4/,
  /^claude/,
  /^gemini/,
  /^gemma-?3/,
  /llava/,
  /^llama-?3\.2.*vision/,
  /^llama-?4/,
  /^qwen.*-?vl/,
  /^pixtral/,
  /^mistral-(small|medium)-?3/,
  /^minicpm-v/,
  /^moondream/,
  /^grok.*vision/,
  /vision/,
];

export function isKnownVisionModel(model: string): boolean {
  const name = model.toLowerCase().split('/').at(-1) ?? '';
  return VISION_MODELS.some((re) => re.test(name));
}

/** Whether `model` gets image parts: `on` and `off` decide; `auto` asks the table. */
export function visionEnabled(setting: VisionSetting, model: string): boolean {
  return setting === 'on' || (setting === 'auto' && isKnownVisionModel(model));
}

export interface ImageLimits {
  maxSide: number;
  maxPixels: number;
}

export type PreparedImage =
  | { ok: true; mimeType: string; bytes: Uint8Array; width: number; height: number; original: { width: number; height: number } }
  | { ok: false; reason: string };

type Binary = Extract<ContentItem, { type: 'binary' }>;

/** The MIME types a tool result's image is prepared for; other image types stay a text label. */
export function isModelImage(item: ContentItem): item is Binary {
  return item.type === 'binary' && /^image\/(png|jpeg|jpg|gif|webp)$/i.test(item.mimeType);
}

// A thread's history is sent again every turn: each image is decoded once per size limit.
const prepared = new WeakMap<Uint8Array, Map<string, PreparedImage>>();

export function prepareImage(bytes: Uint8Array, limits: ImageLimits): PreparedImage {
  const key = `${limits.maxSide}/${limits.maxPixels}`;
  let byLimits = prepared.get(bytes);
  const hit = byLimits?.get(key);
  if (hit) return hit;
  const result = prepareUncached(bytes, limits);
  if (!byLimits) prepared.set(bytes, (byLimits = new Map()));
  byLimits.set(key, result);
  return result;
}

function prepareUncached(bytes: Uint8Array, limits: ImageLimits): PreparedImage {
  const header = readImageHeader(bytes);
  if (!header) return { ok: false, reason: 'not a PNG, JPEG, GIF or WebP image (unreadable header)' };
  const { format, width, height } = header;
  if (width < 1 || height < 1) return { ok: false, reason: `the ${format.toUpperCase()} header claims ${width}x${height} pixels` };
  if (width * height > limits.maxPixels) {
    return { ok: false, reason: `${width}x${height} pixels is over the ${limits.maxPixels}-pixel limit for images sent to the model` };
  }
  const original = { width, height };
  const target = fitWithin(width, height, limits.maxSide);
  if (format === 'gif' || format === 'webp') {
    // No pure-JS decoder here for these: small ones go as they are, large ones cannot be shrunk.
    if (target.width === width && target.height === height) return { ok: true, mimeType: IMAGE_MIME_TYPES[format], bytes, width, height, original };
    return { ok: false, reason: `${width}x${height} ${format.toUpperCase()} is larger than ${limits.maxSide} px and only PNG and JPEG can be downscaled` };
  }
  let pixels: Rgba;
  try {
    pixels = decode(format, bytes, limits.maxPixels);
  } catch (e) {
    return { ok: false, reason: `the ${format.toUpperCase()} could not be decoded: ${e instanceof Error ? e.message : String(e)}` };
  }
  if (pixels.width !== width || pixels.height !== height) return { ok: false, reason: `the ${format.toUpperCase()} decodes to a size its header does not claim` };
  if (target.width === width && target.height === height) return { ok: true, mimeType: IMAGE_MIME_TYPES[format], bytes, width, height, original };
  const small = downscale(pixels, target.width, target.height);
  return { ok: true, mimeType: IMAGE_MIME_TYPES[format], bytes: encode(format, small), width: small.width, height: small.height, original };
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

/** What the model reads in the tool result beside the image's label: where the image went, or why it did not. */
export function imageNote(image: PreparedImage, index: number): string {
  if (!image.ok) return `not shown to the model: ${image.reason}`;
  const { width, height, original } = image;
  const size = width === original.width && height === original.height ? `${width}x${height}` : `downscaled from ${original.width}x${original.height} to ${width}x${height}`;
  return `image ${index} below, ${size}`;
}
