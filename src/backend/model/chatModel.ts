/**
 * The model as the agent loop sees it: given messages and functions, it streams text and tool calls.
 * Types only (and the coded failure every model throws), so the agent, the history budget and the
 * offline demo model (demo/demoModel.ts) depend on no SDK; `OpenAIChatModel` (openai.ts) is the
 * adapter to the OpenAI chat-completions API.
 */
import type { ContentItem } from '../../protocol';
import { CodedError, type ErrorCode } from '../../protocol';
import type { FunctionSpec } from '../toolset/toolState';

export interface ToolCallRequest {
  id: string;
  name: string;
  /** The JSON text exactly as the model produced it. */
  arguments: string;
}

export type ChatMessage =
  | { role: 'system'; content: string }
  /** `runId`: the run this message started (Rewind drops it and what follows); steers and summaries have none. Never sent to a model. */
  | { role: 'user'; content: string; runId?: string }
  | { role: 'assistant'; content: string; toolCalls?: ToolCallRequest[] }
  | { role: 'tool'; toolCallId: string; toolName: string; content: ContentItem[]; errorCode?: string };

export interface ModelRequest {
  messages: ChatMessage[];
  tools: FunctionSpec[];
}

export type ModelChunk =
  | { type: 'text'; text: string }
  | { type: 'toolCall'; call: ToolCallRequest }
  | { type: 'finish'; reason: string }
  | UsageChunk;

/**
 * Tokens one model request consumed, as the endpoint reported them (never guessed): yield it once
 * per request, any time before the stream ends. An adapter whose endpoint reports nothing yields
 * none, and the run then carries no usage. `cachedPromptTokens` is the part of `promptTokens` served
 * from the provider's prompt cache, when the provider says so.
 */
export interface UsageChunk {
  type: 'usage';
  promptTokens: number;
  completionTokens: number;
  cachedPromptTokens?: number;
}

export interface ChatModel {
  /** Shown in `welcome` and `runStarted`. */
  readonly name: string;
  readonly offline: boolean;
  /** Streams one completion. Throws a `ModelFailure` when the endpoint fails; stops when `signal` aborts. */
  stream(request: ModelRequest, signal: AbortSignal): AsyncIterable<ModelChunk>;
}

/** A model failure with a stable code (MODEL_AUTH, MODEL_RATE_LIMITED, MODEL_ERROR) and whether retrying may help. */
export class ModelFailure extends CodedError {
  constructor(
    code: ErrorCode,
    message: string,
    readonly retryable: boolean,
    /** A few words for a live note ("No answer from llama3.1 at … within 60 s"); the message when absent. */
    readonly summary: string = message,
  ) {
    super(code, message);
    this.name = 'ModelFailure';
  }
}
