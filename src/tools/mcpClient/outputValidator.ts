/**
 * How the SDK client checks a user's MCP server's tool results against the server's own
 * `outputSchema`. The SDK's default validator runs the schema's `pattern`s on JavaScript's
 * backtracking engine in the extension host: a server could send `^(a+)+$` and a result that takes
 * minutes to match. Here patterns run on RE2 (src/base/jsonSchema.ts, lenient mode), a schema over
 * 64 KiB is not compiled, and a schema that does not compile checks nothing (the result is passed
 * on as the server's word; the editor's MCP server then declares no output schema for that tool).
 */
import type Ajv2020 from 'ajv/dist/2020';
import type { JsonSchemaType, JsonSchemaValidator, jsonSchemaValidator } from '@modelcontextprotocol/sdk/validation/types.js';
import { createAjv } from '../../base/jsonSchema';

export const MAX_OUTPUT_SCHEMA_BYTES = 64 * 1024;
/** Compiled schemas kept (by their JSON); past this the cache and its ajv start afresh, so re-lists cannot grow memory. */
const MAX_CACHED_SCHEMAS = 1024;

type Check = (input: unknown) => string | undefined;

export class LinearOutputValidator implements jsonSchemaValidator {
  private ajv: Ajv2020 | undefined;
  private readonly cache = new Map<string, Check>();

  getValidator<T>(schema: JsonSchemaType): JsonSchemaValidator<T> {
    const check = this.checkFor(schema);
    return (input) => {
      const problem = check(input);
      return problem === undefined ? { valid: true, data: input as T, errorMessage: undefined } : { valid: false, data: undefined, errorMessage: problem };
    };
  }

  private checkFor(schema: JsonSchemaType): Check {
    const pass: Check = () => undefined;
    let text: string;
    try {
      text = JSON.stringify(schema);
    } catch {
      return pass;
    }
    if (text.length > MAX_OUTPUT_SCHEMA_BYTES) return pass;
    const cached = this.cache.get(text);
    if (cached) return cached;
    if (this.cache.size >= MAX_CACHED_SCHEMAS) {
      this.cache.clear();
      this.ajv = undefined;
    }
    let check: Check = pass;
    try {
      const ajv = (this.ajv ??= createAjv('lenient'));
      // Compiled from a copy without `$id`: a server's ids must not clash with each other here.
      const { $id: _id, ...rest } = JSON.parse(text) as Record<string, unknown>;
      const validate = ajv.compile(rest);
      check = (input) => (validate(input) ? undefined : ajv.errorsText(validate.errors));
    } catch {
      // Not a schema this can check: the result is passed on unchecked.
    }
    this.cache.set(text, check);
    return check;
  }
}
