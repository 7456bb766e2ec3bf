/**
 * A model's tool-call arguments, bounded before any work on them. The text comes from the model
 * endpoint (or from whatever steers the model), and parsing, validating, echoing and keeping it in
 * the thread all grow with it: three 10 MB arguments in one turn stalled the loop for seconds. So
 * its size and its nesting are checked first, in one linear pass, and a call past them is not run:
 * the model reads a coded error, and the thread keeps a short note in place of the text.
 */
import { ErrorCode } from '../protocol';
import type { ToolCallRequest } from './model/chatModel';

/** The default of `maxToolArgumentBytes`: above any file a model writes in one call. */
export const DEFAULT_MAX_TOOL_ARGUMENT_BYTES = 1024 * 1024;
/** Nesting of objects and arrays in one call's arguments (JSON.parse of 400,000 levels took 370 ms, and printing them overflowed the stack). */
export const MAX_ARGUMENT_DEPTH = 64;

export type ParsedArguments = { ok: true; value: Record<string, unknown> } | { ok: false; code: ErrorCode; reason: string };

/** Parses a call's arguments, after checking their size and depth. */
export function parseArguments(text: string, maxBytes: number): ParsedArguments {
  const problem = unparsable(text, maxBytes);
  if (problem) return { ok: false, code: ErrorCode.LimitExceeded, reason: problem };
  if (text.trim() === '') return { ok: true, value: {} };
  let v: unknown;
  try {
    v = JSON.parse(text);
  } catch (e) {
    return { ok: false, code: ErrorCode.InvalidArguments, reason: `they are not valid JSON (${(e as Error).message.slice(0, 200)})` };
  }
  if (typeof v !== 'object' || v === null || Array.isArray(v)) return { ok: false, code: ErrorCode.InvalidArguments, reason: 'they must be a JSON object' };
  return { ok: true, value: v as Record<string, unknown> };
}

/** The call as the thread keeps it: arguments too large or too deep to parse are replaced by a short JSON note. */
export function keptCall(call: ToolCallRequest, maxBytes: number): ToolCallRequest {
  const problem = unparsable(call.arguments, maxBytes);
  if (!problem) return call;
  return { ...call, arguments: JSON.stringify({ omitted: `the arguments were not kept: ${problem}; the call was not run` }) };
}

/** Why arguments are not parsed at all (too large, too deep); undefined when they may be. */
function unparsable(text: string, maxBytes: number): string | undefined {
  const over = oversize(text, maxBytes);
  if (over !== undefined) return `they are ${over} bytes, over the limit of ${maxBytes} bytes for one call's arguments; pass large content in smaller parts`;
  if (depthOver(text, MAX_ARGUMENT_DEPTH)) return `they nest objects and arrays more than ${MAX_ARGUMENT_DEPTH} levels deep`;
  return undefined;
}

/** The UTF-8 size of `text` when it is over `maxBytes`, else undefined (a long text is not measured). */
function oversize(text: string, maxBytes: number): number | undefined {
  if (text.length * 3 <= maxBytes) return undefined;
  const bytes = Buffer.byteLength(text, 'utf8');
  return bytes > maxBytes ? bytes : undefined;
}

/** Whether JSON text nests objects and arrays deeper than `max` (strings skipped; linear, no allocation). */
export function depthOver(text: string, max: number): boolean {
  let depth = 0;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (inString) {
      if (c === 0x5c) i++;
      else if (c === 0x22) inString = false;
    } else if (c === 0x22) {
      inString = true;
    } else if (c === 0x7b || c === 0x5b) {
      if (++depth > max) return true;
    } else if (c === 0x7d || c === 0x5d) {
      depth--;
    }
  }
  return false;
}
