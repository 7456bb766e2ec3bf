/**
 * The review part of an OpenDiff card while the review is open: each hunk of the proposal (what goes,
 * what comes) with Keep or Reject, a reason for the agent, and labelled Accept and Reject (how it
 * ended is reviewLabel.ts's). Every text goes in as text, never as HTML: paths and lines come from
 * the backend.
 */
import type { ChatReview } from '../protocol/webview';
import { MAX_REVIEW_REASON } from '../protocol/webview';
import { isTerminal, type ToolItem } from './state';

export interface ReviewActions {
  decideReview(reviewId: string, accept: boolean, reason: string | undefined): void;
  reviewHunk(reviewId: string, hunk: number, keep: boolean): void;
}

const STATE_TEXT = { kept: 'Kept', rejected: 'Rejected', edited: 'Edited by you' } as const;

/**
 * The open review's controls, or nothing once it ended. `reasons` keeps what the user typed per
 * review across re-renders (the card is rebuilt whenever the review changes).
 */
export function renderReview(item: ToolItem, actions: ReviewActions, reasons: Map<string, string>): HTMLElement | undefined {
  const review = item.review;
  if (!review || !review.open || isTerminal(item.status)) return undefined;
  const section = el('section', { class: 'review', 'aria-label': `Review of the proposed ${review.newFile ? 'new file' : 'changes to'} ${review.path}` });
  section.append(el('p', { class: 'review-title' }, heading(review)));
  if (!review.newFile) section.append(hunkList(review, actions));
  const reason = el('input', {
    class: 'review-reason',
    type: 'text',
    maxlength: String(MAX_REVIEW_REASON),
    placeholder: 'Reason for the agent (optional)',
    'aria-label': 'Reason for the agent (optional)',
  });
  reason.value = reasons.get(review.reviewId) ?? '';
  reason.addEventListener('input', () => reasons.set(review.reviewId, reason.value));
  const decide = (accept: boolean) => {
    const why = reason.value.trim();
    reasons.delete(review.reviewId);
    actions.decideReview(review.reviewId, accept, why === '' ? undefined : why);
  };
  const accept = el('button', { type: 'button', class: 'review-accept' }, review.newFile ? 'Accept (create the file)' : 'Accept');
  const reject = el('button', { type: 'button', class: 'review-reject secondary' }, 'Reject');
  accept.addEventListener('click', () => decide(true));
  reject.addEventListener('click', () => decide(false));
  // Lines the editor does not draw whole, named right by Accept: it writes them all the same.
  if (review.warning !== undefined) section.append(el('p', { class: 'review-warning', role: 'note' }, `⚠ ${review.warning}`));
  section.append(reason, el('div', { class: 'review-actions' }, accept, reject));
  return section;
}

function heading(review: ChatReview): string {
  if (review.newFile) return `New file ${review.path}: it is created only if you accept.`;
  const total = review.hunks.length + review.moreHunks;
  const kept = review.hunks.filter((h) => h.state !== 'rejected').length;
  return `Proposed changes to ${review.path}: ${total} hunk${total === 1 ? '' : 's'}, ${kept} kept. Accept writes what is kept.`;
}

function hunkList(review: ChatReview, actions: ReviewActions): HTMLElement {
  const list = el('ol', { class: 'hunks' });
  review.hunks.forEach((hunk, i) => {
    const toggle = hunk.state === 'edited'
      ? undefined
      : el('button', { type: 'button', class: 'hunk-toggle secondary' }, hunk.state === 'kept' ? `Reject hunk ${i + 1}` : `Keep hunk ${i + 1}`);
    toggle?.addEventListener('click', () => actions.reviewHunk(review.reviewId, i, hunk.state !== 'kept'));
    const lines = el('pre', { class: 'hunk-lines', tabindex: '0' });
    for (const line of splitPreview(hunk.removed)) lines.append(el('span', { class: 'hunk-del' }, `- ${line}\n`));
    for (const line of splitPreview(hunk.added)) lines.append(el('span', { class: 'hunk-ins' }, `+ ${line}\n`));
    list.append(el('li', { class: `hunk hunk-${hunk.state}` },
      el('div', { class: 'hunk-head' }, el('span', { class: 'hunk-name' }, hunk.header), el('span', { class: 'hunk-state' }, STATE_TEXT[hunk.state]), toggle),
      lines));
  });
  if (review.moreHunks > 0) list.append(el('li', { class: 'muted' }, `${review.moreHunks} more hunks: review them in the diff editor.`));
  return list;
}

function splitPreview(text: string): string[] {
  if (text === '') return [];
  const lines = text.split('\n');
  if (lines[lines.length - 1] === '') lines.pop();
  return lines;
}

function el<K extends keyof HTMLElementTagNameMap>(tag: K, attrs: Record<string, string>, ...children: (Node | string | undefined)[]): HTMLElementTagNameMap[K] {
  const node = document.createElement(tag);
  for (const [name, value] of Object.entries(attrs)) node.setAttribute(name, value);
  for (const child of children) if (child !== undefined) node.append(child);
  return node;
}
