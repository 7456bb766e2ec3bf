/**
 * `OpenAIChatModel`: a `ChatModel` (chatModel.ts) that speaks the OpenAI chat-completions API (OpenAI,
 * Azure OpenAI, or any compatible endpoint) through the official SDK; client.ts builds the client.
 */
import OpenAI from 'openai';
import type { ChatCompletionChunk, ChatCompletionContentPart, ChatCompletionMessageParam, ChatCompletionTool } from 'openai/resources/chat/completions';
import type { CompletionUsage } from 'openai/resources/completions';
import type { ContentItem } from '../../protocol';
import { ErrorCode } from '../../protocol';
import type { Logger, LogFunction } from '../log';
import { silentLogger, toLogger } from '../log';
import type { FunctionSpec } from '../toolState';
import { createOpenAIClient, safeJson } from './client';
import type { EndpointChoice } from './endpoint';
import { toModelFailure } from './failure';
import { ModelFailure, type ChatMessage, type ChatModel, type ModelChunk, type ModelRequest, type ToolCallRequest, type UsageChunk } from './chatModel';
import { DEFAULT_IMAGE_MAX_PIXELS, DEFAULT_IMAGE_MAX_SIDE, imageLimitsFor, imageNote, isModelImage, prepareImage, type ImageLimits, type VisionSetting } from './images';

export const DEFAULT_MODEL_NAME = 'gpt-4.1-mini';

export interface OpenAIModelConfig extends EndpointChoice {
  /** Model name, e.g. `gpt-4.1-mini` or `llama3.1`. */
  model: string;
  /** Defaults to the SDK's (https://api.openai.com/v1). */
  baseURL?: string;
  /** Never logged. An endpoint that needs none (a local server) gets a placeholder. */
  apiKey?: string;
  /** Retries of 429 and 5xx answers (honouring `retry-after`), default 2. */
  maxRetries?: number;
  /** Per-request timeout, default 10 minutes. */
  timeoutMs?: number;
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

const TEXT_MIME = /^(text\/[\w.+-]+|application\/(json|xml|javascript|x-yaml|yaml|x-sh)|[\w.+-]+\/[\w.+-]+\+(json|xml))$/;
/** Largest binary result decoded as text for the model. */
const MAX_TEXT_BINARY = 256 * 1024;

export class OpenAIChatModel implements ChatModel {
  readonly name: string;
  readonly offline = false;
  private readonly client: OpenAI;
  private readonly log: Logger;
  /** Where tool images go: undefined sends none. */
  private readonly images: ImageLimits | undefined;

  constructor(private readonly config: OpenAIModelConfig) {
    this.name = config.model;
    this.images = imageLimitsFor(config);
    this.log = toLogger(config.log ?? silentLogger);
    this.client = createOpenAIClient(config, this.log);
  }

  async *stream(request: ModelRequest, signal: AbortSignal): AsyncIterable<ModelChunk> {
    const calls = new Map<number, ToolCallRequest>();
    let finish: string | undefined;
    try {
      const stream = await this.client.chat.completions.create(
        {
          model: this.config.model,
          messages: await toOpenAIMessages(request.messages, this.images),
          ...(request.tools.length ? { tools: request.tools.map(toOpenAITool) } : {}),
          stream: true,
          stream_options: { include_usage: true },
        },
        { signal },
      );
      for await (const chunk of stream) {
        if (chunk.usage) yield usageChunk(chunk.usage);
        const choice = chunk.choices?.[0];
        if (!choice) continue;
        const text = choice.delta?.content;
        if (typeof text === 'string' && text.length > 0) yield { type: 'text', text };
        for (const delta of choice.delta?.tool_calls ?? []) collectToolCall(calls, delta);
        if (choice.finish_reason) finish = choice.finish_reason;
      }
    } catch (e) {
      if (signal.aborted) return;
      throw this.failure(e);
    }
    if (signal.aborted) return;
    if (finish === undefined) throw new ModelFailure(ErrorCode.ModelError, 'The model stream was malformed: it ended before the model finished (no finish_reason).', true);
    for (const index of [...calls.keys()].sort((a, b) => a - b)) yield { type: 'toolCall', call: calls.get(index)! };
    yield { type: 'finish', reason: finish };
  }

