/**
 * What the chat reads out to a screen reader, in a polite live region: a new error, a tool card's
 * new status, a permission prompt, and a streamed answer in whole sentences as it arrives. Only
 * what changed between two states is read; a restored transcript is not read out again.
 */
import { foldedAway } from './expansionFold';
import { STATUS_LABEL } from './format';
import type { ChatState } from './state';
import { unchangedPrefix } from './stateItems';

export const AWAITING_TEXT = 'Awaiting your input: answer the permission prompt in the editor.';
const MAX_ANNOUNCED_CHARS = 2000;
/** While an answer streams, whole sentences or lines are read out once this much new text ended in one. */
const STREAM_ANNOUNCE_MIN_CHARS = 20;
/** Lines kept in the live region; older ones are removed. */
const MAX_LINES = 5;

export class Announcer {
  readonly root = document.createElement('div');
  /** Characters of the streaming answer (its text as shown) already read out, by item id. */
  private readonly streamAnnounced = new Map<string, number>();

  /** `shownText`: an answer's text as the view shows it now, by item id. */
  constructor(private readonly shownText: (id: string) => string) {
    this.root.className = 'sr-only';
    this.root.setAttribute('aria-live', 'polite');
  }

  /** Reads out what changed from `prev` to `state` (nothing for a first, restored state). */
  changes(prev: ChatState | undefined, state: ChatState): void {
    if (!prev) return; // A restored transcript is not read out again.
    // Only what follows the unchanged start can have changed.
    const from = unchangedPrefix(prev.items, state.items);
    const before = new Map(prev.items.slice(from).map((it) => [it.id, it]));
    for (const item of state.items.slice(from)) {
      const old = before.get(item.id);
      if (item === old || foldedAway(item, state)) continue;
      if (item.kind === 'answer' && item.streaming) {
        this.streamed(item.id, false);
      } else if (item.kind === 'answer' && !item.streaming && (old === undefined || (old.kind === 'answer' && old.streaming))) {
        this.streamed(item.id, true);
      } else if (item.kind === 'error' && !old) {
        this.say(`Error: ${item.message}`);
      } else if (item.kind === 'tool' && (!old || (old.kind === 'tool' && old.status !== item.status))) {
        this.say(`${item.toolName}: ${STATUS_LABEL[item.status]}`);
      }
    }
    if (state.approval && state.approval.promptId !== prev.approval?.promptId) {
      this.say(`${state.approval.toolName} asks for your permission: ${state.approval.message}`);
    } else if (state.awaitingInput && !prev.awaitingInput && !state.approval) {
      this.say(AWAITING_TEXT);
    }
  }

  /** Reads `text` out (after what is being read). */
  say(text: string): void {
    const line = document.createElement('p');
    line.append(text);
    this.root.append(line);
    while (this.root.childElementCount > MAX_LINES) this.root.firstElementChild?.remove();
  }

  /**
   * Reads out what an answer added since the last time: while it streams, up to its last finished
   * sentence or line (so a screen reader hears whole sentences as they arrive, not every delta);
   * once it ends, the rest. At most MAX_ANNOUNCED_CHARS per answer in all.
   */
  private streamed(id: string, finished: boolean): void {
    // Without the rendered markdown's trailing newline, which would count as a finished line.
    const text = this.shownText(id).trimEnd();
    const from = this.streamAnnounced.get(id) ?? 0;
    if (finished) this.streamAnnounced.delete(id);
    if (from >= MAX_ANNOUNCED_CHARS) return;
    let to = text.length;
    if (!finished) {
      to = Math.max(text.lastIndexOf('. ', to), text.lastIndexOf('! ', to), text.lastIndexOf('? ', to), text.lastIndexOf('\n', to)) + 1;
      if (to - from < STREAM_ANNOUNCE_MIN_CHARS) return;
    }
    to = Math.min(to, MAX_ANNOUNCED_CHARS);
    const part = text.slice(from, to).trim();
    if (!finished) this.streamAnnounced.set(id, to);
    if (part) this.say(part);
  }
}
