/**
 * The transcript's items in groups of ITEMS_PER_CHUNK (`<div class="item-chunk">`), which the browser
 * skips a group at a time (media/chat.css makes a group `content-visibility: auto`). Chromium checks
 * every `content-visibility: auto` box against the view on each frame, and lays out a column's boxes
 * one by one: with a box per item, every frame of a streamed answer cost work in proportion to the
 * whole thread; with a box per group, a twenty-fifth of that.
 * An item joins a group when it is placed and stays in it; a group left empty goes. Without
 * virtualisation (the bench's baseline) the items are the list's own children, as before.
 */

import { CHUNK_CLASS } from './chunkNames';

export class ItemChunks {
  /** `perChunk` 0: no groups, the items are the list's children. */
  constructor(private readonly list: HTMLElement, private readonly perChunk: number) {}

  /** The first item, in document order. */
  first(): Element | null {
    return this.perChunk === 0 ? this.list.firstElementChild : this.firstIn(this.list.firstElementChild);
  }

  /** The item after `item`, across groups. */
  next(item: Element): Element | null {
    if (this.perChunk === 0) return item.nextElementSibling;
    return item.nextElementSibling ?? this.firstIn(item.parentElement?.nextElementSibling ?? null);
  }

  /** Puts `item` before `ref` (in `ref`'s group), or at the end when `ref` is null. */
  insertBefore(item: HTMLElement, ref: Element | null): void {
    if (this.perChunk === 0) {
      this.list.insertBefore(item, ref);
      return;
    }
    const from = item.parentElement;
    const into = ref?.parentElement ?? this.lastWithRoom();
    into.insertBefore(item, ref);
    if (from && from !== into) this.dropIfEmpty(from);
  }

  remove(item: Element): void {
    const from = item.parentElement;
    item.remove();
    if (from && this.perChunk !== 0) this.dropIfEmpty(from);
  }

  clear(): void {
    this.list.replaceChildren();
  }

  private firstIn(chunk: Element | null): Element | null {
    // Groups are never left empty, so the first group's first child is the first item.
    return chunk?.firstElementChild ?? null;
  }

  private lastWithRoom(): HTMLElement {
    const last = this.list.lastElementChild;
    if (last instanceof HTMLElement && last.childElementCount < this.perChunk) return last;
    const chunk = document.createElement('div');
    chunk.className = CHUNK_CLASS;
    this.list.append(chunk);
    return chunk;
  }

  private dropIfEmpty(chunk: Element): void {
    if (chunk.parentElement === this.list && chunk.childElementCount === 0) chunk.remove();
  }
}
