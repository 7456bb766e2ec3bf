/**
 * JSON Schema checks for tool parameters, done by ajv. A client's schema is checked when its tool is
 * registered (an unusable one is refused there, naming the tool; see schemaShape.ts for the limits)
 * and compiled at the tool's first call; every call's arguments are validated against it with the
 * coercions models commonly need ("3" → 3, "true" → true, a lone value → a one-element array).
 *
 * Compiled schemas belong to the session whose message brought them: each registration (a `hello`,
 * or one augmentation's injected groups) gets its own `SchemaCompiler`, that is its own ajv
 * instance, reachable only from the schema objects it compiled (a WeakMap keyed by them). When the
 * session drops its tool definitions (it ended, or a group was replaced), the compiled code goes with
 * them; nothing is cached per process, and a `$id` in one session's schema means nothing to another.
 *
 * ajv itself is built by src/base/jsonSchema.ts in its `coercing` mode (why the backend coerces and
 * the extension does not is written there).
 */
import type Ajv2020 from 'ajv/dist/2020';
import type { ErrorObject, ValidateFunction } from 'ajv';
import { createAjv, META_SCHEMA_2020, metaSchemaValidator } from '../../base/jsonSchema';
import { ErrorCode } from '../../protocol';
import { PatternCache } from './schemaPatterns';
import { checkShape } from './schemaShape';

/**
 * The ajv instance of one registration, made at its first compile. Schemas in it are
 * compiled one at a time, at their tool's first call, so a `hello` with a thousand tools does not
 * stall the thread that serves every other session.
 */
export class SchemaCompiler {
  /** The registration's patterns, compiled with RE2 when checked and reused by ajv. */
  readonly patterns = new PatternCache();
  private ajv: Ajv2020 | undefined;

  compile(schema: object): ValidateFunction {
    this.ajv ??= createAjv('coercing', this.patterns.engine);
    return this.ajv.compile(schema);
  }
}

export type SchemaCheck = { ok: true; bytes: number } | { ok: false; code: ErrorCode; reason: string };
export type CompiledSchema = { ok: true; validate: ValidateFunction } | { ok: false; reason: string };

interface Entry {
  check: SchemaCheck;
  compiler: SchemaCompiler;
  compiled?: CompiledSchema;
}

/** Per schema object: tool definitions are not changed after registration, so an object seen again is the same schema. */
const entries = new WeakMap<object, Entry>();

/**
 * Whether a tool's parameter schema can be registered: an object schema, within the limits, valid
 * against the 2020-12 meta-schema, with patterns RE2 can run. Linear in the schema's size.
 * @param compiler the registration's compiler, used at the tool's first call
 */
export function checkParameters(schema: unknown, compiler: SchemaCompiler = new SchemaCompiler()): SchemaCheck {
  if (typeof schema !== 'object' || schema === null || Array.isArray(schema)) {
    return { ok: false, code: ErrorCode.InvalidSchema, reason: 'parameters must be a JSON Schema object' };
  }
  let entry = entries.get(schema);
  if (!entry) {
    entry = { check: checkNew(schema, compiler), compiler };
    entries.set(schema, entry);
  }
  return entry.check;
}

function checkNew(schema: object, compiler: SchemaCompiler): SchemaCheck {
  const type = (schema as { type?: unknown }).type;
  if (type !== undefined && type !== 'object') {
    return { ok: false, code: ErrorCode.InvalidSchema, reason: `parameters must describe an object (type "object"), not ${JSON.stringify(type)}` };
  }
  // Shape first: the meta-schema check and ajv recurse, and must only see bounded schemas.
  const shape = checkShape(schema, compiler.patterns);
  if (!shape.ok) return shape;
  const meta = metaSchemaValidator();
  if (!meta.validate(META_SCHEMA_2020, schema)) {
    return { ok: false, code: ErrorCode.InvalidSchema, reason: describeErrors(meta.errors, 'schema') };
  }
  return shape;
}

/** The validator for a schema, compiled at its first use (checked first if it was never registered). */
export function compileParameters(schema: unknown): CompiledSchema {
  const check = checkParameters(schema);
  if (!check.ok) return { ok: false, reason: check.reason };
  const entry = entries.get(schema as object)!;
  if (!entry.compiled) {
    try {
      entry.compiled = { ok: true, validate: entry.compiler.compile(schema as object) };
    } catch (e) {
      entry.compiled = { ok: false, reason: (e as Error).message };
    }
  }
  return entry.compiled;
}

export type ArgumentCheck = { ok: true; value: Record<string, unknown> } | { ok: false; reason: string };

/**
 * Validates (and coerces) arguments against a compiled schema. The input is not mutated: ajv coerces
 * in place, so it works on a copy.
 */
export function checkArguments(validate: ValidateFunction, args: Record<string, unknown>): ArgumentCheck {
  try {
    const copy = structuredClone(args);
    if (validate(copy)) return { ok: true, value: copy };
  } catch (e) {
    // Copying and deep comparisons recurse into the arguments: thousands of nested arrays overflow.
    if (e instanceof RangeError) return { ok: false, reason: 'they are nested too deeply' };
    throw e;
  }
  return { ok: false, reason: describeErrors(validate.errors, 'arguments') };
}

/** One readable sentence naming the offending field, e.g. `"line" must be integer`. */
export function describeErrors(errors: ErrorObject[] | null | undefined, what: string): string {
  const e = errors?.[0];
  if (!e) return `invalid ${what}`;
  const field = fieldOf(e);
  const where = field ? `"${field}"` : what;
  switch (e.keyword) {
    case 'required':
      return `${field ? `"${field}"` : 'a required field'} is required`;
    case 'additionalProperties':
      return `"${field}" is not an allowed field`;
    case 'enum':
      return `${where} must be one of ${JSON.stringify((e.params as { allowedValues?: unknown }).allowedValues)}`;
    default:
      return `${where} ${e.message ?? 'is invalid'}`;
  }
}

function fieldOf(e: ErrorObject): string {
  const segments = e.instancePath.split('/').slice(1).map((s) => s.replace(/~1/g, '/').replace(/~0/g, '~'));
  const params = e.params as { missingProperty?: string; additionalProperty?: string };
  if (e.keyword === 'required' && params.missingProperty) segments.push(params.missingProperty);
  if (e.keyword === 'additionalProperties' && params.additionalProperty) segments.push(params.additionalProperty);
  return segments.join('.');
}
