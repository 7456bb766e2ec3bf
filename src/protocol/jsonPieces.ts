/**
 * `JSON.parse` in pieces, so that a large message is parsed across turns of the event loop instead
 * of in one stretch (`JSON.parse` of a 2.4 MB hello of 16,384 tools took 60-160 ms on two shared
 * cores, and nothing else ran meanwhile). One linear scan finds the containers longer than
 * `pieceChars`; those are walked member by member, and everything else (a member that is a shorter
 * container, a string, a number, a literal) is parsed by `JSON.parse` whole, so no piece is longer
 * than `pieceChars` except a single long string. The generator yields after about `pieceChars` of
 * text; its caller decides how many pieces fit in a turn. The result is what `JSON.parse` returns
 * (a key `__proto__` is an own property; of a repeated key the last value counts, at the first
 * one's place); malformed text throws a SyntaxError, as `JSON.parse` does.
 */

import { CLOSE_ARRAY, CLOSE_OBJECT, closingQuote, COLON, COMMA, OPEN_ARRAY, OPEN_OBJECT, QUOTE } from './jsonStructure';

/** A container being walked: its value so far, where its next member starts, the index of its closing bracket. */
interface Walk {
  value: unknown[] | Record<string, unknown>;
  isArray: boolean;
  at: number;
  /** The index of its opening bracket. */
  openedAt: number;
  close: number;
  /** A member was read and a comma or the closing bracket comes next. */
  afterMember: boolean;
  /** The key of the member whose value (a walked container) is being built. */
  key?: string;
}

/** Parses `text` as `JSON.parse` does, yielding between pieces of about `pieceChars` characters. */
export function* parseInPieces(text: string, pieceChars = 64 * 1024): Generator<void, unknown> {
  const walked = containersLongerThan(text, pieceChars);
  const start = skipSpace(text, 0);
  const rootClose = walked.get(start);
  if (rootClose === undefined) return JSON.parse(text);
  const stack: Walk[] = [walk(text, start, rootClose)];
  let root: unknown;
  let done = 0;
  while (stack.length > 0) {
    const top = stack[stack.length - 1];
    let p = skipSpace(text, top.at);
    if (p === top.close && (top.afterMember || top.at === top.openedAt + 1)) {
      stack.pop();
      const parent = stack[stack.length - 1];
      if (parent) {
        place(parent, top.value);
        parent.at = top.close + 1;
      } else {
        root = top.value;
        if (skipSpace(text, top.close + 1) !== text.length) throw unexpected(text, skipSpace(text, top.close + 1));
      }
      continue;
    }
    if (top.afterMember) {
      if (text.charCodeAt(p) !== COMMA) throw unexpected(text, p);
      p = skipSpace(text, p + 1);
    }
    if (!top.isArray) {
      if (text.charCodeAt(p) !== QUOTE) throw unexpected(text, p);
      const keyEnd = closingQuote(text, p) + 1;
      if (keyEnd === 0 || keyEnd > top.close) throw unexpected(text, p);
      top.key = JSON.parse(text.slice(p, keyEnd)) as string;
      p = skipSpace(text, keyEnd);
      if (text.charCodeAt(p) !== COLON) throw unexpected(text, p);
      p = skipSpace(text, p + 1);
    }
    const close = walked.get(p);
    if (close !== undefined && close < top.close) {
      top.at = p;
      top.afterMember = true;
      stack.push(walk(text, p, close));
      continue;
    }
    const end = valueEnd(text, p, top.close);
    if (end <= p) throw unexpected(text, p);
    place(top, JSON.parse(text.slice(p, end)));
    top.at = end;
    // A member costs its characters and a little for itself (an object of 100,000 short members is work too).
    done += end - p + 32;
    if (done >= pieceChars) {
      done = 0;
      yield;
    }
  }
  return root;
}

/** Drives `parseInPieces` a turn at a time, at most `sliceMs` of work per turn (setImmediate between). */
export function parseAcrossTurns(text: string, sliceMs = 8): Promise<unknown> {
  const pieces = parseInPieces(text);
  return new Promise((resolve, reject) => {
    const turn = (): void => {
      const until = performance.now() + sliceMs;
      try {
        for (;;) {
          const step = pieces.next();
          if (step.done) return resolve(step.value);
          if (performance.now() >= until) return void setImmediate(turn);
        }
      } catch (e) {
        reject(e as Error);
      }
    };
    turn();
  });
}

function walk(text: string, open: number, close: number): Walk {
  const isArray = text.charCodeAt(open) === OPEN_ARRAY;
  if (text.charCodeAt(close) !== (isArray ? CLOSE_ARRAY : CLOSE_OBJECT)) throw unexpected(text, close);
  return { value: isArray ? [] : {}, isArray, at: open + 1, openedAt: open, close, afterMember: false };
}

function place(w: Walk, value: unknown): void {
  if (w.isArray) (w.value as unknown[]).push(value);
  // As JSON.parse does: an own property even for `__proto__`, never the prototype.
  else Object.defineProperty(w.value, w.key as string, { value, writable: true, enumerable: true, configurable: true });
  w.afterMember = true;
}

/**
 * Where each container longer than `min` characters closes, by where it opens. Strings are jumped
 * over with `indexOf`; a container left open is not listed (parsing it then fails).
 */
function containersLongerThan(text: string, min: number): Map<number, number> {
  const out = new Map<number, number>();
  if (text.length <= min) return out;
  const open: number[] = [];
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c === QUOTE) {
      i = closingQuote(text, i);
      if (i < 0) break;
    } else if (c === OPEN_OBJECT || c === OPEN_ARRAY) {
      open.push(i);
    } else if (c === CLOSE_OBJECT || c === CLOSE_ARRAY) {
      const start = open.pop();
      if (start !== undefined && i - start >= min) out.set(start, i);
    }
  }
  return out;
}

/** The end (exclusive) of the value at `at` that is not a walked container: a shorter container, a string, a number or a literal. */
function valueEnd(text: string, at: number, limit: number): number {
  const c = text.charCodeAt(at);
  if (c === QUOTE) return closingQuote(text, at) + 1;
  if (c === OPEN_OBJECT || c === OPEN_ARRAY) {
    let depth = 0;
    for (let i = at; i < limit; i++) {
      const d = text.charCodeAt(i);
      if (d === QUOTE) {
        i = closingQuote(text, i);
        if (i < 0) return limit;
      } else if (d === OPEN_OBJECT || d === OPEN_ARRAY) depth++;
      else if ((d === CLOSE_OBJECT || d === CLOSE_ARRAY) && --depth === 0) return i + 1;
    }
    return limit;
  }
  let i = at;
  while (i < limit) {
    const d = text.charCodeAt(i);
    if (d === COMMA || d === CLOSE_OBJECT || d === CLOSE_ARRAY || isSpace(d)) break;
    i++;
  }
  return i;
}

function isSpace(c: number): boolean {
  return c === 0x20 || c === 0x0a || c === 0x0d || c === 0x09;
}

function skipSpace(text: string, at: number): number {
  while (at < text.length && isSpace(text.charCodeAt(at))) at++;
  return at;
}

function unexpected(text: string, at: number): SyntaxError {
  return new SyntaxError(at >= text.length ? 'Unexpected end of JSON input' : `Unexpected token ${JSON.stringify(text.charAt(at))} in JSON at position ${at}`);
}
