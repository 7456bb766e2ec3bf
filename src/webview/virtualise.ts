/**
 * What the chat leaves undone until the user can see it, so a long thread opens and streams fast:
 * - the transcript's items are `content-visibility: auto` a group at a time (media/chat.css, under
 *   `.virtualised`; the groups: src/webview/itemChunks.ts): Chromium skips the layout and paint of
 *   groups scrolled out of view, yet their items stay in the DOM, so find in page, scrolling to a
 *   card and screen readers still reach them;
 * - a long result part of a closed tool card is not built until the card opens (a closed card shows
 *   no body anyway; a 20,000-character result was most of a thread's DOM).
 * The page's `<html data-chat-virtualise="off">` turns both off: the bench's baseline
 * (bench/longThreads.ts). The extension's page never sets it.
 */
import type { ResultPart, ToolItem } from './state';

/** Characters of a text or JSON result part above which a closed card leaves it unbuilt. */
export const DEFERRED_PART_CHARS = 4000;

export const VIRTUALISED_CLASS = 'virtualised';

/** `data-*` attribute of a card whose body waits for the card to open. */
export const DEFERRED_ATTR = 'data-deferred-result';

export function virtualisationOn(doc: Document): boolean {
  return doc.documentElement.dataset.chatVirtualise !== 'off';
}

export function isLargePart(part: ResultPart): boolean {
  return (part.kind === 'text' || part.kind === 'json') && part.text.length > DEFERRED_PART_CHARS;
}

/** Whether a card that is `open` (or not) leaves part of its result unbuilt. */
export function defersResult(item: ToolItem, open: boolean, virtualised: boolean): boolean {
  return virtualised && !open && item.result.some(isLargePart);
}

/** Items at the end of the transcript (where a thread opens) whose answers render at once. */
export const EAGER_TAIL_ITEMS = 12;
/** How far outside the transcript's view an answer's markdown is rendered ahead of scrolling. */
const RENDER_AHEAD = '1200px 0px';
/** An idle callback stops rendering answers when less than this is left of its idle time... */
const IDLE_MARGIN_MS = 4;
/** ...or after this long: an idle period may be 50 ms, and a task that long delays the next delta's frame. */
const IDLE_SLICE_MS = 8;

/**
 * Markdown of answers built with a thread (opened, restored) but not near its end: shown as plain
 * text at first (findable, about as tall), rendered as markdown when it comes within RENDER_AHEAD
 * of the view, and otherwise in idle time, newest first, so none stays plain for long.
 */
export class LazyMarkdown {
  private readonly pending = new Map<Element, () => void>();
  private readonly observer: IntersectionObserver;
  private idleHandle: number | undefined;

  constructor(viewport: HTMLElement) {
    this.observer = new IntersectionObserver((entries) => {
      for (const entry of entries) if (entry.isIntersecting) this.renderNow(entry.target);
    }, { root: viewport, rootMargin: RENDER_AHEAD });
  }

  /** Shows `text` in `el` as it is now, and calls `render` later. */
  defer(el: HTMLElement, text: string, render: () => void): void {
    el.textContent = text;
    el.classList.add('markdown-pending');
    this.pending.set(el, render);
    this.observer.observe(el);
    this.scheduleIdle();
  }

  /** `el` is about to be rendered or replaced some other way: forget its pending render. */
  cancel(el: Element): void {
    if (!this.pending.delete(el)) return;
    this.observer.unobserve(el);
    el.classList.remove('markdown-pending');
  }

  private renderNow(el: Element): void {
    const render = this.pending.get(el);
    if (!render) return;
    this.cancel(el);
    render();
  }

  private scheduleIdle(): void {
    if (this.idleHandle !== undefined) return;
    this.idleHandle = requestIdleCallback((deadline) => {
      this.idleHandle = undefined;
      const started = performance.now();
      for (const el of [...this.pending.keys()].reverse()) {
        if (deadline.timeRemaining() < IDLE_MARGIN_MS || performance.now() - started > IDLE_SLICE_MS) break;
        this.renderNow(el);
      }
      if (this.pending.size > 0) this.scheduleIdle();
    });
  }
}
