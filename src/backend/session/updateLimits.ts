/**
 * Limits on `updateToolGroups`. An update is applied to the session once, threads take it at their
 * next model call, and the answer is one coalesced `toolGroupState`, so its cost does not multiply
 * by the threads; what is bounded here is how big and how frequent updates are, and how much state
 * they can build up.
 */
import type { Augmentation } from '../../protocol';
import { SESSION_LIMITS } from '../toolset/registration';
import type { ClientToolState } from '../toolset/toolState';

/** Largest augmentation one update may carry, as JSON text. */
export const MAX_UPDATE_BYTES = 1024 * 1024;
/** Updates a client may send in a burst; the allowance then refills at UPDATES_PER_SECOND. */
export const UPDATE_BURST = 64;
export const UPDATES_PER_SECOND = 16;
/**
 * Groups, and tools plus skills, a session's state may hold (registered and injected together). The
 * group cap is registration's (one set of limits); tools plus skills count skills too.
 */
export const MAX_SESSION_GROUPS = SESSION_LIMITS.maxGroups;
export const MAX_SESSION_TOOLS = 4096;
/** At most one session-wide `toolGroupState` per this interval; updates in between share it. */
export const STATE_INTERVAL_MS = 100;

/** A token bucket: `take()` is false once the burst is spent faster than it refills. */
export class UpdateAllowance {
  private tokens = UPDATE_BURST;
  private last: number;

  constructor(private readonly now: () => number = Date.now) {
    this.last = now();
  }

  take(): boolean {
    const t = this.now();
    this.tokens = Math.min(UPDATE_BURST, this.tokens + ((t - this.last) / 1000) * UPDATES_PER_SECOND);
    this.last = t;
    if (this.tokens < 1) return false;
    this.tokens -= 1;
    return true;
  }
}

/** Why an update is refused before it is applied, or undefined when its size is fine. */
export function oversizedUpdate(aug: Augmentation): string | undefined {
  const bytes = Buffer.byteLength(JSON.stringify(aug), 'utf8');
  if (bytes <= MAX_UPDATE_BYTES) return undefined;
  return `updateToolGroups carries ${bytes} bytes of augmentation; the limit is ${MAX_UPDATE_BYTES}. Nothing was applied.`;
}

/** Why the state an update would produce is too big, or undefined when it fits. */
export function overfullState(state: ClientToolState): string | undefined {
  const groups = state.groupNames().length;
  if (groups > MAX_SESSION_GROUPS) return `the update would leave ${groups} tool groups in the session; the limit is ${MAX_SESSION_GROUPS}. Nothing was applied.`;
  const tools = state.namesInUse().size;
  if (tools > MAX_SESSION_TOOLS) return `the update would leave ${tools} tools and skills in the session; the limit is ${MAX_SESSION_TOOLS}. Nothing was applied.`;
  return undefined;
}
