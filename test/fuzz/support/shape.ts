/**
 * The positions of a message, derived from its JSON Schema (the protocol's zod schemas and the MCP
 * SDK's go through `z.toJSONSchema`; a tool's parameters already are one): every string, number,
 * array, object and free (`{}`) position with the limits the schema states, and one valid sample
 * that holds every optional field, so a value can be put into each position of an otherwise valid
 * message. A union contributes the positions of every variant; such a position carries the variant
 * to set into the sample first. Samples of JSON values that have no schema (a model endpoint's
 * responses) get their positions from the value itself (`positionsOfValue`).
 */

export type Json = null | boolean | number | string | Json[] | { [key: string]: Json };
export type PathKey = string | number;
export type JsonSchema = { [key: string]: unknown } | boolean;

export type PositionKind = 'string' | 'number' | 'array' | 'object' | 'any';

export interface Position {
  path: PathKey[];
  kind: PositionKind;
  /** Strings: the schema's `maxLength` (undefined: unbounded). */
  maxLength?: number;
  /** Arrays: the schema's `maxItems` (undefined: unbounded). */
  maxItems?: number;
  /** Arrays: a valid element, to fill the array with. */
  item?: Json;
  /** Strings whose sample is a JSON text (a tool call's `arguments`): structures go inside the text too. */
  jsonText?: boolean;
  /** Variants chosen on the way, outermost first: set each into the sample before the value. */
  variants: { path: PathKey[]; value: Json }[];
  /** For the report: `content[].value (json)`. */
  label: string;
}

export interface Shape {
  sample: Json;
  positions: Position[];
}

/** Candidates for a string with a `pattern` or a `format`; the first that passes is the sample. */
const STRING_CANDIDATES = ['a', 'text/plain', 'file:///a', 'https://example.invalid/a', '2026-01-01T00:00:00Z', 'a@example.invalid', '00000000-0000-4000-8000-000000000000', 'AAAA'];
const MAX_REF_DEPTH = 3;

/** The shape of the value `schema` describes; `root` resolves local `$ref`s (`#/$defs/…`, `#/definitions/…`). */
export function shapeOf(schema: JsonSchema, root: JsonSchema = schema): Shape {
  const positions: Position[] = [];
  const sample = walk(schema, root, [], [], '', positions, new Map());
  return { sample, positions };
}

function walk(schema: JsonSchema, root: JsonSchema, path: PathKey[], variants: Position['variants'], label: string, out: Position[], refs: Map<string, number>): Json {
  if (typeof schema === 'boolean') return schema ? anyPosition(path, variants, label, out) : null;
  const ref = schema.$ref;
  if (typeof ref === 'string') {
    const seen = refs.get(ref) ?? 0;
    const target = resolveRef(root, ref);
    if (target === undefined || seen >= MAX_REF_DEPTH) return null;
    const inner = new Map(refs).set(ref, seen + 1);
    return walk({ ...schema, $ref: undefined, ...(target as object) }, root, path, variants, label, out, inner);
  }
  if ('const' in schema) return schema.const as Json;
  const union = (schema.anyOf ?? schema.oneOf) as JsonSchema[] | undefined;
  if (Array.isArray(union)) return walkUnion(schema, union, root, path, variants, label, out, refs);
  if (Array.isArray(schema.allOf)) {
    const merged = (schema.allOf as JsonSchema[]).reduce<Record<string, unknown>>((acc, part) => mergeSchemas(acc, resolveDeep(part, root)), { ...schema, allOf: undefined });
    return walk(merged, root, path, variants, label, out, refs);
  }
  const type = (Array.isArray(schema.type) ? (schema.type as string[]).find((t) => t !== 'null') : (schema.type as string | undefined)) ?? 'untyped';
  if (Array.isArray(schema.enum)) {
    const values = schema.enum as Json[];
    const longest = Math.max(0, ...values.map((v) => (typeof v === 'string' ? v.length : 0)));
    if (typeof values[0] === 'string') out.push({ path, kind: 'string', maxLength: longest, variants, label: label || '(root)' });
    return values[0];
  }
  switch (type) {
    case 'string':
      out.push({ path, kind: 'string', maxLength: numberOr(schema.maxLength), variants, label: label || '(root)' });
      return sampleString(schema);
    case 'number':
    case 'integer':
      out.push({ path, kind: 'number', variants, label: label || '(root)' });
      return sampleNumber(schema);
    case 'boolean':
      return true;
    case 'null':
      return null;
    case 'array':
      return walkArray(schema, root, path, variants, label, out, refs);
    case 'object':
      return walkObject(schema, root, path, variants, label, out, refs);
    default:
      if (schema.properties || schema.additionalProperties) return walkObject(schema, root, path, variants, label, out, refs);
      if (schema.items) return walkArray(schema, root, path, variants, label, out, refs);
      return anyPosition(path, variants, label, out);
  }
}

