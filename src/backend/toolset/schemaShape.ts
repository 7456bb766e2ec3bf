/**
 * The checks a client's parameter schema passes before ajv (or anything recursive) touches it, each
 * linear in the schema's size and iterative, so no schema can overflow the stack or make the one
 * thread that serves every session work for seconds:
 *
 * - nesting depth and serialised size;
 * - `$ref`: only local JSON pointers (`#`, `#/…`), no cycles (a recursive schema can cost time
 *   exponential in the arguments' depth), and the schema with every `$ref` inlined stays small
 *   (a 2 KB fan-out of refs otherwise costs 2^30 steps per call);
 * - `$id` only at the top (a nested one would move what `#/…` means under it);
 * - every `pattern` and `patternProperties` key compiles on RE2 (linear time), within the budgets of
 *   schemaPatterns.ts.
 */
import { ErrorCode } from '../../protocol';
import type { PatternCache } from './schemaPatterns';

export const SCHEMA_LIMITS = {
  /** Nesting of JSON objects and arrays in one schema (a property is two levels: `properties`, then its schema). */
  maxDepth: 64,
  /** One schema, serialised as JSON. */
  maxBytes: 128 * 1024,
  /**
   * Subschemas once every `$ref` is inlined. Bounds what one call's validation costs, and what
   * compiling costs at the tool's first call (ajv generates code per subschema).
   */
  maxExpandedSubschemas: 1_000,
  /** Distinct `pattern`s and `patternProperties` keys in one schema. */
  maxPatterns: 256,
} as const;

export type ShapeCheck = { ok: true; bytes: number } | { ok: false; code: ErrorCode; reason: string };

/** Keywords whose value is a map of name → subschema. */
const SCHEMA_MAPS = ['properties', 'patternProperties', '$defs', 'definitions', 'dependentSchemas', 'dependencies'];
/** Keywords whose value is a list of subschemas. */
const SCHEMA_LISTS = ['allOf', 'anyOf', 'oneOf', 'prefixItems'];
/** Keywords whose value is one subschema (or, for `items`, a draft-07 list). */
const SCHEMA_VALUES = ['additionalProperties', 'items', 'additionalItems', 'contains', 'not', 'if', 'then', 'else', 'propertyNames', 'unevaluatedItems', 'unevaluatedProperties'];
const SCHEMA_LISTS_AND_VALUES = [...SCHEMA_LISTS, ...SCHEMA_VALUES];

type SchemaNode = Record<string, unknown>;

export function checkShape(schema: object, patterns: PatternCache): ShapeCheck {
  const depth = checkDepth(schema);
  if (depth) return depth;
  let text: string;
  try {
    text = JSON.stringify(schema);
  } catch {
    return invalid('it cannot be serialised as JSON');
  }
  const bytes = Buffer.byteLength(text);
  if (bytes > SCHEMA_LIMITS.maxBytes) return limit(`it is ${bytes} bytes as JSON; the limit "schema size" is ${SCHEMA_LIMITS.maxBytes} bytes`);
  const graph = collect(schema as SchemaNode, patterns);
  if ('code' in graph) return graph;
  const expansion = checkExpansion(schema as SchemaNode, graph.refs);
  if (expansion) return expansion;
  return { ok: true, bytes };
}

/** Depth first, without recursion and before anything else walks the schema. */
function checkDepth(root: object): ShapeCheck | undefined {
  const stack: [unknown, number][] = [[root, 1]];
  let values = 0;
  while (stack.length) {
    const [value, depth] = stack.pop()!;
    // Every JSON value takes at least two bytes (value and separator): more values than that is too big anyway.
    if (++values > SCHEMA_LIMITS.maxBytes / 2) return limit(`it has more than ${SCHEMA_LIMITS.maxBytes / 2} values; the limit "schema size" is ${SCHEMA_LIMITS.maxBytes} bytes`);
    if (typeof value !== 'object' || value === null) continue;
    if (depth > SCHEMA_LIMITS.maxDepth) return limit(`it is nested more than ${SCHEMA_LIMITS.maxDepth} levels deep; the limit "schema depth" is ${SCHEMA_LIMITS.maxDepth}`);
    for (const child of Array.isArray(value) ? value : Object.values(value)) stack.push([child, depth + 1]);
  }
  return undefined;
}

