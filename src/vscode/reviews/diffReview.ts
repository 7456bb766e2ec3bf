/**
 * Diff reviews for OpenDiff: VS Code's diff editor between the file and the proposed content, kept
 * in a small in-memory file system (`client-tools-diff://<review id>/<relative path>`, so the
 * breadcrumb shows the path and every review's documents stay apart) where the user can edit it. A
 * new file opens as a plain editor on its text. The user decides with Accept or Reject in the title
 * bar, on the review's notification, on the chat's card or from the palette; closing the editor
 * rejects; the caller writes an accepted change (IdeHost.writeDocument). Per hunk, the proposed
 * document is the only state: the card and the diff editor's revert arrow edit it
 * (src/core/hunkReview.ts). A changed line longer than the editor draws is named on the notification
 * and the card, and an Accept from the title bar or the palette asks first (src/core/renderLimit.ts).
 */
import { randomUUID } from 'node:crypto';
import * as vscode from 'vscode';
import type { DiffOutcome, DiffRequest } from '../../core/host';
import { cardHunks, withHunk, type HunkReview } from '../../core/hunkReview';
import { consent, consentLines, fitConsent, type FittedConsent } from '../../core/consent/consentText';
import { safe, uiText } from '../../core/uiText';
import { MAX_REVIEW_HUNKS, type ChatReview } from '../../protocol/webview';
import { ContextKeys } from '../ids';
import { KeptChanges } from './keptChanges';
import { openDocument, ProposalFileSystem } from './proposalFileSystem';
import * as ui from '../ui';
import { showReviewToast, type ReviewToast } from './reviewToast';

export const DIFF_SCHEME = 'client-tools-diff';

interface Review {
  /** The authority of its documents; the chat's card names the review by it. */
  id: string;
  request: DiffRequest;
  hunks: HunkReview;
  original: vscode.Uri;
  proposed: vscode.Uri;
  settled: boolean;
  /** Its notification, hidden when the review ends another way. */
  toast?: ReviewToast;
  /** Settles when the review ends, which closes its notification. */
  ended: Promise<void>;
  end(): void;
  resolve(outcome: DiffOutcome): void;
  reject(error: unknown): void;
}

export class DiffReviews implements vscode.Disposable {
  private readonly files = new ProposalFileSystem();
  /** Open reviews by the proposed document's URI. */
  private readonly reviews = new Map<string, Review>();
  private readonly changes = new vscode.EventEmitter<ChatReview>();
  /** A review opened, its proposed text changed, or it ended: what the chat's card shows. */
  readonly onDidChangeReview = this.changes.event;
  private readonly disposables: vscode.Disposable[];
  /** Accepted changes, for the card's Open Diff and Undo. */
  private readonly kept = new KeptChanges(this.files, DIFF_SCHEME, (review) => this.changes.fire(review));

  constructor() {
    this.disposables = [
      this.kept,
      this.files,
      vscode.workspace.registerFileSystemProvider(DIFF_SCHEME, this.files, { isCaseSensitive: true }),
      this.changes,
      vscode.window.tabGroups.onDidChangeTabs((e) => {
        for (const tab of e.closed) {
          const uri = proposalShownBy(tab);
          const review = uri ? this.reviews.get(uri.toString()) : undefined;
          if (review) void this.finish(review, { decision: 'rejected' });
        }
      }),
      vscode.workspace.onDidChangeTextDocument((e) => {
        const review = this.reviews.get(e.document.uri.toString());
        if (review) this.publish(review);
      }),
    ];
  }

  /** Reviews waiting for the user. */
  get pending(): number {
    return this.reviews.size;
  }

  open(request: DiffRequest, signal: AbortSignal): Promise<DiffOutcome> {
    if (signal.aborted) return Promise.resolve({ decision: 'rejected' });
    const id = randomUUID();
    const relativePath = `/${request.relative.replace(/^\/+/, '')}`;
    const proposed = vscode.Uri.from({ scheme: DIFF_SCHEME, authority: id, path: relativePath });
    this.files.put(proposed, request.proposed);
    // A new file has no left side: it opens as a plain editor on the proposal.
    const original = request.exists ? vscode.Uri.file(request.path) : proposed;
    let end = () => {};
    const ended = new Promise<void>((r) => (end = r));
    return new Promise<DiffOutcome>((resolve, reject) => {
      const review: Review = { id, request, hunks: request.review, original, proposed, settled: false, ended, end, resolve, reject };
      this.reviews.set(proposed.toString(), review);
      signal.addEventListener('abort', () => void this.finish(review, { decision: 'rejected' }), { once: true });
      this.show(review).catch((error: unknown) => void this.finish(review, error));
    });
  }

