/**
 * A name as a model function name, one rule for the backend's containers, the extension's bridged
 * tools and the chat's fold. The rule is injective, so two different names never become the same
 * function, and it depends on nothing but the name, so a function keeps its name across restarts:
 *
 * - a name that is a function name already (`[A-Za-z0-9_-]{1,64}`) and does not end like a digest
 *   (`_` and 12 hex digits) stays as it is (`IDE`, `ReadFile`);
 * - any other name becomes its characters outside `[A-Za-z0-9_-]` replaced by `_`, cut to 51, then
 *   `_` and the first 12 hex digits of the SHA-256 of the name's UTF-16 code units
 *   (`MCP: everything` → `MCP__everything_<12 hex>`), so `a b` and `a_b` stay apart.
 *
 * Two names can then only meet through a digest collision, which every registration refuses
 * (`NAME_TAKEN`) instead of renaming.
 */
import { sha256Hex } from './sha256';

const FUNCTION_NAME = /^[A-Za-z0-9_-]{1,64}$/;
const DIGEST_TAIL = /_[0-9a-f]{12}$/;
const DIGEST_CHARS = 12;

export function toFunctionName(name: string): string {
  if (FUNCTION_NAME.test(name) && !DIGEST_TAIL.test(name)) return name;
  return digestedFunctionName(name, [name]);
}

/**
 * `readable` with the characters outside `[A-Za-z0-9_-]` replaced, cut, and a digest of `parts`
 * (each part's length is hashed with it, so `["a_b", "c"]` and `["a", "b_c"]` differ): the form for
 * a name that is not kept as it is. Its tail always matches the digest pattern, so it can never equal
 * a name that `toFunctionName` keeps.
 */
export function digestedFunctionName(readable: string, parts: readonly string[]): string {
  const digest = sha256Hex(utf16Bytes(parts.map((p) => `${p.length}:${p}`).join(''))).slice(0, DIGEST_CHARS);
  return `${readable.replace(/[^A-Za-z0-9_-]/g, '_').slice(0, 64 - DIGEST_CHARS - 1)}_${digest}`;
}

/** Whether `name` is kept as it is by the rule (a function name that does not end like a digest). */
export function isPlainFunctionName(name: string): boolean {
  return FUNCTION_NAME.test(name) && !DIGEST_TAIL.test(name);
}

/** The UTF-16 code units, big-endian: lone surrogates stay distinct (UTF-8 would turn both into U+FFFD). */
function utf16Bytes(s: string): Uint8Array {
  const out = new Uint8Array(s.length * 2);
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    out[i * 2] = c >> 8;
    out[i * 2 + 1] = c & 0xff;
  }
  return out;
}
