/**
 * Images from client tools, made ready for a model: whether the model takes images at all (the
 * `vision` setting and a table of known vision models), and each image checked, downscaled to a
 * longest side and re-encoded, or else a reason the model reads instead. Adapter-neutral: the
 * chat-completions adapter (openai.ts) and any other adapter call `prepareImage`.
 */
import { existsSync } from 'node:fs';
import * as path from 'node:path';
import { Worker } from 'node:worker_threads';
import type { ContentItem } from '../../protocol';
import { IMAGE_MIME_TYPES, readImageHeader } from './imageHeader';
import { fitWithin } from './imageScale';
import type { ImageJob, ImageJobResult } from './imageWorker';

export type VisionSetting = 'auto' | 'on' | 'off';
export const VISION_SETTINGS: readonly VisionSetting[] = ['auto', 'on', 'off'];

/** The longest side images are scaled down to; vision models tile or shrink anything larger anyway. */
export const DEFAULT_IMAGE_MAX_SIDE = 1568;
/** Pixels an image may claim before it is decoded: 25 MP is 100 MB of RGBA, the most we hold at once. */
export const DEFAULT_IMAGE_MAX_PIXELS = 25_000_000;
/** Images waiting for the worker beyond the one it is on; more get a placeholder at once. */
export const DEFAULT_IMAGE_MAX_QUEUED = 16;
/** How long the worker may spend on one image (a 25 MP JPEG takes about 25 s on a slow machine). */
export const DEFAULT_IMAGE_TIMEOUT_MS = 60_000;

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

// A thread's history is sent again every turn: each image is decoded once per size limit. The
// promise is kept, so a turn that asks while the worker is still on the image waits for the same job.
const prepared = new WeakMap<Uint8Array, Map<string, Promise<PreparedImage>>>();

/**
 * The image ready for the model, or the reason it is not sent. Header checks run here; decoding,
 * downscaling and re-encoding run on a worker thread, never on the backend's event loop.
 */
export function prepareImage(bytes: Uint8Array, limits: ImageLimits): Promise<PreparedImage> {
  const key = `${limits.maxSide}/${limits.maxPixels}`;
  const byLimits = prepared.get(bytes);
  const hit = byLimits?.get(key);
  if (hit) return hit;
  const cache = byLimits ?? new Map<string, Promise<PreparedImage>>();
  if (!byLimits) prepared.set(bytes, cache);
  const result = prepareUncached(bytes, limits).then((image) => {
    // A full queue says nothing about the image: the next turn tries again.
    if (!image.ok && 'transient' in image) cache.delete(key);
    return image.ok ? image : { ok: false as const, reason: image.reason };
  });
  cache.set(key, result);
  return result;
}

type Prepared = PreparedImage | { ok: false; reason: string; transient: true };

async function prepareUncached(bytes: Uint8Array, limits: ImageLimits): Promise<Prepared> {
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
  const done = await imageWorker.run({ format, bytes, width, height, target, maxPixels: limits.maxPixels });
  if (!done.ok) return done;
  return { ok: true, mimeType: IMAGE_MIME_TYPES[format], bytes: done.bytes ?? bytes, width: done.width, height: done.height, original };
}

type JobOutcome = Exclude<ImageJobResult, { ok: false }> | { ok: false; reason: string; transient?: true };

interface Pending {
  job: ImageJob;
  resolve: (outcome: JobOutcome) => void;
}

/** A worker thread's script and its options (`eval: true` when `file` is code). */
export interface WorkerEntry {
  file: string;
  options: ConstructorParameters<typeof Worker>[1];
}

/** Where the worker's entry is: beside the bundle (dist/backend/imageWorker.js), or the source run through tsx. */
export function workerEntry(): WorkerEntry | undefined {
  const bundled = path.join(__dirname, 'imageWorker.js');
  if (existsSync(bundled)) return { file: bundled, options: {} };
  const source = path.join(__dirname, 'imageWorker.ts');
  // Tests run the backend from source with tsx's CommonJS hook; the worker registers it too.
  if (existsSync(source)) return { file: `require('tsx/cjs'); require(${JSON.stringify(source)});`, options: { eval: true } };
  return undefined;
}

/**
 * One long-lived worker, started at the first image, working through a bounded queue one image at
 * a time. An image over its time limit or a worker that dies gets a placeholder; the worker is then
 * replaced at the next image. Nothing here throws to the caller.
 */
export class ImageWorker {
  private worker: Worker | undefined;
  private current: (Pending & { timer: NodeJS.Timeout }) | undefined;
  private readonly queue: Pending[] = [];
  private nextId = 1;

  constructor(readonly options: { maxQueued: number; timeoutMs: number; entry?: WorkerEntry }) {}

