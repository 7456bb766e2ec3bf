/**
 * What both OpenAI wires' models share: the configured name, the SDK client (client.ts), the logger
 * and where tool images go. `OpenAIChatModel` and `ResponsesChatModel` differ only in how they speak.
 */
import type OpenAI from 'openai';
import type { Logger } from '../log';
import { silentLogger, toLogger } from '../log';
import type { ChatModel, ModelChunk, ModelRequest } from './chatModel';
import { createOpenAIClient, endpointLabel } from './client';
import { DEFAULT_STREAM_LIMITS, StreamGuard, type StreamLimits } from './streamGuard';
import { imageLimitsFor, type ImageLimits } from './images';
import type { OpenAIModelConfig } from './modelConfig';

export abstract class OpenAIWireModel implements ChatModel {
  readonly name: string;
  readonly offline = false;
  protected readonly client: OpenAI;
  protected readonly log: Logger;
  /** Where tool images go: undefined sends none (the model reads a text label). */
  protected readonly images: ImageLimits | undefined;
  private readonly limits: StreamLimits;

  constructor(protected readonly config: OpenAIModelConfig) {
    this.name = config.model;
    this.limits = {
      firstByteMs: config.firstByteTimeoutMs ?? DEFAULT_STREAM_LIMITS.firstByteMs,
      idleMs: config.idleTimeoutMs ?? DEFAULT_STREAM_LIMITS.idleMs,
      totalMs: config.timeoutMs ?? DEFAULT_STREAM_LIMITS.totalMs,
      maxAnswerBytes: config.maxAnswerBytes ?? DEFAULT_STREAM_LIMITS.maxAnswerBytes,
    };
    this.images = imageLimitsFor(config);
    this.log = toLogger(config.log ?? silentLogger);
    this.client = createOpenAIClient(config, this.log);
  }

  abstract stream(request: ModelRequest, signal: AbortSignal): AsyncIterable<ModelChunk>;

  /** One request's bounds and its own signal (streamGuard.ts); dispose it when the request ends. */
  protected guard(signal: AbortSignal): StreamGuard {
    return new StreamGuard(signal, this.limits, `${this.config.model} at ${endpointLabel(this.config)}`);
  }
}
