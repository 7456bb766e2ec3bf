/**
 * Pieces of the output schemas the built-in tools declare (`outputSchema`: the JSON object a
 * successful call's result holds), so the MCP server can give clients `outputSchema` and
 * `structuredContent` that match. Objects stay open (no `additionalProperties: false`): a field
 * added to a result later does not break a client that checks the schema.
 */
import type { JsonSchema } from '../../core/tool';

export const STRING = { type: 'string' } as const;
export const INTEGER = { type: 'integer' } as const;
export const BOOLEAN = { type: 'boolean' } as const;

/** An object with these properties, the `required` ones always present. */
export function objectOutput(properties: Record<string, unknown>, required: readonly string[] = []): JsonSchema {
  return { type: 'object', properties, ...(required.length ? { required: [...required] } : {}) };
}

/** One-based line and column range, as the tools report positions. */
export const RANGE_OUTPUT = objectOutput({ startLine: INTEGER, startColumn: INTEGER, endLine: INTEGER, endColumn: INTEGER }, ['startLine', 'startColumn', 'endLine', 'endColumn']);
