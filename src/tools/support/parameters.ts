/** JSON Schema pieces the built-in tools' parameters share, so the same argument has the same limits everywhere. */
import type { JsonSchema } from '../../core/tool';

/** A workspace-relative path argument (an absolute path inside the workspace works too). */
export function pathParameter(description: string): JsonSchema {
  return { type: 'string', minLength: 1, maxLength: 4096, description };
}

/** The parameters of a tool whose only argument is one file's path. */
export function pathOnlyParameters(description: string): JsonSchema {
  return { type: 'object', properties: { path: pathParameter(description) }, required: ['path'], additionalProperties: false };
}

/** The parameters of a tool that takes no arguments. */
export const NO_PARAMETERS: JsonSchema = { type: 'object', properties: {}, additionalProperties: false };

/** A one-based line or column. */
export const POSITION: JsonSchema = { type: 'integer', minimum: 1, maximum: 10_000_000 };
