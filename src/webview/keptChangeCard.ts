/**
 * The card of an accepted OpenDiff review: the change that was kept, as a diff of its hunks (what
 * went, what came), with Open Diff (the editor's diff from the text before to the file now) and Undo
 * (the extension puts the text before back while the file still holds what was accepted). After an
 * Undo the card says so. Every text goes in as text: paths and lines come from the backend.
 */
import type { ChatReview } from '../protocol/webview';
import { isTerminal, type ToolItem } from './state';

export interface KeptChangeActions {
  keptChange(reviewId: string, action: 'open' | 'undo'): void;
}

/** The kept change's section, or nothing while the review is open or when nothing was kept. */
export function renderKeptChange(item: ToolItem, actions: KeptChangeActions): HTMLElement | undefined {
  const review = item.review;
  if (!review?.change || review.open || !isTerminal(item.status)) return undefined;
  const section = el('section', { class: 'kept-change', 'aria-label': `Kept change to ${review.path}` });
  const undone = review.change === 'undone';
  section.append(el('p', { class: 'kept-title' }, undone ? `Undone: ${review.path} is back as it was before this change.` : heading(review)));
  if (!undone) {
    section.append(diffOf(review));
    const buttons = el('div', { class: 'kept-actions' });
    const open = el('button', { type: 'button', class: 'kept-open secondary', title: `Open ${review.path} in a diff editor: the text before this change on the left, the file now on the right` }, 'Open Diff');
    open.addEventListener('click', () => actions.keptChange(review.reviewId, 'open'));
    const undo = el('button', { type: 'button', class: 'kept-undo secondary', title: review.newFile ? `Delete ${review.path}, if it is still as it was accepted` : `Put back ${review.path} as it was before this change, if it is still as it was accepted` }, 'Undo');
    undo.addEventListener('click', () => actions.keptChange(review.reviewId, 'undo'));
    buttons.append(open, undo);
    section.append(buttons);
  }
  return section;
}

function heading(review: ChatReview): string {
  if (review.newFile) return `Created ${review.path}`;
  const kept = review.hunks.filter((h) => h.state !== 'rejected').length;
  const all = review.hunks.length + review.moreHunks;
  return kept === all ? `Changed ${review.path} (${all} ${all === 1 ? 'hunk' : 'hunks'})` : `Changed ${review.path}: kept ${kept} of ${all} hunks`;
}

/** The kept hunks as diff lines: "- " for what went, "+ " for what came. */
function diffOf(review: ChatReview): HTMLElement {
  const pre = el('pre', { class: 'kept-diff', tabindex: '0' });
  for (const hunk of review.hunks) {
    if (hunk.state === 'rejected') continue;
    pre.append(el('span', { class: 'kept-hunk' }, `${hunk.header}${hunk.state === 'edited' ? ' (edited by you)' : ''}\n`));
    for (const line of lines(hunk.removed)) pre.append(el('del', {}, `- ${line}\n`));
    for (const line of lines(hunk.added)) pre.append(el('ins', {}, `+ ${line}\n`));
  }
  if (review.moreHunks > 0) pre.append(el('span', { class: 'kept-hunk' }, `… and ${review.moreHunks} more hunks (Open Diff shows them)\n`));
  return pre;
}

function lines(text: string): string[] {
  if (text === '') return [];
  return text.replace(/\n$/, '').split('\n');
}

function el<K extends keyof HTMLElementTagNameMap>(tag: K, attrs: Record<string, string>, text?: string): HTMLElementTagNameMap[K] {
  const node = document.createElement(tag);
  for (const [name, value] of Object.entries(attrs)) {
    if (name === 'class') node.className = value;
    else node.setAttribute(name, value);
  }
  if (text !== undefined) node.textContent = text;
  return node;
}
