/**
 * How the project builds ajv (JSON Schema 2020-12) for tools' parameter schemas: the one place its
 * options, the linear regular-expression engine and the linear `uniqueItems` are chosen.
 *
 * Three modes, on purpose:
 * - `strict`, the extension's registry. The arguments come from a backend (maybe a hostile one) and
 *   go to a tool that acts on the user's machine, so anything the schema does not allow is refused:
 *   nothing is coerced, defaulted or stripped, and an unknown keyword in a schema (a typo) fails
 *   its compile instead of silently accepting anything.
 * - `coercing`, the backend's checks of a model's arguments. Models write `"3"` for 3, `"true"` for
 *   true and a lone value for a one-element array; refusing those would fail calls the user meant,
 *   so they are coerced (and defaults filled) before the arguments are sent, and the client's strict
 *   check then sees clean values. Schemas here come from clients, so unknown keywords are tolerated.
 *
 * - `lenient`, data a peer checks against its own schema (an MCP server's tool results against its
 *   `outputSchema`): unknown keywords tolerated, nothing coerced or defaulted.
 *
 * Every mode runs `pattern` on RE2 (never exponential backtracking) and read only own properties (an
 * optional property named `toString` is absent unless the arguments have it). Neither validates
 * `format`: no format plugin is bundled, and tools check their own inputs.
 */
import Ajv2020 from 'ajv/dist/2020';
import type { RegExpEngine } from 'ajv/dist/types';
import { linearRegExp } from './linearRegExp';
import { maxLengthKeyword, minLengthKeyword } from './stringLength';
import { uniqueItemsKeyword } from './uniqueItems';

export type SchemaMode = 'strict' | 'coercing' | 'lenient';

export const META_SCHEMA_2020 = 'https://json-schema.org/draft/2020-12/schema';

/** The extension's options. Exported for the test that compiles every built-in schema with them. */
export const STRICT_SCHEMA_OPTIONS = {
  validateSchema: false,
  strict: true,
  strictTypes: false,
  strictTuples: false,
  allErrors: false,
  coerceTypes: false,
  useDefaults: false,
  removeAdditional: false,
  validateFormats: false,
  logger: false,
  ownProperties: true,
  // A backend's arguments meet other extensions' patterns here: RE2, never exponential backtracking.
  code: { regExp: linearRegExp },
} as const;

const COERCING_SCHEMA_OPTIONS = {
  coerceTypes: 'array',
  useDefaults: true,
  // With allErrors off ajv nests the code of each keyword inside the one before: 2,000 properties
  // took 12 s to compile and the generated function overflowed V8's stack when called. With it on the
  // code is flat and linear (1.4 s); a failed call reports the first error all the same.
  allErrors: true,
  strict: false,
  validateFormats: false,
  logger: false,
  // Checked against the meta-schema once, at registration, by the caller (see metaSchemaValidator).
  meta: false,
  validateSchema: false,
  // A schema's `$id` is not registered anywhere: two tools (or sessions) may use the same one.
  addUsedSchema: false,
  ownProperties: true,
} as const;

/**
 * A new ajv in `mode`.
 * @param regExp the pattern engine; the backend passes a registration's cache of RE2 patterns it
 *   compiled under a budget, so ajv reuses them. Anything given must be linear-time.
 */
export function createAjv(mode: SchemaMode, regExp: RegExpEngine = linearRegExp): Ajv2020 {
  if (mode === 'strict') return withStringLengths(new Ajv2020({ ...STRICT_SCHEMA_OPTIONS, code: { regExp } }));
  const options = mode === 'coercing' ? COERCING_SCHEMA_OPTIONS : { ...COERCING_SCHEMA_OPTIONS, coerceTypes: false, useDefaults: false };
  const ajv = withStringLengths(new Ajv2020({ ...options, code: { regExp } }));
  // ajv's own uniqueItems compares every pair of items when they are not all scalars; this one is
  // linear. The strict mode still has ajv's (the built-in schemas use it on strings only).
  ajv.removeKeyword('uniqueItems');
  ajv.addKeyword(uniqueItemsKeyword);
  return ajv;
}

/** ajv's maxLength and minLength replaced by ones that count code points only when length cannot decide (stringLength.ts). */
function withStringLengths(ajv: Ajv2020): Ajv2020 {
  ajv.removeKeyword('maxLength');
  ajv.removeKeyword('minLength');
  ajv.addKeyword(maxLengthKeyword);
  ajv.addKeyword(minLengthKeyword);
  return ajv;
}

let metaValidator: Ajv2020 | undefined;

/** The 2020-12 meta-schema check for schemas from a peer, shared: it keeps nothing of the schemas it checks. */
export function metaSchemaValidator(): Ajv2020 {
  return (metaValidator ??= new Ajv2020({ strict: false, logger: false, validateFormats: false, code: { regExp: linearRegExp } }));
}
