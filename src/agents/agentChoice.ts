/**
 * Which agent answers in which conversation, in plain Node: the agents on offer (configured ones
 * first, then the presets found, a configured name replacing a preset's), each thread's agent
 * (bound by its first message), the agent picked last for threads with no message yet, what
 * picking another agent does (a new conversation, unless the shown one is still empty), and what
 * the chat's picker and status line show. The VS Code side (src/vscode/agents/agentsHost.ts) only
 * feeds it settings and forwards its answers.
 */
import type { ChatAgentOption, ChatStatus } from '../protocol/webview';
import type { AgentSpec } from './agentSettings';
import type { AgentStatusChange } from './sessionUpdates';
import { BACKEND, type ThreadAgents } from './threadAgents';

/** Where the agent picked last is kept (global state on the VS Code side). */
export interface PickedStore {
  get(): string | undefined;
  set(name: string): void;
}

export class AgentChoice {
  private offered: AgentSpec[] = [];
  /** What each agent said about itself last (its modes), by name. */
  private readonly statuses = new Map<string, AgentStatusChange>();
  /** How full each conversation's context is and what it cost (the agent's `usage_update`), by thread. */
  private readonly contexts = new Map<string, NonNullable<AgentStatusChange['context']>>();

  constructor(
    private readonly bindings: ThreadAgents,
    private readonly picked: PickedStore,
  ) {}

  get agents(): readonly AgentSpec[] {
    return this.offered;
  }

  /**
   * The agents on offer now: `configured` (user settings) and the presets found, a configured name
   * replacing a preset's. Returns the names of agents that are gone or changed (to be stopped).
   */
  setAgents(configured: readonly AgentSpec[], presets: readonly AgentSpec[]): string[] {
    const taken = new Set(configured.map((a) => a.name.toLowerCase()));
    const next = [...configured, ...presets.filter((p) => !taken.has(p.name.toLowerCase()))];
    const changed = this.offered.filter((old) => {
      const now = next.find((a) => a.name === old.name);
      return !now || JSON.stringify(now) !== JSON.stringify(old);
    }).map((a) => a.name);
    this.offered = next;
    return changed;
  }

  spec(name: string): AgentSpec | undefined {
    return this.offered.find((a) => a.name === name);
  }

  /** The thread's agent: the one it talks to, else (no message yet) the one picked last, if still on offer. */
  agentOf(threadId: string): string {
    const bound = this.bindings.get(threadId);
    if (bound) return bound.agent;
    const picked = this.picked.get() ?? BACKEND;
    return picked === BACKEND || this.spec(picked) ? picked : BACKEND;
  }

  /**
   * The user picked `name` while `threadId` was shown. Returns whether a new conversation is needed
   * (the shown one talks to another agent); false for an agent not on offer, which changes nothing.
   */
  pick(name: string, threadId: string): { accepted: boolean; newConversation: boolean } {
    if (name !== BACKEND && !this.spec(name)) return { accepted: false, newConversation: false };
    this.picked.set(name);
    const bound = this.bindings.get(threadId);
    return { accepted: true, newConversation: bound !== undefined && bound.agent !== name };
  }

  /** What an agent said about itself; its usage is the conversation's (`threadId`), the rest the agent's. */
  noteStatus(agent: string, change: AgentStatusChange, threadId?: string): void {
    const { context, ...rest } = change;
    if (context !== undefined && threadId !== undefined) this.contexts.set(threadId, context);
    this.statuses.set(agent, { ...this.statuses.get(agent), ...rest });
  }

  /** A deleted conversation's usage goes with it. */
  forgetThread(threadId: string): void {
    this.contexts.delete(threadId);
  }

  /** The picker's entries (the backend is the picker's own first entry). */
  pickerOptions(): ChatAgentOption[] {
    return this.offered.map((a) => ({ name: a.name, detail: `${a.command} ${a.args.join(' ')}`.trim().slice(0, 300) }));
  }

  /** The status line for a thread that talks to an agent; undefined for the backend's threads. */
  statusOf(threadId: string): ChatStatus | undefined {
    const name = this.agentOf(threadId);
    if (name === BACKEND) return undefined;
    if (!this.spec(name)) return { connection: 'disconnected', model: name, detail: `${name} is no longer on offer: pick another agent` };
    const status = this.statuses.get(name);
    const current = status?.currentMode ?? status?.modes?.current;
    const mode = status?.modes?.available.find((m) => m.id === current)?.name;
    const context = this.contexts.get(threadId);
    const detail = detailOf(status, context);
    const usage = usageOf(context);
    return { connection: 'connected', model: mode ? `${name} · ${mode}` : name, ...(detail ? { detail } : {}), ...(usage ? { usage } : {}) };
  }
}

/** The status line's usage: how full the conversation's context is, and what it cost so far. */
function usageOf(context: AgentStatusChange['context']): string | undefined {
  if (!context || context.size <= 0) return undefined;
  const percent = Math.min(100, Math.round((context.used / context.size) * 100));
  const cost = context.cost ? ` · ${formatCost(context.cost)}` : '';
  return `Context ${percent}%${cost}`;
}

function formatCost(cost: { amount: number; currency: string }): string {
  return `${cost.amount < 0.01 && cost.amount > 0 ? cost.amount.toPrecision(2) : cost.amount.toFixed(2)} ${cost.currency}`;
}

/** The status line's tooltip: how full the conversation's context is, and the agent's slash commands. */
function detailOf(status: AgentStatusChange | undefined, context: AgentStatusChange['context']): string | undefined {
  const parts: string[] = [];
  if (context && context.size > 0) {
    const cost = context.cost ? ` (${formatCost(context.cost)} so far)` : '';
    parts.push(`${context.used.toLocaleString('en-US')} of ${context.size.toLocaleString('en-US')} context tokens used${cost}`);
  }
  const commands = status?.commands ?? [];
  if (commands.length > 0) parts.push(`Commands: ${commands.slice(0, 20).map((c) => `/${c.name}`).join(', ')}${commands.length > 20 ? ', …' : ''}`);
  return parts.length > 0 ? parts.join(' · ').slice(0, 1000) : undefined;
}