  /**
   * Accepts the review named by `target` (a URI, as the editor title passes it), else the active or
   * only one. A review with lines the editor does not draw whole asks first, naming them.
   */
  async accept(target?: unknown): Promise<boolean> {
    const review = this.find(target);
    if (!review) return false;
    if (review.request.warning !== undefined && !(await confirmUnrendered(review.request.relative, review.request.warning))) return false;
    await this.finish(review, { decision: 'accepted', content: this.textOf(review) });
    return true;
  }

  /** Accept or Reject from the chat's card, with the user's reason; false when the review already ended. */
  async decide(reviewId: string, accept: boolean, reason: string | undefined): Promise<boolean> {
    const review = this.byId(reviewId);
    if (!review) return false;
    const why = reason ? { reason } : {};
    await this.finish(review, accept ? { decision: 'accepted', content: this.textOf(review), ...why } : { decision: 'rejected', ...why });
    return true;
  }

  /**
   * Keeps hunk `index` as proposed or takes it back to the file's text, by editing the proposed
   * document (the user sees it happen in the diff). False when the review ended or the user typed
   * into that hunk, which only they can undo.
   */
  async setHunk(reviewId: string, index: number, keep: boolean): Promise<boolean> {
    const review = this.byId(reviewId);
    if (!review) return false;
    const text = this.textOf(review);
    const next = withHunk(review.hunks, text, index, keep);
    if (next === undefined) return false;
    if (next === text) return true;
    const how = await this.files.replaceProposal(review.proposed, next);
    if (how === 'stored') this.publish(review);
    return how !== 'failed';
  }

  private byId(reviewId: string): Review | undefined {
    return [...this.reviews.values()].find((r) => r.id === reviewId);
  }

  /** The proposed side as the user left it: the open document, else the stored text. */
  private textOf(review: Review): string {
    return this.files.proposal(review.proposed);
  }

  /** An accepted review's card: open its change as a diff, or undo it while the file still holds it. */
  keptChange(reviewId: string, action: 'open' | 'undo'): Promise<boolean> {
    if (!this.kept.has(reviewId)) return Promise.resolve(false);
    return action === 'open' ? this.kept.open(reviewId) : this.kept.undo(reviewId);
  }

  /** Tells the chat's card the hunks as the proposed text now holds them (with `accepted`: the text written, kept for Undo). */
  private publish(review: Review, open = !review.settled, accepted?: string): void {
    const hunks = cardHunks(review.hunks, this.textOf(review), (i) => `Hunk ${i + 1}`, MAX_REVIEW_HUNKS);
    const card: ChatReview = {
      recordId: review.request.recordId,
      reviewId: review.id,
      path: review.request.relative,
      newFile: !review.request.exists,
      open,
      hunks,
      moreHunks: Math.max(0, review.hunks.hunks.length - MAX_REVIEW_HUNKS),
      ...(review.request.warning !== undefined ? { warning: review.request.warning } : {}),
    };
    if (accepted === undefined) this.changes.fire(card);
    else this.changes.fire(this.kept.record(card, vscode.Uri.file(review.request.path), review.request.exists ? review.request.current : undefined, accepted));
  }

  async reject(target?: unknown): Promise<boolean> {
    const review = this.find(target);
    if (!review) return false;
    await this.finish(review, { decision: 'rejected' });
    return true;
  }

  dispose(): void {
    for (const review of [...this.reviews.values()]) void this.finish(review, { decision: 'rejected' });
    for (const d of this.disposables) d.dispose();
  }

