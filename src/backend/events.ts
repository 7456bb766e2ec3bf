import { Emitter } from '../base/events';
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
  /** A client tool call ended (answered, failed, timed out, cancelled), from a run or from `invokeClientTool`. */
  clientCallEnded: (info: { toolName: string; outcome: string; errorCode?: string; sessionId: string }) => void;
  /** An operation on the shared state (Redis) failed; the caller turned it into a coded error. */
  stateError: (info: { code: string; operation: string }) => void;
}

export type EventName = keyof BackendEvents;

/**
 * `backend.on(name, listener)` over the project's one emitter (src/base/events.ts): one `Emitter` per
 * event name, firing the listener's arguments as a tuple. A listener that throws is reported, never
 * breaks the backend or the other listeners.
 */
export class BackendEventEmitter {
  private readonly emitters = new Map<EventName, Emitter<unknown[]>>();

  constructor(private readonly onListenerError: (event: EventName, error: unknown) => void) {}

  /** Returns the function that removes this listener. */
  on<E extends EventName>(event: E, listener: BackendEvents[E]): () => void {
    const call = listener as (...args: unknown[]) => void;
    const subscription = this.emitterOf(event).event((args) => call(...args));
    return () => subscription.dispose();
  }

  emit<E extends EventName>(event: E, ...args: Parameters<BackendEvents[E]>): void {
    this.emitters.get(event)?.fire(args);
  }

  private emitterOf(event: EventName): Emitter<unknown[]> {
    let emitter = this.emitters.get(event);
    if (!emitter) this.emitters.set(event, (emitter = new Emitter<unknown[]>((error) => this.onListenerError(event, error))));
    return emitter;
  }
}
