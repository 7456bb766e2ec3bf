/**
 * Stops a prompt barrage: a backend that asks again after every Deny must not keep a modal up for
 * ever. Counts prompts per minute (beyond the cap they are refused without showing anything),
 * counts denials per tool (after a few, the prompt offers "Deny All" and "Disconnect"), and holds
 * a "deny all" until it expires.
 *
 * State is per window, not per backend session: a backend that reconnects gets a new session, and
 * must not get a fresh allowance with it.
 */
import type { Timers } from '../timers';

export interface BarragePolicy {
  /** Prompts shown within one minute, at most; more are refused at once. */
  maxPromptsPerMinute: number;
  /** Denials of one tool within `denialWindowMs` after which the prompt offers Deny All and Disconnect. */
  denialsBeforeEscape: number;
  denialWindowMs: number;
  /** How long "Deny All from This Backend" lasts. */
  denyAllMs: number;
}

export const DEFAULT_BARRAGE_POLICY: BarragePolicy = {
  maxPromptsPerMinute: 20,
  denialsBeforeEscape: 3,
  denialWindowMs: 5 * 60_000,
  denyAllMs: 10 * 60_000,
};

const MINUTE = 60_000;

export class PromptBarrage {
  private shown: number[] = [];
  private readonly denials = new Map<string, number[]>();
  private denyAllUntil = 0;

  constructor(readonly policy: BarragePolicy, private readonly timers: Timers) {}

  /** Why a prompt must not be shown now, or undefined when it may be. */
  refusal(): string | undefined {
    const now = this.timers.now();
    if (now < this.denyAllUntil) {
      const minutes = Math.ceil((this.denyAllUntil - now) / MINUTE);
      return `the user denies every permission request from this backend for ${minutes} more minute${minutes === 1 ? '' : 's'}; nothing was asked`;
    }
    this.shown = this.shown.filter((t) => now - t < MINUTE);
    if (this.shown.length >= this.policy.maxPromptsPerMinute) {
      return `more than ${this.policy.maxPromptsPerMinute} permission prompts in a minute; refused without asking the user`;
    }
    return undefined;
  }

  get denyingAll(): boolean {
    return this.timers.now() < this.denyAllUntil;
  }

  recordShown(): void {
    this.shown.push(this.timers.now());
  }

  recordDenial(toolName: string): void {
    const now = this.timers.now();
    const recent = (this.denials.get(toolName) ?? []).filter((t) => now - t < this.policy.denialWindowMs);
    recent.push(now);
    this.denials.set(toolName, recent);
  }

  /** Whether the next prompt for this tool offers "Deny All" and "Disconnect". */
  offersEscape(toolName: string): boolean {
    const now = this.timers.now();
    return (this.denials.get(toolName) ?? []).filter((t) => now - t < this.policy.denialWindowMs).length >= this.policy.denialsBeforeEscape;
  }

  denyAll(): void {
    this.denyAllUntil = this.timers.now() + this.policy.denyAllMs;
  }

  /** Ends a "deny all" and forgets the counts (the user reset permissions). */
  lift(): void {
    this.denyAllUntil = 0;
    this.shown = [];
    this.denials.clear();
  }

  get denyAllMinutes(): number {
    return Math.round(this.policy.denyAllMs / MINUTE);
  }
}
