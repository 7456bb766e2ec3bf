/** Head and tail of a text around a marker, sized in tokens (through the text's own characters-per-token ratio). */
import { countTokens } from './tokens';

export function excerptByTokens(text: string, tokens: number, total = countTokens(text), marker: (omittedChars: number) => string = defaultMarker): string {
  const charsPerToken = text.length / Math.max(1, total);
  const half = Math.max(1, Math.floor((tokens / 2) * charsPerToken));
  if (text.length <= 2 * half) return text;
  const head = text.slice(0, avoidSplitPair(text, half));
  const tail = text.slice(avoidSplitPair(text, text.length - half));
  return `${head}\n${marker(text.length - head.length - tail.length)}\n${tail}`;
}

function defaultMarker(omitted: number): string {
  return `[... ${omitted} characters omitted to fit the model's context window ...]`;
}

/** Moves a cut off the middle of a surrogate pair. */
function avoidSplitPair(text: string, at: number): number {
  const code = text.charCodeAt(at - 1);
  return code >= 0xd800 && code <= 0xdbff ? at - 1 : at;
}
