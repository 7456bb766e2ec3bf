/**
 * `ResponsesChatModel`: the same `ChatModel` contract as `OpenAIChatModel`, spoken over the OpenAI
 * Responses API (`POST /responses`, OpenAI or Azure). History is sent whole each turn (`store:
 * false`), as on Chat Completions, so the agent never learns which wire it speaks: tool calls become
 * `function_call` items, their results `function_call_output` items.
 */
import type { FunctionTool, ResponseInputContent, ResponseInputItem, ResponseStreamEvent, ResponseUsage } from 'openai/resources/responses/responses';
import { ErrorCode } from '../../protocol';
import { paced } from '../../base/nextTurn';
import type { FunctionSpec } from '../toolset/toolState';
import { ModelFailure, type ChatMessage, type ModelChunk, type ModelRequest, type ToolCallRequest } from './chatModel';
import { toModelFailure } from './failure';
import type { StreamGuard } from './streamGuard';
import type { ImageLimits } from './images';
import { toModelToolResult } from './toolResult';
import { OpenAIWireModel } from './wireModel';

export class ResponsesChatModel extends OpenAIWireModel {
  async *stream(request: ModelRequest, signal: AbortSignal): AsyncIterable<ModelChunk> {
    // Keyed by output_index: parallel calls are separate output items, each streaming its arguments.
    const calls = new Map<number, ToolCallRequest>();
    let finish: string | undefined;
    const guard = this.guard(signal);
    try {
      const stream = await this.client.responses.create(
        {
          // Azure routes Responses requests by the deployment named in `model`.
          model: this.config.provider === 'azure' ? this.config.azure?.deployment || this.config.model : this.config.model,
          input: await toResponsesInput(request.messages, this.images),
          ...(request.tools.length ? { tools: request.tools.map(toResponsesTool) } : {}),
          store: false,
          stream: true,
        },
        { signal: guard.signal },
      );
      for await (const event of paced(stream)) {
        guard.activity();
        const out = handle(event, calls, guard);
        if (out?.type === 'finish') finish = out.reason;
        else if (out) yield out;
        // Usage rides on the final response, whether complete or cut short.
        if ((event.type === 'response.completed' || event.type === 'response.incomplete') && event.response.usage) yield usageChunk(event.response.usage);
      }
    } catch (e) {
      if (guard.failure) throw guard.failure;
      if (signal.aborted) return;
      throw toModelFailure(e, this.config);
    } finally {
      guard.dispose();
    }
    if (guard.failure) throw guard.failure;
    if (signal.aborted) return;
    if (finish === undefined) throw new ModelFailure(ErrorCode.ModelError, 'The model stream was malformed: it ended before the response completed (no response.completed).', true);
    for (const index of [...calls.keys()].sort((a, b) => a - b)) yield { type: 'toolCall', call: calls.get(index)! };
    yield { type: 'finish', reason: finish };
  }
}

/**
 * One stream event: a text chunk to pass on, the finish (held back until the calls are out), or
 * nothing (function call state is kept in `calls`). Events this adapter has no use for (reasoning,
 * content parts, built-in tools) pass by.
 */
function handle(event: ResponseStreamEvent, calls: Map<number, ToolCallRequest>, guard: StreamGuard): ModelChunk | undefined {
  if (event.type === 'response.output_text.delta') {
    if (!event.delta) return undefined;
    guard.grow(event.delta);
    return { type: 'text', text: event.delta };
  }
  if (event.type === 'response.output_item.added' && event.item.type === 'function_call') {
    if (!event.item.name) throw new ModelFailure(ErrorCode.ModelError, `The model stream was malformed: function call ${event.output_index} starts without a name.`, true);
    guard.grow(event.item.arguments ?? '');
    calls.set(event.output_index, { id: event.item.call_id, name: event.item.name, arguments: event.item.arguments ?? '' });
  } else if (event.type === 'response.function_call_arguments.delta') {
    const call = calls.get(event.output_index);
    if (!call) throw new ModelFailure(ErrorCode.ModelError, `The model stream was malformed: arguments for unknown output item ${event.output_index}.`, true);
    guard.grow(event.delta);
    call.arguments += event.delta;
  } else if (event.type === 'response.output_item.done' && event.item.type === 'function_call') {
    // The finished item is authoritative: it carries the whole arguments text whatever the deltas said.
    const call = calls.get(event.output_index);
    // Counted as more answer: the deltas were counted already, and the whole text arrives again here.
    if (call) {
      guard.grow(event.item.arguments);
      call.arguments = event.item.arguments;
    }
  } else if (event.type === 'response.completed') {
    return { type: 'finish', reason: calls.size ? 'tool_calls' : 'stop' };
  } else if (event.type === 'response.incomplete') {
    return { type: 'finish', reason: event.response.incomplete_details?.reason === 'content_filter' ? 'content_filter' : 'length' };
  } else if (event.type === 'response.failed') {
    const error = event.response.error;
    throw new ModelFailure(ErrorCode.ModelError, `The model endpoint failed the response (${error?.code ?? 'no code'}): ${error?.message ?? 'no message'}`, true);
  } else if (event.type === 'error') {
    throw new ModelFailure(ErrorCode.ModelError, `The model stream reported an error (${event.code ?? 'no code'}): ${event.message}`, true);
  }
  return undefined;
}

function usageChunk(usage: ResponseUsage): ModelChunk {
  const cached = usage.input_tokens_details?.cached_tokens;
  // `cachedPromptTokens` joins the usage chunk with the token-usage change; carried along when reported.
  return Object.assign(
    { type: 'usage' as const, promptTokens: usage.input_tokens, completionTokens: usage.output_tokens },
    typeof cached === 'number' ? { cachedPromptTokens: cached } : {},
  );
}

function toResponsesTool(f: FunctionSpec): FunctionTool {
  // Not strict: strict mode demands every property be required and no extra ones, which client tool schemas do not promise.
  return { type: 'function', name: f.name, description: f.description, parameters: f.parameters, strict: false };
}

/**
 * The agent's messages as Responses input items; images from tools follow as one user message, as on
 * Chat Completions, scaled down to `images` (undefined sends none, the model reads a text label).
 */
export async function toResponsesInput(messages: readonly ChatMessage[], images: ImageLimits | undefined): Promise<ResponseInputItem[]> {
  const out: ResponseInputItem[] = [];
  let parts: ResponseInputContent[] = [];
  const flushImages = () => {
    if (parts.length) out.push({ role: 'user', content: [{ type: 'input_text', text: 'Images returned by the tool calls above:' }, ...parts] });
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
        if (m.content) out.push({ role: 'assistant', content: m.content });
        for (const c of m.toolCalls ?? []) out.push({ type: 'function_call', call_id: c.id, name: c.name, arguments: c.arguments });
        break;
      case 'tool': {
        const result = await toModelToolResult(m.content, images, parts.length);
        for (const url of result.imageUrls) parts.push({ type: 'input_image', detail: 'auto', image_url: url });
        out.push({ type: 'function_call_output', call_id: m.toolCallId, output: result.text });
        break;
      }
    }
  }
  flushImages();
  return out;
}
