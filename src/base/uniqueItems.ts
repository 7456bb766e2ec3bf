/**
 * `uniqueItems` in linear time: ajv's own check compares every pair of items with a deep equality
 * when their type is not a known scalar (quadratic, on the thread that serves every session); here
 * each item becomes one canonical JSON text (object keys sorted, so key order does not matter, as in
 * deep equality) looked up in a set.
 */
import type { FuncKeywordDefinition } from 'ajv';

interface UniqueItemsCheck {
  (schema: boolean, data: unknown[]): boolean;
  errors?: { keyword: string; message: string; params: { i: number; j: number } }[];
}

const check: UniqueItemsCheck = (schema, data) => {
  check.errors = undefined;
  if (!schema) return true;
  const seen = new Map<string, number>();
  for (let i = 0; i < data.length; i++) {
    const key = canonical(data[i]);
    const j = seen.get(key);
    if (j !== undefined) {
      check.errors = [{ keyword: 'uniqueItems', message: `must NOT have duplicate items (items ## ${j} and ${i} are identical)`, params: { i, j } }];
      return false;
    }
    seen.set(key, i);
  }
  return true;
};

export const uniqueItemsKeyword: FuncKeywordDefinition = {
  keyword: 'uniqueItems',
  type: 'array',
  schemaType: 'boolean',
  errors: true,
  validate: check,
};

/** JSON text with object keys sorted; arguments are JSON values, so this is deep equality. */
function canonical(value: unknown): string {
  if (typeof value !== 'object' || value === null) return JSON.stringify(value) ?? 'undefined';
  let out: string;
  if (Array.isArray(value)) {
    out = '[';
    for (let i = 0; i < value.length; i++) out += (i ? ',' : '') + canonical(value[i]);
    return out + ']';
  }
  const keys = Object.keys(value);
  if (keys.length > 1) keys.sort();
  out = '{';
  for (let i = 0; i < keys.length; i++) out += (i ? ',' : '') + JSON.stringify(keys[i]) + ':' + canonical((value as Record<string, unknown>)[keys[i]]);
  return out + '}';
}
