/**
 * Context windows (tokens) by model family, for when the backend is not told one
 * (`contextWindow` option, `--context-window`, `clientTools.model.contextWindow`). Figures are the
 * providers' published input windows, rounded down; an unknown model gets a small window, so the
 * worst a wrong guess does is compact early, never overflow.
 */
const WINDOWS: readonly [RegExp, number][] = [
  [/gpt-4\.1/, 1_000_000],
  [/gpt-5/, 400_000],
  [/gpt-4o|chatgpt-4o/, 128_000],
  [/gpt-4-turbo|gpt-4-1106|gpt-4-0125/, 128_000],
  [/gpt-4-32k/, 32_768],
  [/gpt-4/, 8_192],
  [/gpt-3\.5-turbo/, 16_385],
  [/(^|[/:-])o[134](-mini|-pro)?($|[-:])/, 200_000],
  [/llama-?3\.[123]|llama3\.[123]/, 128_000],
  [/llama-?3|llama3/, 8_192],
  [/qwen-?2\.5|qwen-?3/, 32_768],
  [/qwen/, 32_768],
  [/mistral-large|mistral-medium|mistral-small|codestral|ministral/, 128_000],
  [/mixtral/, 32_768],
  [/mistral/, 32_768],
];

/** The window an unknown model is assumed to have. */
export const DEFAULT_CONTEXT_WINDOW = 8_192;

export function contextWindowFor(model: string): number {
  const name = model.toLowerCase();
  for (const [pattern, window] of WINDOWS) if (pattern.test(name)) return window;
  return DEFAULT_CONTEXT_WINDOW;
}
