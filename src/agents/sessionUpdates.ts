/**
 * An agent's `session/update` notifications as the chat's run events: message chunks become text,
 * each tool call a card of the agent's (its title, raw input, status, and at the end its content:
 * text, a proposed diff as a unified diff, a terminal's output), thought chunks a "Thinking" card,
 * the plan a "Plan" card kept up to date, notices and compaction a card each. Modes, available
 * commands, context usage and the session's title are the agent's status, not the transcript.
 * Outside a turn (a `session/load` replaying history, or a late update) nothing reaches the chat.
 */
import type * as acp from '@agentclientprotocol/sdk';
import type { ContentItem } from '../protocol';
import { splitLines, unifiedDiff } from '../core/lineDiff';
import type { AgentToolContent } from './agentCallbacks';
import { blockText, clip, oneLine, ToolCallTable, TOOL_CALL_LIMITS, type TrackedToolCall } from './toolCalls';
import type { TurnEvents } from './turnEvents';

/** What the agent says about itself outside the transcript. */
export interface AgentStatusChange {
  modes?: { current: string; available: { id: string; name: string }[] };
  currentMode?: string;
  commands?: { name: string; description: string }[];
  context?: { used: number; size: number; cost?: { amount: number; currency: string } };
  title?: string;
}

/** Cards of tool calls one run shows; later calls still run and are answered, without a card. */
export const MAX_CARDS_PER_RUN = 300;
const MAX_PLAN_ENTRIES = 100;
const MAX_COMMANDS = 100;
const MAX_THOUGHT_CHARS = 100_000;
const MAX_DIFF_CHARS = 20_000;

export interface SessionUpdatesOptions {
  threadId: string;
  /** The agent's name: the group of every card of its own. */
  agent: string;
  table: ToolCallTable;
  events: TurnEvents;
  onStatus: (change: AgentStatusChange) => void;
  /** A terminal's output by id (the callbacks'), for a tool call whose content is a terminal. */
  terminalOutput?: (terminalId: string) => string | undefined;
  now?: () => number;
}

export class SessionUpdates {
  private runId: string | undefined;
  private thought: { callId: string; text: string; startedAt: number } | undefined;
  private serial = 0;
  /** Cards shown in this run, by tool call id (a call over the table's cap has none). */
  private readonly shown = new Set<string>();
  private planShown = false;
  private readonly announcements: { title: string; text: string }[] = [];
  /** Tool calls of this run past MAX_CARDS_PER_RUN, not shown. */
  private unshown = 0;
  private readonly now: () => number;

  constructor(private readonly options: SessionUpdatesOptions) {
    this.now = options.now ?? Date.now;
  }

  get activeRunId(): string | undefined {
    return this.runId;
  }

  beginRun(runId: string): void {
    this.runId = runId;
    this.shown.clear();
    this.planShown = false;
    this.unshown = 0;
    this.options.table.dropped = 0;
    for (const a of this.announcements.splice(0)) this.note(runId, a.title, a.text, 'succeeded');
  }

  /** A card for the start of the next run. */
  announce(title: string, text: string, maxChars = 2_000): void {
    this.announcements.push({ title: oneLine(title, 150), text: clip(text, maxChars) });
  }

  /** A card in the run in progress, now (nothing when no run is). */
  noteInRun(title: string, text: string): void {
    if (this.runId !== undefined) this.note(this.runId, oneLine(title, 150), text, 'succeeded');
  }

  /** Ends the run's open thought and says how many calls had no card; the caller then sends runFinished. */
  endRun(): void {
    this.closeThought();
    const runId = this.runId;
    if (runId !== undefined && this.unshown > 0) this.note(runId, `${this.unshown} more tool calls not shown`, `This run made more than ${MAX_CARDS_PER_RUN} tool calls; the chat shows the first ${MAX_CARDS_PER_RUN}.`, 'succeeded');
    this.runId = undefined;
  }

