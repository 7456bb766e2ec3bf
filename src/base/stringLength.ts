/**
 * `maxLength` and `minLength` that count a long string's characters only when its length in UTF-16
 * units cannot decide: ajv's own count every code point of every checked string, a pass over all of
 * it (an OpenDiff's `newContent` of 4 MB is a 10-15 ms pass in the extension host). A string of n
 * units has between n / 2 and n code points, so most strings are decided by `length` alone. Same
 * result and error as ajv's (characters are code points, as JSON Schema counts them).
 */
import type { FuncKeywordDefinition } from 'ajv';

interface LengthCheck {
  (limit: number, data: string): boolean;
  errors?: { keyword: string; message: string; params: { limit: number } }[];
}

/** Code points of `text`: a surrogate pair counts once. */
export function codePoints(text: string): number {
  let count = text.length;
  for (let i = 0; i < text.length - 1; i++) {
    const unit = text.charCodeAt(i);
    if (unit >= 0xd800 && unit <= 0xdbff && (text.charCodeAt(i + 1) & 0xfc00) === 0xdc00) {
      count--;
      i++;
    }
  }
  return count;
}

/** At most `limit` code points. */
export function withinMaxLength(text: string, limit: number): boolean {
  if (text.length <= limit) return true;
  if (text.length > 2 * limit) return false;
  return codePoints(text) <= limit;
}

/** At least `limit` code points. */
export function withinMinLength(text: string, limit: number): boolean {
  if (text.length < limit) return false;
  if (Math.ceil(text.length / 2) >= limit) return true;
  return codePoints(text) >= limit;
}

function lengthKeyword(keyword: 'maxLength' | 'minLength', within: (text: string, limit: number) => boolean, words: string): FuncKeywordDefinition {
  const check: LengthCheck = (limit, data) => {
    check.errors = undefined;
    if (within(data, limit)) return true;
    check.errors = [{ keyword, message: `must NOT have ${words} than ${limit} characters`, params: { limit } }];
    return false;
  };
  return { keyword, type: 'string', schemaType: 'number', errors: true, validate: check };
}

export const maxLengthKeyword = lengthKeyword('maxLength', withinMaxLength, 'more');
export const minLengthKeyword = lengthKeyword('minLength', withinMinLength, 'fewer');
