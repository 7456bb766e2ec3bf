/**
 * Structure limits of a JSON text, checked before it is parsed. What parsing and the schema check
 * cost grows with the values and with the members of one object, not with the bytes: `JSON.parse`
 * of one object of 250,000 members took 190 ms of CPU and zod's record check of 100,000 members
 * over 300 ms, while a 32 MiB string parses in a few. The scan is one pass that jumps over string
 * contents with `indexOf`, so it is linear in the text and cheap for text made of long strings, and
 * it stops at the first limit passed. Nesting depth is left to the parser (iterative in V8) and to
 * whatever reads the value afterwards.
 */

export interface JsonStructureLimits {
  /** Values, counted as the `{`, `[` and `,` outside strings. */
  maxValues: number;
  /** Members of one object. */
  maxMembers: number;
}

export const JSON_STRUCTURE_LIMITS: JsonStructureLimits = { maxValues: 1_000_000, maxMembers: 10_000 };

/** An MCP message, either way (the editor's MCP server, the bridge to the user's servers): a tool list of 512 tools with rich schemas is some 50,000 values. */
export const MCP_STRUCTURE_LIMITS: JsonStructureLimits = { maxValues: 250_000, maxMembers: 10_000 };

/** The JSON characters both scans (this one and src/protocol/jsonPieces.ts) look for, as char codes. */
export const QUOTE = 0x22;
export const BACKSLASH = 0x5c;
export const COMMA = 0x2c;
export const COLON = 0x3a;
export const OPEN_OBJECT = 0x7b;
export const CLOSE_OBJECT = 0x7d;
export const OPEN_ARRAY = 0x5b;
export const CLOSE_ARRAY = 0x5d;
/** On the stack of open containers: an array (its items are not members). */
const ARRAY = -1;

/** Which limit `text` passes, as a sentence; undefined when it keeps them all. Malformed JSON is left to the parser. */
export function jsonStructureProblem(text: string, limits: JsonStructureLimits = JSON_STRUCTURE_LIMITS): string | undefined {
  // Members so far per open object; ARRAY for an open array.
  const open: number[] = [];
  let values = 0;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c === QUOTE) {
      i = closingQuote(text, i);
      if (i < 0) return undefined;
    } else if (c === COLON) {
      const top = open.length - 1;
      if (top >= 0 && open[top] !== ARRAY && ++open[top] > limits.maxMembers) return `an object in the message has more than ${limits.maxMembers.toLocaleString('en-US')} members`;
    } else if (c === OPEN_OBJECT || c === OPEN_ARRAY || c === COMMA) {
      if (c !== COMMA) open.push(c === OPEN_OBJECT ? 0 : ARRAY);
      if (++values > limits.maxValues) return `the message holds more than ${limits.maxValues.toLocaleString('en-US')} values`;
    } else if (c === CLOSE_OBJECT || c === CLOSE_ARRAY) {
      open.pop();
    }
  }
  return undefined;
}

/** The index of the quote that closes the string opening at `start`, or -1 when there is none. */
export function closingQuote(text: string, start: number): number {
  let at = text.indexOf('"', start + 1);
  while (at > 0) {
    let backslashes = 0;
    for (let k = at - 1; text.charCodeAt(k) === BACKSLASH; k--) backslashes++;
    if (backslashes % 2 === 0) return at;
    at = text.indexOf('"', at + 1);
  }
  return -1;
}

/** Longest value `topLevelValues` reads. */
const MAX_TOP_LEVEL_VALUE_CHARS = 200;
/** JSON's white space, and what ends a value in an object, as char codes. */
const JSON_SPACE = [0x20, 0x09, 0x0a, 0x0d];
const VALUE_END = [COMMA, CLOSE_OBJECT, CLOSE_ARRAY, ...JSON_SPACE];

/**
 * The values of the top-level members `keys` of the object `text`, each when it is a short string,
 * number or null (JSON-RPC's `id` and `method` of a refused message), else undefined; of a repeated
 * key, the first. One pass that
 * jumps over strings, with no regular expression and no slice kept of `text`: a match's subject
 * stays reachable from `RegExp.lastMatch` until the next match, and a slice holds the whole text.
 * Here beside the scan above, whose char codes its loop reads as this module's own constants.
 */
export function topLevelValues(text: string, keys: readonly string[]): unknown[] {
  const quoted = keys.map((k) => JSON.stringify(k));
  const values: unknown[] = keys.map(() => undefined);
  const read = keys.map(() => false);
  let left = keys.length;
  let depth = 0;
  let keyBefore = -1;
  for (let i = 0; i < text.length && left > 0; i++) {
    const c = text.charCodeAt(i);
    if (c === QUOTE) {
      const end = closingQuote(text, i);
      if (end < 0) break;
      keyBefore = depth === 1 ? quoted.findIndex((q) => end - i + 1 === q.length && text.startsWith(q, i)) : -1;
      i = end;
    } else if (c === COLON && depth === 1 && keyBefore >= 0) {
      // A repeated key: its first value counts, and it is not counted twice.
      if (!read[keyBefore]) {
        read[keyBefore] = true;
        values[keyBefore] = shortValue(text, i + 1);
        left--;
      }
      keyBefore = -1;
    } else if (c === OPEN_OBJECT || c === OPEN_ARRAY) {
      depth++;
    } else if (c === CLOSE_OBJECT || c === CLOSE_ARRAY) {
      depth--;
    }
  }
  return values;
}

/** The string, number or null starting at `from` (after white space), when at most MAX_TOP_LEVEL_VALUE_CHARS long. */
function shortValue(text: string, from: number): unknown {
  let start = from;
  while (start < text.length && JSON_SPACE.includes(text.charCodeAt(start))) start++;
  let end = start;
  if (text.charCodeAt(start) === QUOTE) {
    end = closingQuote(text, start) + 1;
    if (end <= 0) return undefined;
  } else {
    while (end < text.length && end - start <= MAX_TOP_LEVEL_VALUE_CHARS && !VALUE_END.includes(text.charCodeAt(end))) end++;
  }
  if (end - start > MAX_TOP_LEVEL_VALUE_CHARS) return undefined;
  try {
    const value = JSON.parse(text.slice(start, end)) as unknown;
    return typeof value === 'string' || typeof value === 'number' || value === null ? value : undefined;
  } catch {
    return undefined;
  }
}