  onUpdate(update: acp.SessionUpdate): void {
    const runId = this.runId;
    switch (update.sessionUpdate) {
      case 'available_commands_update':
        this.options.onStatus({ commands: update.availableCommands.slice(0, MAX_COMMANDS).map((c) => ({ name: oneLine(c.name, 100), description: oneLine(c.description, 300) })) });
        return;
      case 'current_mode_update':
        this.options.onStatus({ currentMode: oneLine(update.currentModeId, 100) });
        return;
      case 'usage_update':
        this.options.onStatus({ context: { used: update.used, size: update.size, ...(update.cost ? { cost: { amount: update.cost.amount, currency: oneLine(update.cost.currency, 10) } } : {}) } });
        return;
      case 'session_info_update':
        if (typeof update.title === 'string') this.options.onStatus({ title: oneLine(update.title, 200) });
        return;
      case 'config_option_update':
      case 'user_message_chunk':
      case 'compaction_summary_chunk':
        return;
      case 'agent_message_chunk':
        if (runId === undefined) return;
        this.closeThought();
        this.options.events.text({ type: 'textDelta', threadId: this.options.threadId, runId, text: blockText(update.content) });
        return;
      case 'agent_thought_chunk':
        if (runId !== undefined) this.addThought(blockText(update.content));
        return;
      case 'tool_call':
      case 'tool_call_update':
        this.closeThought();
        this.toolCall(update);
        return;
      case 'plan':
        if (runId === undefined) return;
        this.closeThought();
        this.plan(runId, update.entries);
        return;
      case 'notice':
        if (runId === undefined) return;
        this.closeThought();
        this.note(runId, `Notice: ${oneLine(update.title, 150)}`, update.description ?? '', update.severity === 'error' ? 'failed' : 'succeeded');
        return;
      case 'compaction_update':
        if (runId !== undefined && (update.status === 'completed' || update.status === 'failed')) {
          this.note(runId, 'Compacted the conversation', update.error ?? (update.summary ?? []).map(blockText).join('\n'), update.status === 'failed' ? 'failed' : 'succeeded');
        }
        return;
      default:
        return;
    }
  }

  /** A tool call the agent asks permission for (merged like an update); true when it has a card. */
  noteToolCall(update: acp.ToolCallUpdate): TrackedToolCall | undefined {
    this.closeThought();
    return this.toolCall({ ...update, sessionUpdate: 'tool_call_update' });
  }

  /** The card of a tool call shows it waiting for the user, or what the user decided. */
  cardStatus(toolCallId: string, status: 'awaiting-permission' | 'running', details?: string): void {
    const runId = this.runId;
    if (runId === undefined || !this.shown.has(toolCallId)) return;
    this.options.events.changed({ type: 'toolCallUpdated', threadId: this.options.threadId, runId, callId: callIdOf(toolCallId), status, ...(details !== undefined ? { details: clip(details, 10_000) } : {}) });
  }

  /** Ends a card by the client's word (a refused permission request). */
  cardFailed(toolCallId: string, message: string): void {
    const runId = this.runId;
    const call = this.options.table.get(toolCallId);
    if (runId === undefined || !call || !this.shown.has(toolCallId)) return;
    this.options.events.changed({ type: 'toolCallEnded', threadId: this.options.threadId, runId, callId: callIdOf(toolCallId), outcome: 'failed', content: [], errorMessage: clip(message, 10_000), durationMs: Math.max(0, this.now() - call.startedAt) });
  }

  private toolCall(update: (acp.ToolCall & { sessionUpdate: 'tool_call' }) | (acp.ToolCallUpdate & { sessionUpdate: 'tool_call_update' })): TrackedToolCall | undefined {
    const merged = this.options.table.merge(update);
    const runId = this.runId;
    if (!merged || runId === undefined) return merged?.call;
    const { call } = merged;
    const callId = callIdOf(call.toolCallId);
    const base = { threadId: this.options.threadId, runId, callId };
    if (!this.shown.has(call.toolCallId)) {
      if (this.shown.size >= MAX_CARDS_PER_RUN) {
        if (merged.isNew) this.unshown++;
        return call;
      }
      this.shown.add(call.toolCallId);
      this.options.events.started({ type: 'toolCallStarted', ...base, toolName: call.title, arguments: argumentsOf(call.rawInput), executor: 'server', group: groupOf(this.options.agent) });
    }
    if (call.status === 'in_progress') {
      this.options.events.changed({ type: 'toolCallUpdated', ...base, status: 'running' });
    } else if (call.status === 'completed' || call.status === 'failed') {
      const content = this.contentOf(call);
      const failure = call.status === 'failed' ? content.map((c) => (c.type === 'text' ? c.text : '')).join('\n').trim() : '';
      this.options.events.changed({
        type: 'toolCallEnded',
        ...base,
        outcome: call.status === 'completed' ? 'succeeded' : 'failed',
        content,
        ...(failure ? { errorMessage: clip(failure, 10_000) } : {}),
        durationMs: Math.max(0, this.now() - call.startedAt),
      });
    }
    return call;
  }

