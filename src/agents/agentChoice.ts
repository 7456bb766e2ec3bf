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

  noteStatus(agent: string, change: AgentStatusChange): void {
    this.statuses.set(agent, { ...this.statuses.get(agent), ...change });
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
    const detail = detailOf(status);
    return { connection: 'connected', model: mode ? `${name} · ${mode}` : name, ...(detail ? { detail } : {}) };
  }
}

/** The status line's tooltip: how full the agent's context is, and its slash commands. */
function detailOf(status: AgentStatusChange | undefined): string | undefined {
  const parts: string[] = [];
  const context = status?.context;
  if (context && context.size > 0) {
    const cost = context.cost ? ` (${context.cost.amount.toFixed(2)} ${context.cost.currency})` : '';
    parts.push(`${context.used.toLocaleString('en-US')} of ${context.size.toLocaleString('en-US')} context tokens used${cost}`);
  }
  const commands = status?.commands ?? [];
  if (commands.length > 0) parts.push(`Commands: ${commands.slice(0, 20).map((c) => `/${c.name}`).join(', ')}${commands.length > 20 ? ', …' : ''}`);
  return parts.length > 0 ? parts.join(' · ').slice(0, 1000) : undefined;
}
