import { RUN_EVENT_TYPES } from './schemas';
import type { RunEvent } from './types';

const RUN_EVENTS: ReadonlySet<string> = new Set(RUN_EVENT_TYPES);

/** Whether a backend message narrates a run; narrows, so a switch on the rest stays exhaustive. */
export function isRunEvent<M extends { type: string }>(message: M): message is Extract<M, RunEvent> {
  return RUN_EVENTS.has(message.type);
}