  private contentOf(call: TrackedToolCall): ContentItem[] {
    return call.content.map((item) => ({ type: 'text', text: this.textOf(item) }));
  }

  private textOf(item: AgentToolContent): string {
    switch (item.type) {
      case 'text':
        return item.text;
      case 'diff':
        return `${item.oldText === null ? 'New file' : 'Changes to'} ${item.path}\n${unifiedDiff(splitLines(item.oldText ?? ''), splitLines(item.newText), MAX_DIFF_CHARS)}`;
      case 'terminal': {
        const output = this.options.terminalOutput?.(item.terminalId);
        return output !== undefined ? clip(output, TOOL_CALL_LIMITS.maxTextChars) : `(terminal ${item.terminalId})`;
      }
    }
  }

  private addThought(text: string): void {
    if (!this.thought) this.thought = { callId: `thought-${++this.serial}`, text: '', startedAt: this.now() };
    if (this.thought.text.length < MAX_THOUGHT_CHARS) this.thought.text = clip(this.thought.text + text, MAX_THOUGHT_CHARS);
  }

  private closeThought(): void {
    const thought = this.thought;
    const runId = this.runId;
    this.thought = undefined;
    if (!thought || runId === undefined || thought.text.trim() === '') return;
    this.card(runId, thought.callId, 'Thinking', thought.text, 'succeeded', thought.startedAt);
  }

  private plan(runId: string, entries: acp.PlanEntry[]): void {
    const mark: Record<string, string> = { completed: '[x]', in_progress: '[~]', pending: '[ ]' };
    const lines = entries.slice(0, MAX_PLAN_ENTRIES).map((e) => `${mark[e.status] ?? '[ ]'} ${oneLine(e.content, 500)}${e.priority === 'high' ? ' (high priority)' : ''}`);
    if (entries.length > MAX_PLAN_ENTRIES) lines.push(`… ${entries.length - MAX_PLAN_ENTRIES} more entries`);
    const callId = `plan-${runId}`;
    const base = { threadId: this.options.threadId, runId, callId };
    if (!this.planShown) {
      this.planShown = true;
      this.options.events.started({ type: 'toolCallStarted', ...base, toolName: 'Plan', arguments: {}, executor: 'server', group: groupOf(this.options.agent) });
    }
    this.options.events.changed({ type: 'toolCallEnded', ...base, outcome: 'succeeded', content: [{ type: 'text', text: lines.join('\n') }], durationMs: 0 });
  }

  private note(runId: string, title: string, text: string, outcome: 'succeeded' | 'failed'): void {
    this.card(runId, `note-${++this.serial}`, title, clip(text, TOOL_CALL_LIMITS.maxTextChars), outcome, this.now());
  }

  private card(runId: string, callId: string, title: string, text: string, outcome: 'succeeded' | 'failed', startedAt: number): void {
    const base = { threadId: this.options.threadId, runId, callId };
    this.options.events.started({ type: 'toolCallStarted', ...base, toolName: title, arguments: {}, executor: 'server', group: groupOf(this.options.agent) });
    this.options.events.changed({ type: 'toolCallEnded', ...base, outcome, content: text ? [{ type: 'text', text }] : [], durationMs: Math.max(0, this.now() - startedAt) });
  }
}

/** The chat's call id for an agent's tool call id (the protocol's id limit is 200 characters). */
export function callIdOf(toolCallId: string): string {
  return toolCallId.length <= 200 ? toolCallId : toolCallId.slice(0, 200);
}

/** The card's arguments: the raw input as an object, or wrapped in one. */
function argumentsOf(raw: unknown): Record<string, unknown> {
  if (raw === undefined || raw === null) return {};
  if (typeof raw === 'object' && !Array.isArray(raw)) return raw as Record<string, unknown>;
  return { input: raw };
}

/** The protocol's group names are at most 64 characters without control characters. */
export function groupOf(agent: string): string {
  return oneLine(agent.replace(/[\u0000-\u001f]/g, ' '), 64) || 'Agent';
}
