import type { RunEvent, ToolGroupState } from '../protocol';

/** What an embedding program can listen to with `backend.on(...)`. */
export interface BackendEvents {
  /** A client finished its handshake (a new session, or a resumed one). */
  session: (info: { sessionId: string; resumed: boolean }) => void;
  /** A client's connection closed; its session waits `sessionGraceMs` to be resumed. */
  disconnect: (info: { sessionId: string }) => void;
  /** A session ended for good (grace period over, or the backend closed). */
  sessionEnded: (info: { sessionId: string; reason: string }) => void;
  /** Every run event the backend sends (runStarted, textDelta, toolCall*, groupExpanded, runFinished, runError). */
  runEvent: (event: RunEvent, sessionId: string) => void;
  /** Every toolGroupState the backend sends. */
  toolGroupState: (state: ToolGroupState, sessionId: string) => void;
}

export type EventName = keyof BackendEvents;

/** A small typed emitter; a listener that throws is reported, never breaks the backend. */
export class Emitter {
  private readonly listeners = new Map<EventName, Set<unknown>>();

  constructor(private readonly onListenerError: (event: EventName, error: unknown) => void) {}

  on<E extends EventName>(event: E, listener: BackendEvents[E]): () => void {
    let set = this.listeners.get(event);
    if (!set) this.listeners.set(event, (set = new Set()));
    set.add(listener);
    return () => set.delete(listener);
  }

  emit<E extends EventName>(event: E, ...args: Parameters<BackendEvents[E]>): void {
    for (const l of this.listeners.get(event) ?? []) {
      try {
        (l as (...a: Parameters<BackendEvents[E]>) => void)(...args);
      } catch (e) {
        this.onListenerError(event, e);
      }
    }
  }
}
