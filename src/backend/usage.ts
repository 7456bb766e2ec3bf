/**
 * Token usage arithmetic: the agent adds each model request's reported usage (a `usage` chunk) to
 * its run's and its thread's totals, and `runFinished` carries both. Only reported numbers are
 * summed, so a model that reports nothing (the offline demo) leaves a run without usage.
 */
import type { RunUsage, TokenCounts } from '../protocol';
import type { UsageChunk } from './model/chatModel';

/** `total` plus one request's usage; cached tokens are summed over the requests that report them. */
export function addUsage(total: TokenCounts | undefined, chunk: UsageChunk): TokenCounts {
  const cached = chunk.cachedPromptTokens === undefined ? total?.cachedInputTokens : (total?.cachedInputTokens ?? 0) + chunk.cachedPromptTokens;
  return {
    inputTokens: sum(total?.inputTokens ?? 0, chunk.promptTokens),
    outputTokens: sum(total?.outputTokens ?? 0, chunk.completionTokens),
    ...(cached !== undefined ? { cachedInputTokens: Math.min(cached, Number.MAX_SAFE_INTEGER) } : {}),
  };
}

/** Totals stop at 2^53 - 1, the largest count the protocol carries. */
function sum(a: number, b: number): number {
  return Math.min(a + b, Number.MAX_SAFE_INTEGER);
}

/** What `runFinished` carries: undefined when no request of the run reported usage. */
export function runUsage(run: TokenCounts | undefined, thread: TokenCounts | undefined): RunUsage | undefined {
  if (!run) return undefined;
  return { ...run, thread: thread ?? run };
}