  /** Turns whatever the SDK threw into a coded, key-free failure. */
  private failure(e: unknown): ModelFailure {
    return toModelFailure(e, this.config);
  }
}

/** The final chunk's usage (sent because of `include_usage`); cached tokens only when the endpoint reports them. */
function usageChunk(usage: CompletionUsage): UsageChunk {
  const cached = usage.prompt_tokens_details?.cached_tokens;
  return {
    type: 'usage',
    promptTokens: usage.prompt_tokens,
    completionTokens: usage.completion_tokens,
    ...(typeof cached === 'number' ? { cachedPromptTokens: cached } : {}),
  };
}

function collectToolCall(calls: Map<number, ToolCallRequest>, delta: ChatCompletionChunk.Choice.Delta.ToolCall): void {
  if (typeof delta.index !== 'number') throw new ModelFailure(ErrorCode.ModelError, 'The model stream was malformed: a tool call delta has no index.', true);
  const current = calls.get(delta.index);
  if (!current) {
    const name = delta.function?.name;
    if (!name) throw new ModelFailure(ErrorCode.ModelError, `The model stream was malformed: tool call ${delta.index} starts without a function name.`, true);
    calls.set(delta.index, { id: delta.id ?? '', name, arguments: delta.function?.arguments ?? '' });
    return;
  }
  if (delta.id && !current.id) current.id = delta.id;
  if (delta.function?.arguments) current.arguments += delta.function.arguments;
}

function toOpenAITool(f: FunctionSpec): ChatCompletionTool {
  return { type: 'function', function: { name: f.name, description: f.description, parameters: f.parameters } };
}

/**
 * Converts the agent's messages to chat-completions messages. Chat Completions takes image parts only
 * in user messages, and a tool message must follow its assistant message directly: so each tool
 * message says in text where its images went, and the images of a batch of tool results follow the
 * batch as one user message. `images` undefined (or false) sends none; true uses the default limits.
 */
export async function toOpenAIMessages(messages: readonly ChatMessage[], images: ImageLimits | boolean | undefined): Promise<ChatCompletionMessageParam[]> {
  const limits = images === true ? { maxSide: DEFAULT_IMAGE_MAX_SIDE, maxPixels: DEFAULT_IMAGE_MAX_PIXELS } : images || undefined;
  const out: ChatCompletionMessageParam[] = [];
  let parts: ChatCompletionContentPart[] = [];
  const flushImages = () => {
    if (parts.length) out.push({ role: 'user', content: [{ type: 'text', text: 'Images returned by the tool calls above:' }, ...parts] });
    parts = [];
  };
  for (const m of messages) {
    if (m.role !== 'tool') flushImages();
    switch (m.role) {
      case 'system':
      case 'user':
        out.push({ role: m.role, content: m.content });
        break;
      case 'assistant':
        out.push({
          role: 'assistant',
          content: m.content || null,
          ...(m.toolCalls?.length
            ? { tool_calls: m.toolCalls.map((c) => ({ id: c.id, type: 'function' as const, function: { name: c.name, arguments: c.arguments } })) }
            : {}),
        });
        break;
      case 'tool': {
        const notes = new Map<ContentItem, string>();
        if (limits) {
          for (const c of m.content) {
            if (!isModelImage(c)) continue;
            const image = await prepareImage(c.bytes, limits);
            if (image.ok) parts.push({ type: 'image_url', image_url: { url: `data:${image.mimeType};base64,${Buffer.from(image.bytes).toString('base64')}` } });
            notes.set(c, imageNote(image, parts.length));
          }
        }
        out.push({ role: 'tool', tool_call_id: m.toolCallId, content: toolResultText(m.content, notes) });
        break;
      }
    }
  }
  flushImages();
  return out;
}

/**
 * A tool result as the text a chat model reads (the agent already put any error sentence into
 * `content`). `notes` adds a sentence to a binary item's label, e.g. where its image went.
 */
export function toolResultText(content: readonly ContentItem[], notes?: ReadonlyMap<ContentItem, string>): string {
  const parts = content.map((c) => {
    switch (c.type) {
      case 'text':
        return c.text;
      case 'json':
        return safeJson(c.value);
      case 'binary': {
        const note = notes?.get(c);
        const label = `[${c.filename ? `${c.filename}: ` : ''}${c.mimeType}, ${c.bytes.byteLength} bytes${note ? `; ${note}` : ''}]`;
        if (TEXT_MIME.test(c.mimeType) && c.bytes.byteLength <= MAX_TEXT_BINARY) return `${label}\n${Buffer.from(c.bytes).toString('utf8')}`;
        return label;
      }
    }
  });
  return parts.join('\n') || '(no content)';
}