function walkUnion(schema: Record<string, unknown>, union: JsonSchema[], root: JsonSchema, path: PathKey[], variants: Position['variants'], label: string, out: Position[], refs: Map<string, number>): Json {
  const rest = { ...schema, anyOf: undefined, oneOf: undefined };
  let first: Json | undefined;
  union.forEach((branch, i) => {
    const merged = typeof branch === 'boolean' ? branch : mergeSchemas(rest, branch);
    if (typeof merged !== 'boolean' && merged.type === 'null') return;
    const inner: Position[] = [];
    const name = variantName(resolveDeep(branch, root)) ?? `#${i}`;
    const value = walk(merged, root, path, variants, `${label} (${name})`, inner, refs);
    if (first === undefined) {
      first = value;
      out.push(...inner);
      return;
    }
    const variant = { path, value };
    for (const p of inner) out.push({ ...p, variants: [...variants, variant, ...p.variants.slice(variants.length)] });
  });
  return first ?? null;
}

function walkArray(schema: Record<string, unknown>, root: JsonSchema, path: PathKey[], variants: Position['variants'], label: string, out: Position[], refs: Map<string, number>): Json {
  const items = (schema.items ?? (Array.isArray(schema.prefixItems) ? (schema.prefixItems as JsonSchema[])[0] : true)) as JsonSchema;
  const mine: Position = { path, kind: 'array', maxItems: numberOr(schema.maxItems), variants, label: label || '(root)' };
  out.push(mine);
  const item = walk(items, root, [...path, 0], variants, `${label}[]`, out, refs);
  mine.item = item;
  const count = Math.max(1, numberOr(schema.minItems) ?? 1);
  return Array.from({ length: count }, () => item);
}

function walkObject(schema: Record<string, unknown>, root: JsonSchema, path: PathKey[], variants: Position['variants'], label: string, out: Position[], refs: Map<string, number>): Json {
  out.push({ path, kind: 'object', variants, label: label || '(root)' });
  const sample: { [key: string]: Json } = {};
  const properties = (schema.properties ?? {}) as Record<string, JsonSchema>;
  for (const [key, sub] of Object.entries(properties)) {
    sample[key] = walk(sub, root, [...path, key], variants, label ? `${label}.${key}` : key, out, refs);
  }
  const extra = schema.additionalProperties;
  if (extra !== undefined && extra !== false && Object.keys(properties).length === 0) {
    sample.key = walk(extra as JsonSchema, root, [...path, 'key'], variants, `${label}.*`, out, refs);
  }
  return sample;
}

function anyPosition(path: PathKey[], variants: Position['variants'], label: string, out: Position[]): Json {
  out.push({ path, kind: 'any', variants, label: label || '(root)' });
  return 'x';
}

/**
 * Positions of a JSON value that has no schema: every string, number, array and object in it. A
 * string that holds a JSON object or array (a tool call's `arguments`) is marked `jsonText`.
 */
