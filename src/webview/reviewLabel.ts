/**
 * An OpenDiff card's status in review words: "Awaiting your review" while the review is open, then
 * "Accepted", "Partly accepted" or "Rejected" (never a green "Succeeded" for a rejection), read from
 * the extension's own record of the call's result. No DOM, so it is tested in Node.
 */
import { isTerminal, type ToolItem } from './state';

export type ReviewLabel = 'Awaiting your review' | 'Accepted' | 'Partly accepted' | 'Rejected' | 'Unchanged';

/** The card's status in review words, or undefined when the card is not an OpenDiff review (or it failed). */
export function reviewLabel(item: ToolItem): ReviewLabel | undefined {
  if (item.requestId === undefined || item.toolName !== 'OpenDiff') return undefined;
  if (item.review?.open === true && !isTerminal(item.status)) return 'Awaiting your review';
  if (item.status !== 'succeeded') return undefined;
  const decision = resultDecision(item);
  if (decision?.unchanged === true) return 'Unchanged';
  switch (decision?.decision) {
    case 'accepted': return 'Accepted';
    case 'partial': return 'Partly accepted';
    case 'rejected': return 'Rejected';
    default: return undefined;
  }
}

/** The class a review label gives the card (its colour). */
export function reviewClass(label: ReviewLabel | undefined): string {
  if (label === 'Rejected') return ' review-rejected';
  if (label === 'Partly accepted') return ' review-partial';
  if (label === 'Awaiting your review') return ' review-open';
  return '';
}

function resultDecision(item: ToolItem): { decision?: unknown; unchanged?: unknown } | undefined {
  const part = item.result.find((p) => p.kind === 'json');
  if (!part || part.kind !== 'json') return undefined;
  try {
    const value: unknown = JSON.parse(part.text);
    return value !== null && typeof value === 'object' ? (value as { decision?: unknown; unchanged?: unknown }) : undefined;
  } catch {
    return undefined; // clipped
  }
}
