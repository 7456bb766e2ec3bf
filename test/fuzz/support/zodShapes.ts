/**
 * Shapes (shape.ts) of zod schemas: the protocol's messages per direction and the MCP SDK's,
 * through zod's own JSON Schema output, so a field or message added to a schema is fuzzed without
 * a change here.
 */
import { z } from 'zod';
import { shapeOf, type JsonSchema, type Shape } from './shape';

export function zodShape(schema: z.ZodType): Shape {
  const json = z.toJSONSchema(schema, { unrepresentable: 'any', io: 'input', reused: 'inline', cycles: 'ref' }) as JsonSchema;
  return shapeOf(json);
}

/** The `type` of each message schema of a direction's record, with its shape. */
export function messageShapes(byName: Record<string, z.ZodType>): { type: string; shape: Shape }[] {
  return Object.values(byName).map((schema) => {
    const shape = zodShape(schema);
    const type = (shape.sample as { type?: unknown }).type;
    return { type: typeof type === 'string' ? type : '?', shape };
  });
}
