/**
 * The card of a reviewed change (OpenDiff, and the multi-file changes of RenameSymbol and
 * ApplyCodeAction) shows its status in review words: "Awaiting your review" while the review is open, then
 * "Accepted", "Partly accepted" or "Rejected" (never a green "Succeeded" for a rejection), read from
 * the extension's own record of the call's result. No DOM, so it is tested in Node.
 */
import { isTerminal, type ToolItem } from './state';

export type ReviewLabel = 'Awaiting your review' | 'Accepted' | 'Partly accepted' | 'Rejected' | 'Unchanged';

/** The built-in tools whose result is a review's decision (`decision`: accepted, partial, rejected). */
const REVIEWED_TOOLS: ReadonlySet<string> = new Set(['OpenDiff', 'RenameSymbol', 'ApplyCodeAction']);

/** The card's status in review words, or undefined when the card is not a review (or it failed). */
export function reviewLabel(item: ToolItem): ReviewLabel | undefined {
  if (item.requestId === undefined || !REVIEWED_TOOLS.has(item.toolName)) return undefined;
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
