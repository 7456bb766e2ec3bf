/**
 * Context-only updates (the editor pushing what is open, every half second at most) arrive all the
 * time, also while a run waits minutes for a permission prompt. Held one by one they would fill a
 * running thread's queue of updates and be refused; merged into the update before them they take
 * one place, and the thread applies the same items in the same order at its next model call.
 */
import type { Augmentation, ContextItem } from '../../protocol';
import { MAX_CONTEXT_ITEMS } from '../toolset/toolState';

/** True when the update only adds context items (nothing that changes groups or visibility). */
export function isContextOnly(aug: Augmentation): boolean {
  return aug.addContext !== undefined && Object.entries(aug).every(([key, value]) => key === 'addContext' || value === undefined);
}

/**
 * One update that has the effect of `earlier` then `later`: items are replaced by name, so an item
 * keeps its first position and takes its last text; a thread keeps at most MAX_CONTEXT_ITEMS, so
 * older names beyond that would be dropped anyway.
 */
export function mergeContext(earlier: Augmentation, later: Augmentation): Augmentation {
  const byName = new Map<string, ContextItem>();
  for (const item of [...(earlier.addContext ?? []), ...(later.addContext ?? [])]) byName.set(item.name, item);
  const items = [...byName.values()];
  return { addContext: items.slice(Math.max(0, items.length - MAX_CONTEXT_ITEMS)) };
}
