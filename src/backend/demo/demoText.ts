/** The demo model's small text helpers: counts, lists, inline code and code blocks that survive what they quote, and safe reads of a tool's JSON. */

export type Json = Record<string, unknown>;

export function strings(v: unknown): string[] {
  return Array.isArray(v) ? v.filter((s): s is string => typeof s === 'string') : [];
}

export function firstString(...values: unknown[]): string | undefined {
  return values.find((v): v is string => typeof v === 'string');
}

/** The JSON objects in a list field of a result. */
export function objects(v: unknown): Json[] {
  return Array.isArray(v) ? v.filter((o): o is Json => typeof o === 'object' && o !== null && !Array.isArray(o)) : [];
}

export function count(n: number, word: string): string {
  return `${n} ${word}${n === 1 ? '' : 's'}`;
}

/** "a, b, c" or "a, b, … and 3 more". */
export function listed(items: string[], max: number): string {
  return items.length > max ? `${items.slice(0, max).join(', ')} and ${items.length - max} more` : items.join(', ');
}

/** Inline code that survives backticks inside. */
export function code(text: string): string {
  const longest = Math.max(0, ...(text.match(/`+/g) ?? []).map((run) => run.length));
  const ticks = '`'.repeat(longest + 1);
  return longest > 0 ? `${ticks} ${text} ${ticks}` : `${ticks}${text}${ticks}`;
}

/** A code block that survives fences inside. */
export function fenced(text: string): string {
  const longest = Math.max(2, ...(text.match(/`+/g) ?? []).map((run) => run.length));
  const fence = '`'.repeat(longest + 1);
  return `${fence}\n${text}\n${fence}`;
}