  private async show(review: Review): Promise<void> {
    if (review.request.exists) {
      await vscode.commands.executeCommand('vscode.diff', review.original, review.proposed, uiText(review.request.title), { preview: false });
    } else {
      await vscode.window.showTextDocument(review.proposed, { preview: false });
    }
    this.updateContext();
    this.publish(review);
    if (review.settled) return;
    // The message names the request's path, which the backend chose: through the door, or a path like
    // `a[x](command:…).txt` becomes a link in the notification.
    const count = review.hunks.hunks.length;
    const what = review.request.exists ? `${review.request.message.replace(/\.$/, '')} (${count} hunk${count === 1 ? '' : 's'}).` : review.request.message;
    const warned = review.request.warning !== undefined ? safe`⚠ ${uiText(review.request.warning)} ` : safe``;
    const title = review.request.exists
      ? safe`${warned}${uiText(what)} Accept or Reject it here, in the editor's title bar, or in the chat, where you can also keep or reject each hunk.`
      : safe`${warned}${uiText(what)} Accept or Reject it here, in the editor's title bar, or in the chat.`;
    const [accept, reject] = [safe`Accept`, safe`Reject`];
    // Bound to this review: a late click (from the notification centre) does nothing.
    review.toast = showReviewToast(title, accept, reject, (accepted) => {
      void this.finish(review, accepted ? { decision: 'accepted', content: this.textOf(review) } : { decision: 'rejected' });
    });
  }

  /** Whether `target` (a URI from the title bar) or else the active editor is one of these reviews. */
  shows(target: unknown): boolean {
    return this.shown(target) !== undefined;
  }

  private find(target: unknown): Review | undefined {
    return this.shown(target) ?? (this.reviews.size === 1 ? [...this.reviews.values()][0] : undefined);
  }

  private shown(target: unknown): Review | undefined {
    if (target instanceof vscode.Uri) {
      const named = this.reviews.get(target.toString());
      if (named) return named;
    }
    const tab = vscode.window.tabGroups.activeTabGroup.activeTab;
    const shown = tab ? proposalShownBy(tab) : undefined;
    return shown ? this.reviews.get(shown.toString()) : undefined;
  }

  /** Ends a review once: closes its diff (keeping the user's edits from a "save?" question), then answers. */
  private async finish(review: Review, outcome: DiffOutcome | unknown): Promise<void> {
    if (review.settled) return;
    review.settled = true;
    review.toast?.ended();
    this.reviews.delete(review.proposed.toString());
    this.updateContext();
    try {
      this.publish(review, false, isOutcome(outcome) && outcome.decision === 'accepted' ? (outcome.content ?? this.textOf(review)) : undefined);
      const doc = openDocument(review.proposed);
      if (doc?.isDirty) await doc.save();
      const tabs = vscode.window.tabGroups.all
        .flatMap((g) => g.tabs)
        .filter((t) => proposalShownBy(t)?.toString() === review.proposed.toString());
      if (tabs.length > 0) await vscode.window.tabGroups.close(tabs, true);
    } catch {
      // The diff may already be gone; the answer matters more.
    } finally {
      this.files.remove(review.proposed);
      this.files.remove(review.original);
      review.end();
      if (isOutcome(outcome)) review.resolve(outcome);
      else review.reject(outcome);
    }
  }

  private updateContext(): void {
    void vscode.commands.executeCommand('setContext', ContextKeys.diffPending, this.reviews.size > 0);
  }
}

const ACCEPT_ANYWAY = safe`Accept Anyway`;

/**
 * Accept from the title bar or the palette, where the warning may not have been read: a modal that
 * names the lines first (consent text, measured for the modal). One too long for the modal is not
 * accepted from here; the card and the notification name the lines too. `relative` names what is
 * changed: a file, or "3 files".
 */
export async function confirmUnrendered(relative: string, warning: string): Promise<boolean> {
  let text: FittedConsent;
  try {
    text = fitConsent({
      message: consent`Accept the proposed changes to ${relative}?`,
      detail: consentLines([consent`${warning}`, consent`Reject instead if you want to see those lines first, or ask the agent to break them up.`], '\n\n'),
    }, 'modal');
  } catch {
    void ui.showWarning(safe`Client Tools: not accepted: the lines of ${uiText(relative)} the editor does not draw do not fit a dialog; accept from the chat's card, which names them.`);
    return false;
  }
  return (await ui.showModalItems(text, [{ title: ACCEPT_ANYWAY, value: true }]))?.value === true;
}

/** The proposed document a tab shows: a diff's right side, or the plain editor of a new file's proposal. */
function proposalShownBy(tab: vscode.Tab): vscode.Uri | undefined {
  if (tab.input instanceof vscode.TabInputTextDiff) return tab.input.modified;
  if (tab.input instanceof vscode.TabInputText && tab.input.uri.scheme === DIFF_SCHEME) return tab.input.uri;
  return undefined;
}

function isOutcome(v: unknown): v is DiffOutcome {
  return typeof v === 'object' && v !== null && 'decision' in v;
}
