/**
 * JSON Schema checks for tool parameters, done by ajv: a schema is compiled once when a tool is
 * registered (an invalid one is refused there, naming the tool), and every call's arguments are
 * validated against it with the coercions models commonly need ("3" → 3, "true" → true, a lone
 * value → a one-element array).
 */
import Ajv2020 from 'ajv/dist/2020';
import type { ErrorObject, ValidateFunction } from 'ajv';

const ajv = new Ajv2020({
  coerceTypes: 'array',
  useDefaults: true,
  allErrors: false,
  strict: false,
  // Formats such as "uri" are descriptions for the model; the tool itself checks its inputs.
  validateFormats: false,
  logger: false,
});

/** Compiled validators by schema text: the same schema registered again (resume, reset) is not recompiled. */
const compiled = new Map<string, ValidateFunction>();
const MAX_CACHED = 2048;
/** The verdict per schema object, so a call does not serialise its tool's schema to find the validator. */
const bySchemaObject = new WeakMap<object, SchemaCheck>();

export type SchemaCheck = { ok: true; validate: ValidateFunction } | { ok: false; reason: string };

/** Compiles a tool's parameter schema, or says why it cannot be used. */
export function compileParameters(schema: unknown): SchemaCheck {
  if (typeof schema !== 'object' || schema === null || Array.isArray(schema)) {
    return { ok: false, reason: 'parameters must be a JSON Schema object' };
  }
  let check = bySchemaObject.get(schema);
  if (!check) {
    check = compileText(schema);
    // Tool definitions are not changed after registration; a schema object seen again is the same schema.
    bySchemaObject.set(schema, check);
  }
  return check;
}

function compileText(schema: object): SchemaCheck {
  const type = (schema as { type?: unknown }).type;
  if (type !== undefined && type !== 'object') {
    return { ok: false, reason: `parameters must describe an object (type "object"), not ${JSON.stringify(type)}` };
  }
  let key: string;
  try {
    key = JSON.stringify(schema);
  } catch {
    return { ok: false, reason: 'parameters cannot be serialised as JSON' };
  }
  const cached = compiled.get(key);
  if (cached) return { ok: true, validate: cached };
  if (!ajv.validateSchema(schema)) {
    return { ok: false, reason: describeErrors(ajv.errors, 'schema') };
  }
  try {
    const validate = ajv.compile(schema);
    if (compiled.size >= MAX_CACHED) compiled.clear();
    compiled.set(key, validate);
    return { ok: true, validate };
  } catch (e) {
    return { ok: false, reason: (e as Error).message };
  }
}

export type ArgumentCheck = { ok: true; value: Record<string, unknown> } | { ok: false; reason: string };

/**
 * Validates (and coerces) arguments against a compiled schema. The input is not mutated: ajv coerces
 * in place, so it works on a copy.
 */
export function checkArguments(validate: ValidateFunction, args: Record<string, unknown>): ArgumentCheck {
  const copy = structuredClone(args);
  if (validate(copy)) return { ok: true, value: copy };
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
