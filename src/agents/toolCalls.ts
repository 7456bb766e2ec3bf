/**
 * The tool calls an agent announced in one session, as it described them: `tool_call` and
 * `tool_call_update` merged field by field (a permission request's own description is merged the
 * same way), each field clipped, the table capped. The chat's cards and the permission prompt both
 * read from here, so they show the same thing.
 */
import type * as acp from '@agentclientprotocol/sdk';
import type { AgentToolCall, AgentToolContent } from './agentCallbacks';

export const TOOL_CALL_LIMITS = {
  /** Tool calls kept per session; past it the oldest ended one is forgotten, and with none ended a new call is not tracked (no card). */
  maxCalls: 500,
  /** Characters of a call's id; a call with a longer one is not tracked (no card): the table keys on ids, and 500 ids of 8 MiB were 4 GiB kept. */
  maxIdChars: 200,
  maxTitleChars: 200,
  /** Characters of one text, or one side of a diff, kept. */
  maxTextChars: 256 * 1024,
  maxContentItems: 50,
  maxLocations: 50,
  /** Characters of the raw input's JSON kept; a larger input is replaced by a note. */
  maxRawInputChars: 64 * 1024,
} as const;

export type ToolCallStatus = 'pending' | 'in_progress' | 'completed' | 'failed';

export interface TrackedToolCall extends AgentToolCall {
  status: ToolCallStatus;
  /** When the call was first seen (ms, the table's clock). */
  startedAt: number;
}

type Described = Pick<acp.ToolCallUpdate, 'toolCallId' | 'title' | 'kind' | 'status' | 'content' | 'locations' | 'rawInput'>;

export class ToolCallTable {
  private readonly calls = new Map<string, TrackedToolCall>();
  /** Calls refused because the table was full; counted for the notice. */
  dropped = 0;

  constructor(private readonly now: () => number = Date.now) {}

  get size(): number {
    return this.calls.size;
  }

  get(toolCallId: string): TrackedToolCall | undefined {
    return this.calls.get(toolCallId);
  }

  /**
   * Merges what the agent said about a call. Returns the call and whether it is new, or undefined
   * when it is new and the table is full, or its id is over the limit.
   */
  merge(update: Described): { call: TrackedToolCall; isNew: boolean } | undefined {
    const id = update.toolCallId;
    if (id.length > TOOL_CALL_LIMITS.maxIdChars) return undefined;
    const existing = this.calls.get(id);
    if (!existing && this.calls.size >= TOOL_CALL_LIMITS.maxCalls && !this.evictOneEnded()) {
      this.dropped++;
      return undefined;
    }
    const base: TrackedToolCall = existing ?? { toolCallId: id, title: '', kind: 'other', content: [], locations: [], status: 'pending', startedAt: this.now() };
    const next: TrackedToolCall = { ...base };
    if (typeof update.title === 'string' && update.title.trim() !== '') next.title = oneLine(update.title, TOOL_CALL_LIMITS.maxTitleChars);
    if (typeof update.kind === 'string') next.kind = update.kind;
    if (update.status) next.status = update.status;
    if (Array.isArray(update.content) && update.content.length > 0) next.content = update.content.slice(0, TOOL_CALL_LIMITS.maxContentItems).map(toContent);
    if (Array.isArray(update.locations) && update.locations.length > 0) next.locations = update.locations.slice(0, TOOL_CALL_LIMITS.maxLocations).map((l) => clip(l.path, 4096));
    const raw = clippedRawInput(update.rawInput);
    if (raw !== undefined) next.rawInput = isObject(next.rawInput) && isObject(raw) ? { ...next.rawInput, ...raw } : raw;
    if (next.title === '') next.title = id.slice(0, TOOL_CALL_LIMITS.maxTitleChars);
    this.calls.set(id, next);
    return { call: next, isNew: !existing };
  }

  /** Makes room by forgetting the oldest call that ended; false when every call is still open. */
  private evictOneEnded(): boolean {
    for (const [id, call] of this.calls) {
      if (call.status === 'completed' || call.status === 'failed') {
        this.calls.delete(id);
        return true;
      }
    }
    return false;
  }

  clear(): void {
    this.calls.clear();
    this.dropped = 0;
  }
}

/** Whether a described call gives the user anything to judge beyond its title. */
export function describesItself(call: AgentToolCall): boolean {
  const raw = call.rawInput;
  const hasInput = raw !== undefined && raw !== null && !(isObject(raw) && Object.keys(raw).length === 0);
  return hasInput || call.content.length > 0 || call.locations.length > 0;
}

function toContent(item: acp.ToolCallContent): AgentToolContent {
  switch (item.type) {
    case 'diff':
      return { type: 'diff', path: clip(item.path, 4096), oldText: item.oldText == null ? null : clip(item.oldText, TOOL_CALL_LIMITS.maxTextChars), newText: clip(item.newText, TOOL_CALL_LIMITS.maxTextChars) };
    case 'terminal':
      return { type: 'terminal', terminalId: clip(item.terminalId, 200) };
    case 'content':
      return { type: 'text', text: clip(blockText(item.content), TOOL_CALL_LIMITS.maxTextChars) };
    default:
      return { type: 'text', text: '(content of a kind this client does not show)' };
  }
}

/** A content block as text: its text, or a line naming what it is. */
export function blockText(block: acp.ContentBlock): string {
  switch (block.type) {
    case 'text':
      return block.text;
    case 'image':
      return `[image ${block.mimeType}]`;
    case 'audio':
      return `[audio ${block.mimeType}]`;
    case 'resource_link':
      return `[${block.name}](${block.uri})`;
    case 'resource':
      return 'text' in block.resource ? block.resource.text : `[resource ${block.resource.uri}]`;
    default:
      return '';
  }
}

function clippedRawInput(raw: unknown): unknown {
  if (raw === undefined || raw === null) return undefined;
  if (isObject(raw) && Object.keys(raw).length === 0) return undefined;
  let text: string;
  try {
    text = JSON.stringify(raw);
  } catch {
    return { note: 'the input could not be shown' };
  }
  if (text.length > TOOL_CALL_LIMITS.maxRawInputChars) return { note: `the input is ${text.length} characters of JSON; too long to show` };
  return raw;
}

function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

export function clip(text: string, max: number): string {
  return text.length <= max ? text : `${text.slice(0, max - 1)}…`;
}

export function oneLine(text: string, max: number): string {
  return clip(text.replace(/\s+/g, ' ').trim(), max);
}
