/**
 * The run events of one agent turn, in transcript order, coalesced before they reach the chat: text
 * deltas in a row become one, and later changes of a card replace its earlier change still waiting.
 * What waits is flushed at most every `flushMs` and when the turn ends, so an agent that floods
 * `session/update` costs the chat one batch per interval, bounded by the cards it has, not one
 * message per update. Past `maxTextChars` of answer text in a turn the rest is dropped, and the
 * turn ends with a notice saying so.
 */
import type { RunEvent } from '../protocol';

export const TURN_LIMITS = {
  flushMs: 40,
  /** Answer text kept per turn (the chat keeps at most 100,000 characters of an answer anyway). */
  maxTextChars: 1_000_000,
} as const;

type CardEvent = Extract<RunEvent, { type: 'toolCallUpdated' | 'toolCallEnded' }>;

export class TurnEvents {
  private queue: RunEvent[] = [];
  /** Position in `queue` of the change waiting for each card. */
  private readonly waitingChange = new Map<string, number>();
  private timer: ReturnType<typeof setTimeout> | undefined;
  private textChars = 0;
  /** Characters of text dropped past the cap. */
  droppedText = 0;

  constructor(
    private readonly emit: (event: RunEvent) => void,
    private readonly flushMs: number = TURN_LIMITS.flushMs,
  ) {}

  text(event: Extract<RunEvent, { type: 'textDelta' }>): void {
    if (event.text === '') return;
    const room = TURN_LIMITS.maxTextChars - this.textChars;
    if (room <= 0) {
      this.droppedText += event.text.length;
      return;
    }
    const text = event.text.length > room ? event.text.slice(0, room) : event.text;
    this.droppedText += event.text.length - text.length;
    this.textChars += text.length;
    const last = this.queue.at(-1);
    if (last?.type === 'textDelta' && last.runId === event.runId) this.queue[this.queue.length - 1] = { ...last, text: last.text + text };
    else this.queue.push({ ...event, text });
    this.schedule();
  }

  /** Text of the client's own (a note that text was dropped), past the cap. */
  note(event: Extract<RunEvent, { type: 'textDelta' }>): void {
    this.queue.push(event);
    this.schedule();
  }

  /** A card appears (in order with the text around it). */
  started(event: Extract<RunEvent, { type: 'toolCallStarted' }>): void {
    this.queue.push(event);
    this.schedule();
  }

  /** A card changed; replaces its change still waiting, if any. */
  changed(event: CardEvent): void {
    const at = this.waitingChange.get(event.callId);
    if (at !== undefined) {
      this.queue[at] = event;
    } else {
      this.waitingChange.set(event.callId, this.queue.length);
      this.queue.push(event);
    }
    this.schedule();
  }

  /** Any other event, in order (it also ends the coalescing of text before it). */
  other(event: RunEvent): void {
    this.queue.push(event);
    this.schedule();
  }

  /** Sends everything waiting, now. */
  flush(): void {
    if (this.timer !== undefined) clearTimeout(this.timer);
    this.timer = undefined;
    const out = this.queue;
    this.queue = [];
    this.waitingChange.clear();
    for (const event of out) this.emit(event);
  }

  /** A new turn: the text budget starts again. */
  reset(): void {
    this.flush();
    this.textChars = 0;
    this.droppedText = 0;
  }

  dispose(): void {
    if (this.timer !== undefined) clearTimeout(this.timer);
    this.timer = undefined;
    this.queue = [];
    this.waitingChange.clear();
  }

  private schedule(): void {
    if (this.timer !== undefined) return;
    this.timer = setTimeout(() => this.flush(), this.flushMs);
  }
}
