/**
 * A name as a model function name: every character outside `[A-Za-z0-9_-]` becomes `_`, at most 64
 * characters (a group "MCP: everything" has the container `MCP__everything`). One home for the rule,
 * since the backend names containers with it, the extension names bridged tools with it, and the
 * chat matches an expansion's card to its group with it.
 */
export function toFunctionName(name: string): string {
  return name.replace(/[^A-Za-z0-9_-]/g, '_').slice(0, 64);
}
