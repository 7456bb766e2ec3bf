/**
 * The transcript's item groups (src/webview/itemChunks.ts) as the page shows them: their size and
 * class, and a selector for every item, grouped or not. Free of DOM types, so the UI test and the
 * bench (compiled for Node) share them with the view.
 */

export const ITEMS_PER_CHUNK = 25;
export const CHUNK_CLASS = 'item-chunk';
/** Every item of the transcript, in a group or (without virtualisation) directly in the list. */
export const ITEM_SELECTOR = '.items > :not(.item-chunk), .item-chunk > *';
