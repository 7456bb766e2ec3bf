/**
 * What both OpenAI wires' models share: the configured name, the SDK client (client.ts), the logger
 * and where tool images go. `OpenAIChatModel` and `ResponsesChatModel` differ only in how they speak.
 */
import type OpenAI from 'openai';
import type { Logger } from '../log';
import { silentLogger, toLogger } from '../log';
import type { ChatModel, ModelChunk, ModelRequest } from './chatModel';
import { createOpenAIClient } from './client';
import { imageLimitsFor, type ImageLimits } from './images';
import type { OpenAIModelConfig } from './openai';

export abstract class OpenAIWireModel implements ChatModel {
  readonly name: string;
  readonly offline = false;
  protected readonly client: OpenAI;
  protected readonly log: Logger;
  /** Where tool images go: undefined sends none (the model reads a text label). */
  protected readonly images: ImageLimits | undefined;

  constructor(protected readonly config: OpenAIModelConfig) {
    this.name = config.model;
    this.images = imageLimitsFor(config);
    this.log = toLogger(config.log ?? silentLogger);
    this.client = createOpenAIClient(config, this.log);
  }

  abstract stream(request: ModelRequest, signal: AbortSignal): AsyncIterable<ModelChunk>;
}
