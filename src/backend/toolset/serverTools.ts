/**
 * Server-side tools (run inside the backend process) and the hooks around every tool call. The
 * built-in set is deliberately small; an embedding agent adds its own with `registerTool`.
 */
import type { Augmentation, ContentItem, Executor, ToolCallOutcome } from '../../protocol';

export interface ServerToolContext {
  callId: string;
  threadId: string;
  runId: string;
  /** Aborts when the run is cancelled. */
  signal: AbortSignal;
  /** Reports progress; the client sees it as `toolCallUpdated`. */
  progress(details: string): void;
}

/** What a server tool may return: text, content items, or content flagged as an error. */
export type ServerToolReturn = string | ContentItem[] | { content: ContentItem[]; isError?: boolean };

export interface ServerTool {
  /** Must match ^[A-Za-z0-9_-]{1,64}$. */
  name: string;
  description: string;
  /** JSON Schema of an object; arguments are validated (with coercion) before `execute`. */
  parameters: Record<string, unknown>;
  /** Never overlaps with other calls of the same batch. */
  sequential?: boolean;
  /** Throwing is fine: it becomes an error result and the run goes on. */
  execute(args: Record<string, unknown>, context: ServerToolContext): ServerToolReturn | Promise<ServerToolReturn>;
}

/** The outcome of one tool call as the hooks, the client and the model see it. */
export interface ToolCallResult {
  outcome: ToolCallOutcome;
  content: ContentItem[];
  errorMessage?: string;
  /** Error code (ErrorCode or the client's own) when the call did not succeed. */
  errorCode?: string;
  /** Changes the client asked for in its response; applied before the next model call. */
  augmentation?: Augmentation;
}

export interface ToolCallInfo {
  callId: string;
  toolName: string;
  arguments: Record<string, unknown>;
  executor: Executor;
  group?: string;
  threadId: string;
  runId: string;
}

/** Returning `{ block: true, reason }` stops the call (the model reads the reason); `{ arguments }` replaces them. */
export type BeforeToolCallDecision = { block: true; reason: string } | { arguments: Record<string, unknown> } | undefined | void;
export type BeforeToolCallHook = (call: ToolCallInfo) => BeforeToolCallDecision | Promise<BeforeToolCallDecision>;
/** Returning a result replaces the call's result; returning nothing keeps it. */
export type AfterToolCallHook = (call: ToolCallInfo, result: ToolCallResult) => ToolCallResult | undefined | void | Promise<ToolCallResult | undefined | void>;

/** The hooks in force, in the order they run. */
export interface HookLists {
  readonly beforeToolCall: readonly BeforeToolCallHook[];
  readonly afterToolCall: readonly AfterToolCallHook[];
}

export const getCurrentTime: ServerTool = {
  name: 'get_current_time',
  description: 'Returns the current date and time, in UTC and in a given IANA time zone (default: the backend\'s own).',
  parameters: {
    type: 'object',
    properties: { timeZone: { type: 'string', description: 'IANA time zone such as "Europe/Berlin"' } },
    additionalProperties: false,
  },
  execute(args) {
    const now = new Date();
    const timeZone = typeof args.timeZone === 'string' ? args.timeZone : Intl.DateTimeFormat().resolvedOptions().timeZone;
    let local: string;
    try {
      local = new Intl.DateTimeFormat('en-GB', { timeZone, dateStyle: 'full', timeStyle: 'long' }).format(now);
    } catch {
      throw new Error(`unknown time zone "${timeZone}"`);
    }
    return [{ type: 'json', value: { utc: now.toISOString(), timeZone, local } }];
  },
};

export const BUILTIN_TOOLS: readonly ServerTool[] = [getCurrentTime];

/** Normalises what a server tool returned. */
export function toToolCallResult(value: ServerToolReturn): ToolCallResult {
  if (typeof value === 'string') return { outcome: 'succeeded', content: [{ type: 'text', text: value }] };
  if (Array.isArray(value)) return { outcome: 'succeeded', content: value };
  if (value.isError) return { outcome: 'failed', content: value.content, errorCode: 'TOOL_FAILED', errorMessage: firstText(value.content) ?? 'the tool reported an error' };
  return { outcome: 'succeeded', content: value.content };
}

function firstText(content: ContentItem[]): string | undefined {
  const t = content.find((c) => c.type === 'text');
  return t?.type === 'text' ? t.text.slice(0, 10_000) : undefined;
}
