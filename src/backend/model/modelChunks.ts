/**
 * The model boundary: what a model endpoint streams becomes values the protocol accepts before the
 * agent uses them, whatever the endpoint sent. A usage count that is not a whole number from 0 to
 * 2^53 - 1 is not reported (usage is never guessed); a tool name longer than `toolCallStarted`
 * allows is cut there (no tool has such a name, so the call fails as an unknown tool, visibly).
 */
import type { ModelChunk, UsageChunk } from './chatModel';

/** `toolCallStarted.toolName`'s limit in the protocol's schema. */
export const MAX_SHOWN_TOOL_NAME = 200;

/** `chunk` as the agent may use it, or undefined when nothing of it can be used. */
export function fromModel(chunk: ModelChunk): ModelChunk | undefined {
  if (chunk.type === 'usage') return usageFromModel(chunk);
  if (chunk.type === 'toolCall' && chunk.call.name.length > MAX_SHOWN_TOOL_NAME) {
    return { ...chunk, call: { ...chunk.call, name: chunk.call.name.slice(0, MAX_SHOWN_TOOL_NAME) } };
  }
  return chunk;
}

function usageFromModel(chunk: UsageChunk): UsageChunk | undefined {
  if (!isCount(chunk.promptTokens) || !isCount(chunk.completionTokens)) return undefined;
  const { cachedPromptTokens, ...counts } = chunk;
  return isCount(cachedPromptTokens) && cachedPromptTokens <= chunk.promptTokens ? { ...counts, cachedPromptTokens } : counts;
}

function isCount(n: unknown): n is number {
  return Number.isSafeInteger(n) && (n as number) >= 0;
}