/** Every subschema's `$ref` target, resolved; refuses what cannot be resolved locally, nested `$id`s and patterns RE2 cannot run. */
function collect(root: SchemaNode, cache: PatternCache): { refs: Map<SchemaNode, unknown> } | { ok: false; code: ErrorCode; reason: string } {
  const refs = new Map<SchemaNode, unknown>();
  const patterns = new Set<string>();
  let programSize = 0;
  const stack: SchemaNode[] = [root];
  const visited = new Set<SchemaNode>();
  while (stack.length) {
    const node = stack.pop()!;
    if (visited.has(node)) continue;
    visited.add(node);
    if (node !== root && Object.hasOwn(node, '$id')) return invalid('"$id" is only supported at the top of a parameter schema');
    for (const keyword of ['$dynamicRef', '$recursiveRef']) {
      if (Object.hasOwn(node, keyword)) return invalid(`"${keyword}" is not supported; use "$ref" to a local definition`);
    }
    if (Object.hasOwn(node, '$ref')) {
      const target = resolvePointer(root, node.$ref);
      if (!target.ok) return invalid(target.reason);
      refs.set(node, target.value);
      // A `$ref` may point anywhere, even into a `default`: what it points at is a schema to ajv, so it is walked as one.
      if (isNode(target.value)) stack.push(target.value);
    }
    const found: string[] = [];
    if (typeof node.pattern === 'string' && Object.hasOwn(node, 'pattern')) found.push(node.pattern);
    if (isNode(node.patternProperties) && Object.hasOwn(node, 'patternProperties')) found.push(...Object.keys(node.patternProperties));
    for (const p of found) {
      if (patterns.has(p)) continue;
      patterns.add(p);
      if (patterns.size > SCHEMA_LIMITS.maxPatterns) return limit(`it has more than ${SCHEMA_LIMITS.maxPatterns} distinct patterns; the limit "patterns per schema" is ${SCHEMA_LIMITS.maxPatterns}`);
      const compiled = cache.check(p, programSize);
      if (!compiled.ok) return compiled;
      programSize += compiled.programSize;
    }
    for (const child of subschemas(node)) if (isNode(child)) stack.push(child);
  }
  return { refs };
}

/**
 * The number of subschemas the schema would have with every `$ref` inlined, counted once per node
 * (memoised) with an iterative depth-first walk; a `$ref` that leads back to a node being counted
 * is a cycle.
 */
function checkExpansion(root: SchemaNode, refs: Map<SchemaNode, unknown>): ShapeCheck | undefined {
  const size = new Map<SchemaNode, number>();
  const onPath = new Set<SchemaNode>();
  const cap = SCHEMA_LIMITS.maxExpandedSubschemas + 1;
  const edges = (node: SchemaNode): SchemaNode[] => {
    const out = subschemas(node).filter(isNode);
    const target = refs.get(node);
    if (isNode(target)) out.push(target);
    return out;
  };
  const stack: { node: SchemaNode; children: SchemaNode[] | undefined }[] = [{ node: root, children: undefined }];
  while (stack.length) {
    const top = stack[stack.length - 1];
    if (top.children === undefined) {
      if (size.has(top.node)) {
        stack.pop();
        continue;
      }
      onPath.add(top.node);
      top.children = edges(top.node);
      for (const child of top.children) {
        if (onPath.has(child)) return invalid('a "$ref" leads back to a schema that contains it (recursive schemas are not supported)');
        if (!size.has(child)) stack.push({ node: child, children: undefined });
      }
      continue;
    }
    let total = 1;
    for (const child of top.children) total = Math.min(cap, total + (size.get(child) ?? 1));
    // Boolean subschemas and the children of lists count one each too.
    total = Math.min(cap, total + subschemas(top.node).filter((c) => typeof c === 'boolean').length);
    size.set(top.node, total);
    onPath.delete(top.node);
    stack.pop();
  }
  const expanded = size.get(root) ?? 1;
  if (expanded >= cap) {
    return limit(`with its "$ref"s inlined it has more than ${SCHEMA_LIMITS.maxExpandedSubschemas} subschemas; the limit "$ref expansion" is ${SCHEMA_LIMITS.maxExpandedSubschemas}`);
  }
  return undefined;
}

function subschemas(node: SchemaNode): unknown[] {
  const out: unknown[] = [];
  for (const keyword of SCHEMA_MAPS) {
    const value = Object.hasOwn(node, keyword) ? node[keyword] : undefined;
    if (isNode(value)) out.push(...Object.values(value));
  }
  for (const keyword of SCHEMA_LISTS_AND_VALUES) {
    const value = Object.hasOwn(node, keyword) ? node[keyword] : undefined;
    if (Array.isArray(value)) out.push(...(value as unknown[]));
    else if (value !== undefined) out.push(value);
  }
  return out;
}

/** A local `$ref` (`#` or `#/a/b`, URI-escaped, `~0`/`~1` escaped) resolved against the root by own properties only. */
function resolvePointer(root: SchemaNode, ref: unknown): { ok: true; value: unknown } | { ok: false; reason: string } {
  const shown = JSON.stringify(String(ref).slice(0, 200));
  if (typeof ref !== 'string' || !(ref === '#' || ref.startsWith('#/'))) {
    return { ok: false, reason: `"$ref" ${shown} is not supported: only local references ("#" or "#/…") are` };
  }
  let value: unknown = root;
  for (const raw of ref === '#' ? [] : ref.slice(2).split('/')) {
    let segment: string;
    try {
      segment = decodeURIComponent(raw).replace(/~1/g, '/').replace(/~0/g, '~');
    } catch {
      return { ok: false, reason: `"$ref" ${shown} is not a valid JSON pointer` };
    }
    if (typeof value !== 'object' || value === null || !Object.hasOwn(value, segment)) return { ok: false, reason: `"$ref" ${shown} points at nothing in the schema` };
    value = (value as Record<string, unknown>)[segment];
  }
  if (typeof value !== 'boolean' && !isNode(value)) return { ok: false, reason: `"$ref" ${shown} does not point at a schema` };
  return { ok: true, value };
}

function isNode(value: unknown): value is SchemaNode {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function invalid(reason: string): ShapeCheck & { ok: false } {
  return { ok: false, code: ErrorCode.InvalidSchema, reason };
}

function limit(reason: string): ShapeCheck & { ok: false } {
  return { ok: false, code: ErrorCode.LimitExceeded, reason };
}
