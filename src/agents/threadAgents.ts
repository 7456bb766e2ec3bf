/**
 * Which agent each chat thread talks to, and the agent's session id for it, kept across window
 * reloads (the VS Code side keeps it in workspace state), so a thread comes back to the same agent
 * and its session is resumed or loaded where the agent offers that. The reference backend is the
 * agent `BACKEND`. Also the user's reasons for a Deny not yet delivered to the agent
 * (declinedReasons.ts), so a reload does not lose them. Bounded: past MAX_BOUND_THREADS the least
 * recently used binding is forgotten.
 */
import { parseSavedDeclined, type SavedDeclined } from './declinedReasons';

/** The chat's own backend (the reference backend or the one configured), as an agent name. */
export const BACKEND = '';
export const MAX_BOUND_THREADS = 500;

export interface ThreadAgent {
  agent: string;
  /** The agent's ACP session id for this thread, once it has one. */
  sessionId?: string;
  /** Reasons for a Deny not yet delivered to the agent of this session. */
  declined?: SavedDeclined;
}

export interface ThreadAgentStore {
  get(): unknown;
  set(value: Record<string, ThreadAgent>): void;
}

export class ThreadAgents {
  private readonly bindings: Map<string, ThreadAgent>;

  constructor(private readonly store: ThreadAgentStore) {
    this.bindings = new Map(parse(store.get()));
  }

  get(threadId: string): ThreadAgent | undefined {
    return this.bindings.get(threadId);
  }

  /** Binds the thread to `agent` (a new session id later); a binding to another agent is replaced. */
  bind(threadId: string, agent: string): void {
    const current = this.bindings.get(threadId);
    if (current?.agent === agent) return;
    this.put(threadId, { agent });
  }

  /** The agent's session for the thread (new, resumed or replaced). */
  setSession(threadId: string, agent: string, sessionId: string): void {
    const current = this.bindings.get(threadId);
    const declined = current?.agent === agent && current.sessionId === sessionId ? current.declined : undefined;
    this.put(threadId, { agent, sessionId: sessionId.slice(0, 500), ...(declined ? { declined } : {}) });
  }

  /** The reasons not yet delivered to the thread's agent (undefined: none left); ignored for a thread bound elsewhere. */
  setDeclined(threadId: string, agent: string, declined: SavedDeclined | undefined): void {
    const current = this.bindings.get(threadId);
    if (current?.agent !== agent || (current.declined === undefined && declined === undefined)) return;
    const { declined: _old, ...rest } = current;
    this.bindings.set(threadId, declined ? { ...rest, declined } : rest);
    this.save();
  }

  forget(threadId: string): void {
    if (this.bindings.delete(threadId)) this.save();
  }

  private put(threadId: string, value: ThreadAgent): void {
    this.bindings.delete(threadId);
    this.bindings.set(threadId, value);
    while (this.bindings.size > MAX_BOUND_THREADS) {
      const oldest = this.bindings.keys().next().value;
      if (oldest === undefined) break;
      this.bindings.delete(oldest);
    }
    this.save();
  }

  private save(): void {
    this.store.set(Object.fromEntries(this.bindings));
  }
}

/** Stored bindings, each checked: whatever does not read as one is dropped. */
function parse(value: unknown): [string, ThreadAgent][] {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return [];
  const out: [string, ThreadAgent][] = [];
  for (const [threadId, v] of Object.entries(value as Record<string, unknown>).slice(-MAX_BOUND_THREADS)) {
    if (typeof v !== 'object' || v === null) continue;
    const { agent, sessionId, declined } = v as Record<string, unknown>;
    if (typeof agent !== 'string' || agent.length > 200) continue;
    if (typeof sessionId !== 'string' || sessionId.length > 500) {
      out.push([threadId, { agent }]);
      continue;
    }
    const saved = parseSavedDeclined(declined);
    out.push([threadId, saved ? { agent, sessionId, declined: saved } : { agent, sessionId }]);
  }
  return out;
}