  run(job: Omit<ImageJob, 'id'>): Promise<JobOutcome> {
    if (this.queue.length >= this.options.maxQueued) {
      return Promise.resolve({ ok: false, reason: `too many images are waiting to be downscaled (${this.options.maxQueued}); try again later`, transient: true });
    }
    return new Promise((resolve) => {
      this.queue.push({ job: { ...job, id: this.nextId++ }, resolve });
      this.pump();
    });
  }

  /** Stops the worker; images still waiting get a placeholder. */
  async close(): Promise<void> {
    for (const p of this.queue.splice(0)) p.resolve({ ok: false, reason: 'the backend is shutting down' });
    this.finish({ ok: false, reason: 'the backend is shutting down' });
    const worker = this.worker;
    this.worker = undefined;
    await worker?.terminate();
  }

  private pump(): void {
    if (this.current) return;
    const next = this.queue.shift();
    if (!next) return;
    const worker = this.worker ?? this.start();
    if (!worker) {
      next.resolve({ ok: false, reason: 'the image worker could not be started (imageWorker.js is missing beside the backend)' });
      this.pump();
      return;
    }
    const timer = setTimeout(() => {
      this.discard(worker);
      const limit = this.options.timeoutMs >= 1000 ? `${Math.round(this.options.timeoutMs / 1000)} s` : `${this.options.timeoutMs} ms`;
      this.finish({ ok: false, reason: `the image took too long to downscale (over ${limit})` });
    }, this.options.timeoutMs);
    this.current = { ...next, timer };
    // A copy: the caller's bytes stay usable (and cached) while the worker owns the copy.
    const bytes = new Uint8Array(next.job.bytes);
    worker.postMessage({ ...next.job, bytes }, [bytes.buffer]);
  }

  private start(): Worker | undefined {
    const entry = this.options.entry ?? workerEntry();
    if (!entry) return undefined;
    let worker: Worker;
    try {
      worker = new Worker(entry.file, entry.options);
    } catch {
      return undefined;
    }
    worker.on('message', (result: ImageJobResult) => {
      if (worker === this.worker && this.current?.job.id === result.id) this.finish(result);
    });
    worker.on('error', (e) => {
      if (worker !== this.worker) return;
      this.discard(worker);
      this.finish({ ok: false, reason: `the image worker failed: ${e.message}` });
    });
    worker.on('exit', (code) => {
      if (worker !== this.worker) return;
      this.worker = undefined;
      this.finish({ ok: false, reason: `the image worker stopped (exit code ${code})` });
    });
    // After the listeners (adding one refs the worker again): an idle worker must not keep the
    // process alive; the job's timer does while it works.
    worker.unref();
    this.worker = worker;
    return worker;
  }

  private discard(worker: Worker): void {
    if (this.worker === worker) this.worker = undefined;
    void worker.terminate().catch(() => undefined);
  }

  private finish(outcome: JobOutcome): void {
    const current = this.current;
    if (!current) return;
    this.current = undefined;
    clearTimeout(current.timer);
    current.resolve(outcome);
    this.pump();
  }
}

/** The backend's one image worker. Tests may change its options. */
export const imageWorker = new ImageWorker({ maxQueued: DEFAULT_IMAGE_MAX_QUEUED, timeoutMs: DEFAULT_IMAGE_TIMEOUT_MS });

/** What the model reads in the tool result beside the image's label: where the image went, or why it did not. */
/**
 * Where a model's tool images go, from its config: the limits to send them with, or undefined to
 * send none (the model reads a text label). Both wires (Chat Completions, Responses) decide here.
 */
export function imageLimitsFor(config: { model: string; vision?: VisionSetting; imageInputs?: boolean; imageMaxSide?: number }): ImageLimits | undefined {
  const vision = config.vision ?? (config.imageInputs === undefined ? 'auto' : config.imageInputs ? 'on' : 'off');
  const maxSide = config.imageMaxSide ?? DEFAULT_IMAGE_MAX_SIDE;
  if (!(Number.isInteger(maxSide) && maxSide >= 1)) throw new RangeError(`imageMaxSide must be a positive integer, got ${maxSide}`);
  return visionEnabled(vision, config.model) ? { maxSide, maxPixels: DEFAULT_IMAGE_MAX_PIXELS } : undefined;
}

export function imageNote(image: PreparedImage, index: number): string {
  if (!image.ok) return `not shown to the model: ${image.reason}`;
  const { width, height, original } = image;
  const size = width === original.width && height === original.height ? `${width}x${height}` : `downscaled from ${original.width}x${original.height} to ${width}x${height}`;
  return `image ${index} below, ${size}`;
}
