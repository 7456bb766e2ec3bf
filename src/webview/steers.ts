/**
 * Messages typed while a run works (steering), as the chat's state keeps them: each waits, shown
 * above the message box with Edit and Cancel, until the backend delivers it at the run's next tool
 * boundary (then it joins the transcript as a user message where it landed), or hands it back
 * because the run ended first (then the view sends it as the next message). Pure functions; the
 * strip that shows them is src/webview/steerStrip.ts.
 */
import { z } from 'zod';
import type { ChatRunEvent } from '../protocol/webview';

/** Waiting messages the view keeps, as the backend does per run. */
export const MAX_PENDING_STEERS = 8;

export const PendingSteer = z.object({
  steerId: z.string().min(1).max(100),
  text: z.string(),
  /** `returned`: the run ended before a tool boundary; sent as the next message once the run is over. */
  state: z.enum(['pending', 'returned']),
});
export type PendingSteer = z.infer<typeof PendingSteer>;

type SteerUpdated = Extract<ChatRunEvent, { type: 'steerUpdated' }>;

/** The list after the backend's word on one steer; `delivered` holds its text when it joined the thread. */
export function applySteerUpdate(steers: readonly PendingSteer[], ev: SteerUpdated): { steers: PendingSteer[]; delivered?: string } {
  const steer = steers.find((s) => s.steerId === ev.steerId);
  if (!steer) return { steers: [...steers] };
  switch (ev.state) {
    case 'queued':
      return { steers: [...steers] };
    case 'delivered':
      return { steers: steers.filter((s) => s !== steer), delivered: steer.text };
    case 'withdrawn':
      return { steers: steers.filter((s) => s !== steer) };
    case 'returned':
      return { steers: steers.map((s) => (s === steer ? { ...s, state: 'returned' } : s)) };
  }
}

/**
 * What the run did not take (handed back, or still waiting when it ended without a word on them, as
 * after a lost connection), as one message to send once it is over, in the order typed, at most
 * `maxChars`; undefined when nothing is left.
 */
export function leftoverText(steers: readonly PendingSteer[], maxChars: number): string | undefined {
  const text = steers.map((s) => s.text).join('\n\n').slice(0, maxChars);
  return text.trim() === '' ? undefined : text;
}

/** A steer id no other in this view has had. */
export function newSteerId(): string {
  return `steer-${Date.now().toString(36)}-${Math.random().toString(36).slice(2, 10)}`;
}
