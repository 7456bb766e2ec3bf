/**
 * `OpenAIModelConfig`: what a model on either OpenAI wire is configured with (endpoint, key,
 * retries, time and size limits, images, fetch, logger). Types only, so the SDK client, the
 * failure mapping and both adapters read it without importing one another.
 */
import type { Logger, LogFunction } from '../log';
import type { EndpointChoice } from './endpoint';
import type { VisionSetting } from './images';

export interface OpenAIModelConfig extends EndpointChoice {
  /** Model name, e.g. `gpt-4.1-mini` or `llama3.1`. */
  model: string;
  /** Defaults to the SDK's (https://api.openai.com/v1). */
  baseURL?: string;
  /** Never logged. An endpoint that needs none (a local server) gets a placeholder. */
  apiKey?: string;
  /** Retries of 429 and 5xx answers (honouring `retry-after`), default 2. */
  maxRetries?: number;
  /** One request's whole time, from sending it to the last chunk of its stream; default 10 minutes. */
  timeoutMs?: number;
  /** Time from sending a request to its answer's first chunk before it is stopped; default 60 s. */
  firstByteTimeoutMs?: number;
  /** Time without anything from the endpoint after a chunk before a request is stopped; default 30 s. */
  idleTimeoutMs?: number;
  /** UTF-8 bytes of answer (text and tool-call arguments) one request may bring; default 8 MiB. */
  maxAnswerBytes?: number;
  /**
   * Send images returned by tools to the model as image parts: `auto` (the default) when the model
   * is in the table of known vision models (images.ts), `on`, or `off` (the model reads a text label).
   */
  vision?: VisionSetting;
  /** Longest side, in pixels, images are scaled down to before they are sent (default 1568). */
  imageMaxSide?: number;
  /** The option before `vision`: true is `vision: 'on'`, false `'off'`; `vision` wins when both are given. */
  imageInputs?: boolean;
  /**
   * The fetch the SDK sends requests with; default the global one. For a proxy-aware or
   * instrumented fetch (the benchmarks time when a model request leaves through it).
   */
  fetch?: typeof fetch;
  log?: Logger | LogFunction;
}
