/**
 * Steering: messages the user sends while a run works (`steer`), held per run and added to the
 * thread at the run's next tool boundary (after a batch of tool results, before the next model
 * request), in the order they came. While one waits, the same `steerId` replaces its text and
 * `withdrawSteer` takes it back; when the run ends first, each is handed back (`returned`) for the
 * client to send as a new message. At most MAX_STEERS_PER_RUN wait at once.
 */
export const MAX_STEERS_PER_RUN = 8;

export interface WaitingSteer {
  steerId: string;
  text: string;
}

export class SteerQueue {
  /** In arrival order (a replacement keeps its place). */
  private readonly waiting = new Map<string, string>();

  /** Queues or replaces; false when MAX_STEERS_PER_RUN others wait already. */
  put(steerId: string, text: string): boolean {
    if (!this.waiting.has(steerId) && this.waiting.size >= MAX_STEERS_PER_RUN) return false;
    this.waiting.set(steerId, text);
    return true;
  }

  /** Takes a waiting steer back; false when it is not waiting (delivered, returned, or never queued). */
  withdraw(steerId: string): boolean {
    return this.waiting.delete(steerId);
  }

  /** Every waiting steer, oldest first; none wait afterwards. */
  takeAll(): WaitingSteer[] {
    const all = [...this.waiting].map(([steerId, text]) => ({ steerId, text }));
    this.waiting.clear();
    return all;
  }
}
