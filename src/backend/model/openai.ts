/**
 * `OpenAIChatModel`: a `ChatModel` (chatModel.ts) that speaks the OpenAI chat-completions API (OpenAI,
 * Azure OpenAI, or any compatible endpoint) through the official SDK; client.ts builds the client.
 */
import type { ChatCompletionChunk, ChatCompletionContentPart, ChatCompletionMessageParam, ChatCompletionTool } from 'openai/resources/chat/completions';
import type { CompletionUsage } from 'openai/resources/completions';
import { ErrorCode } from '../../protocol';
import { paced } from '../../base/nextTurn';
import type { FunctionSpec } from '../toolset/toolState';
import { toModelFailure } from './failure';
import { ModelFailure, type ChatMessage, type ModelChunk, type ModelRequest, type ToolCallRequest, type UsageChunk } from './chatModel';
import { DEFAULT_IMAGE_MAX_PIXELS, DEFAULT_IMAGE_MAX_SIDE, type ImageLimits } from './images';
import type { StreamGuard } from './streamGuard';
import { toModelToolResult } from './toolResult';
import { OpenAIWireModel } from './wireModel';

export const DEFAULT_MODEL_NAME = 'gpt-4.1-mini';

export class OpenAIChatModel extends OpenAIWireModel {
  async *stream(request: ModelRequest, signal: AbortSignal): AsyncIterable<ModelChunk> {
    const calls = new Map<number, ToolCallRequest>();
    let finish: string | undefined;
    const guard = this.guard(signal);
    try {
      const stream = await this.client.chat.completions.create(
        {
          model: this.config.model,
          messages: await toOpenAIMessages(request.messages, this.images),
          ...(request.tools.length ? { tools: request.tools.map(toOpenAITool) } : {}),
          stream: true,
          stream_options: { include_usage: true },
        },
        { signal: guard.signal },
      );
      for await (const chunk of paced(stream)) {
        guard.activity();
        if (chunk.usage) yield usageChunk(chunk.usage);
        const choice = chunk.choices?.[0];
        if (!choice) continue;
        const text = choice.delta?.content;
        if (typeof text === 'string' && text.length > 0) {
          guard.grow(text);
          yield { type: 'text', text };
        }
        for (const delta of choice.delta?.tool_calls ?? []) collectToolCall(calls, delta, guard);
        if (choice.finish_reason) finish = choice.finish_reason;
      }
    } catch (e) {
      if (guard.failure) throw guard.failure;
      if (signal.aborted) return;
      throw this.failure(e);
    } finally {
      guard.dispose();
    }
    if (guard.failure) throw guard.failure;
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

function collectToolCall(calls: Map<number, ToolCallRequest>, delta: ChatCompletionChunk.Choice.Delta.ToolCall, guard: StreamGuard): void {
  guard.grow(delta.function?.arguments ?? '');
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
        const result = await toModelToolResult(m.content, limits, parts.length);
        for (const url of result.imageUrls) parts.push({ type: 'image_url', image_url: { url } });
        out.push({ role: 'tool', tool_call_id: m.toolCallId, content: result.text });
        break;
      }
    }
  }
  flushImages();
  return out;
}

