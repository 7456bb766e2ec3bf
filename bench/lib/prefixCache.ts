/**
 * A provider's prompt cache, modelled for the token-economy task (bench/tokenTask.ts). OpenAI and
 * Anthropic cache on the request prefix: the tool definitions first, then the messages in order
 * (the system message among them). A request reuses the longest prefix that an earlier request of
 * the run had, counted in whole blocks: OpenAI caches prompts of 1,024 tokens and more, in steps of
 * 128 tokens. Tokens are counted with the backend's o200k tokenizer on each part's wire JSON.
 */
import { countTokens } from '../../src/backend/context/tokens';

/** OpenAI's smallest cached prompt and its step. */
export const MIN_CACHED_TOKENS = 1024;
export const CACHE_STEP_TOKENS = 128;

export interface PricedRequest {
  input: number;
  cached: number;
  uncached: number;
  /** Tokens of the tool definitions alone. */
  definitions: number;
}

export class PrefixCache {
  /** The parts (wire JSON of each tool, then each message) of every request seen, with their token counts. */
  private readonly seen: { parts: string[]; tokens: number[] }[] = [];
  private readonly counted = new Map<string, number>();

  /** Prices a chat-completions request body (`tools`, then `messages`) against the requests before it. */
  price(body: { tools?: unknown[]; messages: unknown[] }): PricedRequest {
    const tools = (body.tools ?? []).map((t) => JSON.stringify(t));
    const parts = [...tools, ...body.messages.map((m) => JSON.stringify(m))];
    const tokens = parts.map((p) => this.count(p));
    const input = tokens.reduce((a, b) => a + b, 0);
    let reusable = 0;
    for (const earlier of this.seen) reusable = Math.max(reusable, commonPrefixTokens(earlier.parts, parts, tokens));
    const cached = reusable < MIN_CACHED_TOKENS ? 0 : Math.floor(reusable / CACHE_STEP_TOKENS) * CACHE_STEP_TOKENS;
    this.seen.push({ parts, tokens });
    return { input, cached, uncached: input - cached, definitions: tokens.slice(0, tools.length).reduce((a, b) => a + b, 0) };
  }

  private count(part: string): number {
    let n = this.counted.get(part);
    if (n === undefined) {
      n = countTokens(part);
      this.counted.set(part, n);
    }
    return n;
  }
}

/** Tokens of the leading parts `b` shares with `a` (a part that differs ends the prefix). */
function commonPrefixTokens(a: readonly string[], b: readonly string[], tokensOfB: readonly number[]): number {
  let n = 0;
  for (let i = 0; i < Math.min(a.length, b.length) && a[i] === b[i]; i++) n += tokensOfB[i];
  return n;
}
