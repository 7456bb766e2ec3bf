/**
 * OpenDiff reviews on the chat's cards: every change of a review goes to the call's card, and the
 * card's Accept, Reject and per-hunk choices come back to the review. A choice for a review that has
 * ended meanwhile (decided in the editor, cancelled by the backend) changes nothing.
 */
import type * as vscode from 'vscode';
import { assertNever } from '../../protocol';
import type { ChatViewProvider } from '../chat/chatView';
import type { ChatReview } from '../../protocol/webview';

/** OpenDiff's reviews (src/vscode/reviews/diffReview.ts) and multi-file change reviews (src/vscode/reviews/changeReview.ts) alike; each ignores another's review ids. */
export interface ChatReviewSource {
  readonly onDidChangeReview: vscode.Event<ChatReview>;
  decide(reviewId: string, accept: boolean, reason: string | undefined): Promise<boolean>;
  setHunk(reviewId: string, index: number, keep: boolean): Promise<boolean>;
  /** An accepted review's change: open it as a diff, or undo it (OpenDiff's reviews only). */
  keptChange?(reviewId: string, action: 'open' | 'undo'): Promise<boolean>;
}

export function showReviewsInChat(reviews: ChatReviewSource, chat: ChatViewProvider): vscode.Disposable[] {
  return [
    reviews.onDidChangeReview((review) => chat.postReview(review)),
    chat.onDidReviewRequest((request) => {
      switch (request.type) {
        case 'decideReview':
          void reviews.decide(request.reviewId, request.accept, request.reason);
          break;
        case 'reviewHunk':
          void reviews.setHunk(request.reviewId, request.hunk, request.keep);
          break;
        case 'keptChange':
          void reviews.keptChange?.(request.reviewId, request.action);
          break;
        default:
          assertNever(request, 'review request from the chat');
      }
    }),
  ];
}
