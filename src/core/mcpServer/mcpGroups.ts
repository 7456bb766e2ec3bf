/**
 * What one MCP session lists: every tool flat (any client), or the groups collapsed: one container
 * tool per group, named as the backend protocol names containers (`toFunctionName` of the group's
 * name), whose call expands the group for this session only; the server then sends the session
 * `notifications/tools/list_changed` and the group's tools are listed from then on. Collapsed is for
 * clients that re-list on that notification (docs/AGENTS.md says which agents do). Listing is a
 * matter of tokens, not of permission: a tool of a collapsed group can still be called by name,
 * through the same gate.
 */
import type { Tool } from '@modelcontextprotocol/sdk/types.js';
import { toFunctionName } from '../../protocol/functionNames';
import type { GroupSnapshot, ToolRegistry } from '../registry';
import { groupMcpTools } from './mcpTools';

export type McpListingMode = 'flat' | 'collapsed';

const CONTAINER_SCHEMA: Tool['inputSchema'] = { type: 'object', properties: {} };

/** How long a container's answer waits for the client to list the tools again. */
export const RELIST_WAIT_MS = 2_000;

/**
 * How long it then waits for the client to take the new list in: the agents that re-list (Gemini
 * CLI, opencode, Claude Code) update their model's tools asynchronously after the listing's answer,
 * and Gemini CLI missed the new tools in its next model request when answered 50 ms later.
 */
export const RELIST_SETTLE_MS = 500;

export class McpToolListing {
  private readonly expanded = new Set<string>();
  private relistWaiters: (() => void)[] = [];

  constructor(private readonly registry: ToolRegistry, readonly mode: McpListingMode) {}

  /** The tools this session sees now (the client listed them: a waiting container answer goes out). */
  list(): Tool[] {
    for (const wake of this.relistWaiters.splice(0)) wake();
    const snapshot = this.registry.snapshot();
    if (this.mode === 'flat') return snapshot.flatMap((g) => groupMcpTools(this.registry, g));
    const out: Tool[] = [];
    for (const group of snapshot) {
      const tools = groupMcpTools(this.registry, group);
      if (tools.length === 0) continue;
      // The registry keeps a container's name from being any tool's (registry.ts, claimNames).
      if (this.expanded.has(group.name)) out.push(...tools);
      else out.push(containerTool(group, toFunctionName(group.name), tools));
    }
    return out;
  }

  /**
   * Resolves true once the client has listed the tools again and had `settleMs` to take the list in,
   * false after `waitMs` without a listing or when `signal` aborts. A container's answer waits for
   * it, so that a client that re-lists on `list_changed` while the call is still open offers the
   * group's tools in its very next model request.
   */
  relisted(signal: AbortSignal, waitMs = RELIST_WAIT_MS, settleMs = RELIST_SETTLE_MS): Promise<boolean> {
    return new Promise((resolve) => {
      let settle: NodeJS.Timeout | undefined;
      const done = (listed: boolean) => {
        clearTimeout(wait);
        clearTimeout(settle);
        signal.removeEventListener('abort', aborted);
        this.relistWaiters = this.relistWaiters.filter((w) => w !== wake);
        resolve(listed);
      };
      const aborted = () => done(false);
      const wait = setTimeout(() => done(false), waitMs);
      const wake = () => {
        clearTimeout(wait);
        settle = setTimeout(() => done(true), settleMs);
      };
      this.relistWaiters.push(wake);
      if (signal.aborted) aborted();
      else signal.addEventListener('abort', aborted, { once: true });
    });
  }

  /**
   * A call of `name`: when it is the container of a collapsed group, expands it and returns the
   * tool result's text; undefined for anything else (a tool, to be called as usual).
   */
  expand(name: string): string | undefined {
    if (this.mode === 'flat') return undefined;
    const snapshot = this.registry.snapshot();
    if (snapshot.some((g) => g.tools.some((t) => t.name === name))) return undefined;
    const group = snapshot.find((g) => toFunctionName(g.name) === name);
    if (!group) return undefined;
    const tools = groupMcpTools(this.registry, group).map((t) => t.name);
    const already = this.expanded.has(group.name);
    this.expanded.add(group.name);
    return `${group.name} ${already ? 'is already expanded' : 'expanded'}. Available tools: ${tools.join(', ') || 'none'}.`;
  }
}

function containerTool(group: GroupSnapshot, name: string, tools: readonly Tool[]): Tool {
  return {
    name,
    description: `${group.description} Call this (no arguments) to make its tools available: ${tools.map((t) => t.name).join(', ')}.`,
    inputSchema: CONTAINER_SCHEMA,
    annotations: { title: `${group.name} (collapsed group)`, readOnlyHint: true, openWorldHint: false },
  };
}
