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
  /** Send images returned by tools to the model (it must accept image input). Default false. */
  imageInputs?: boolean;
  /**
   * The fetch the SDK sends requests with; default the global one. For a proxy-aware or
   * instrumented fetch (the benchmarks time when a model request leaves through it).
   */
  fetch?: typeof fetch;
  log?: Logger | LogFunction;
}

const TEXT_MIME = /^(text\/[\w.+-]+|application\/(json|xml|javascript|x-yaml|yaml|x-sh)|[\w.+-]+\/[\w.+-]+\+(json|xml))$/;
const IMAGE_MIME = /^image\/(png|jpeg|gif|webp)$/;
/** Largest binary result decoded as text for the model. */
const MAX_TEXT_BINARY = 256 * 1024;

export class OpenAIChatModel implements ChatModel {
  readonly name: string;
  readonly offline = false;
  private readonly client: OpenAI;
  private readonly log: Logger;

  constructor(private readonly config: OpenAIModelConfig) {
    this.name = config.model;
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
          messages: toOpenAIMessages(request.messages, this.config.imageInputs === true),
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

/** Converts the agent's messages to chat-completions messages; images from tools follow as one user message. */
export function toOpenAIMessages(messages: readonly ChatMessage[], imageInputs: boolean): ChatCompletionMessageParam[] {
  const out: ChatCompletionMessageParam[] = [];
  let images: ChatCompletionContentPart[] = [];
  const flushImages = () => {
    if (images.length) out.push({ role: 'user', content: [{ type: 'text', text: 'Images returned by the tool calls above:' }, ...images] });
    images = [];
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
      case 'tool':
        out.push({ role: 'tool', tool_call_id: m.toolCallId, content: toolResultText(m.content) });
        if (imageInputs) {
          for (const c of m.content) {
            if (c.type === 'binary' && IMAGE_MIME.test(c.mimeType)) {
              images.push({ type: 'image_url', image_url: { url: `data:${c.mimeType};base64,${Buffer.from(c.bytes).toString('base64')}` } });
            }
          }
        }
        break;
    }
  }
  flushImages();
  return out;
}

/** A tool result as the text a chat model reads (the agent already put any error sentence into `content`). */
export function toolResultText(content: readonly ContentItem[]): string {
  const parts = content.map((c) => {
    switch (c.type) {
      case 'text':
        return c.text;
      case 'json':
        return safeJson(c.value);
      case 'binary': {
        const label = `[${c.filename ? `${c.filename}: ` : ''}${c.mimeType}, ${c.bytes.byteLength} bytes]`;
        if (TEXT_MIME.test(c.mimeType) && c.bytes.byteLength <= MAX_TEXT_BINARY) return `${label}\n${Buffer.from(c.bytes).toString('utf8')}`;
        return label;
      }
    }
  });
  return parts.join('\n') || '(no content)';
}