export function positionsOfValue(value: Json, path: PathKey[] = [], label = ''): Position[] {
  const here = label || '(root)';
  if (typeof value === 'string') return [{ path, kind: 'string', variants: [], label: here, ...(isJsonText(value) ? { jsonText: true } : {}) }];
  if (typeof value === 'number') return [{ path, kind: 'number', variants: [], label: here }];
  if (value === null || typeof value === 'boolean') return [];
  if (Array.isArray(value)) {
    const inner = value.length > 0 ? positionsOfValue(value[0], [...path, 0], `${label}[]`) : [];
    return [{ path, kind: 'array', item: value[0] ?? null, variants: [], label: here }, ...inner];
  }
  return [{ path, kind: 'object', variants: [], label: here }, ...Object.entries(value).flatMap(([k, v]) => positionsOfValue(v, [...path, k], label ? `${label}.${k}` : k))];
}

function isJsonText(s: string): boolean {
  if (!/^\s*[[{]/.test(s)) return false;
  try {
    JSON.parse(s);
    return true;
  } catch {
    return false;
  }
}

/** `value` with `replacement` at `path` (copied along the path, shared elsewhere). */
export function setAt(value: Json, path: readonly PathKey[], replacement: Json): Json {
  if (path.length === 0) return replacement;
  const [head, ...rest] = path;
  if (Array.isArray(value)) {
    const copy = [...value];
    copy[head as number] = setAt(copy[head as number] ?? null, rest, replacement);
    return copy;
  }
  const object = value !== null && typeof value === 'object' ? value : {};
  return { ...object, [head]: setAt(object[head as string] ?? null, rest, replacement) };
}

function sampleString(schema: Record<string, unknown>): string {
  const min = numberOr(schema.minLength) ?? 0;
  const max = numberOr(schema.maxLength) ?? Infinity;
  const pattern = typeof schema.pattern === 'string' ? safeRegExp(schema.pattern) : undefined;
  for (const base of STRING_CANDIDATES) {
    const s = base.length >= min ? base : base + base[base.length - 1].repeat(min - base.length);
    if (s.length <= max && (!pattern || pattern.test(s))) return s;
  }
  return 'a'.repeat(Math.max(1, min));
}

function sampleNumber(schema: Record<string, unknown>): number {
  const min = numberOr(schema.minimum) ?? (numberOr(schema.exclusiveMinimum) !== undefined ? (schema.exclusiveMinimum as number) + 1 : undefined);
  const max = numberOr(schema.maximum);
  const n = min !== undefined && min > 1 ? min : 1;
  return max !== undefined && n > max ? max : n;
}

function safeRegExp(pattern: string): RegExp | undefined {
  try {
    return new RegExp(pattern, 'u');
  } catch {
    return undefined;
  }
}

function numberOr(v: unknown): number | undefined {
  return typeof v === 'number' && Number.isFinite(v) ? v : undefined;
}

function variantName(schema: JsonSchema): string | undefined {
  if (typeof schema === 'boolean') return undefined;
  const props = schema.properties as Record<string, { const?: unknown }> | undefined;
  for (const key of ['type', 'method', 'kind']) {
    const c = props?.[key]?.const;
    if (typeof c === 'string') return c;
  }
  return typeof schema.type === 'string' ? schema.type : undefined;
}

function resolveRef(root: JsonSchema, ref: string): JsonSchema | undefined {
  if (!ref.startsWith('#')) return undefined;
  let node: unknown = root;
  for (const part of ref.slice(1).split('/').filter(Boolean)) {
    if (node === null || typeof node !== 'object') return undefined;
    node = (node as Record<string, unknown>)[decodeURIComponent(part.replace(/~1/g, '/').replace(/~0/g, '~'))];
  }
  return node === undefined ? undefined : (node as JsonSchema);
}

function resolveDeep(schema: JsonSchema, root: JsonSchema): JsonSchema {
  if (typeof schema === 'boolean' || typeof schema.$ref !== 'string') return schema;
  const target = resolveRef(root, schema.$ref);
  return target === undefined || typeof target === 'boolean' ? schema : { ...schema, $ref: undefined, ...target };
}

function mergeSchemas(a: Record<string, unknown>, b: JsonSchema): Record<string, unknown> {
  if (typeof b === 'boolean') return a;
  const properties = { ...(a.properties as object | undefined), ...(b.properties as object | undefined) };
  const required = [...((a.required as string[] | undefined) ?? []), ...((b.required as string[] | undefined) ?? [])];
  return { ...a, ...b, properties, required };
}
