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
/** A string, or null where the result says "none" (a detached HEAD's branch, a killed process's exit code). */
export const STRING_OR_NULL = { type: ['string', 'null'] } as const;

/** An array of these items. */
export function arrayOf(items: unknown): JsonSchema {
  return { type: 'array', items };
}

export const STRINGS = arrayOf(STRING);
export const INTEGERS = arrayOf(INTEGER);

/** An object with these properties, the `required` ones always present. */
export function objectOutput(properties: Record<string, unknown>, required: readonly string[] = []): JsonSchema {
  return { type: 'object', properties, ...(required.length ? { required: [...required] } : {}) };
}

/** One-based line and column range, as the tools report positions. */
export const RANGE_OUTPUT = objectOutput({ startLine: INTEGER, startColumn: INTEGER, endLine: INTEGER, endColumn: INTEGER }, ['startLine', 'startColumn', 'endLine', 'endColumn']);

/** A reviewed change's hunks, as OpenDiff and the multi-file review report them (src/core/hunkReview.ts). */
export const REVIEWED_HUNKS_OUTPUT = {
  hunks: arrayOf(objectOutput({ hunk: INTEGER, lines: STRING, decision: { enum: ['kept', 'rejected', 'edited'] } }, ['hunk', 'lines', 'decision'])),
  keptHunks: INTEGERS,
  rejectedHunks: INTEGERS,
};

/** How a review ended: every hunk accepted, some of them, or none. */
export const REVIEW_DECISION = { enum: ['accepted', 'partial', 'rejected'] } as const;
