/**
 * Reviews of a change to several files at once (RenameSymbol, ApplyCodeAction): VS Code's multi-file
 * diff editor over every file, each proposed side an editable document in an in-memory file system
 * (scheme `client-tools-changes`, one authority per review), one decision for the whole change. The
 * user keeps or rejects each hunk of each file on the call's card in the chat (the hunks are listed
 * file by file, each named after its file), or edits or reverts in the diff editor, and accepts or
 * rejects on the card, on the notification or from the palette (`clientTools.acceptDiff` /
 * `clientTools.rejectDiff`, which also decide these). As with OpenDiff the proposed documents are the
 * only state, and writing what was accepted is the caller's job.
 *
 * The multi-file diff editor has no tab type in the stable API: closing it does not reject the
 * change (the card and the notification still decide it); it is closed when the review ends.
 *
 * As with OpenDiff, changed lines longer than the editor draws are named, by file and line, first on
 * the notification and on the card, and an Accept from the title bar or the palette asks first in a
 * modal naming them (src/core/renderLimit.ts).
 */
import { randomUUID } from 'node:crypto';
import * as vscode from 'vscode';
import type { ChangeReviewOutcome, ChangeReviewRequest } from '../../core/host';
import { cardHunks, locateHunk, withHunk, type HunkReview } from '../../core/hunkReview';
import { clipStart, safe, uiText } from '../../core/uiText';
import { MAX_REVIEW_HUNKS, type ChatReview } from '../../protocol/webview';
import { confirmUnrendered } from './diffReview';
import { ContextKeys } from '../ids';
import { openDocument, ProposalFileSystem } from './proposalFileSystem';
import { showReviewToast, type ReviewToast } from './reviewToast';

export const CHANGES_SCHEME = 'client-tools-changes';

interface ReviewedFile {
  relative: string;
  hunks: HunkReview;
  original: vscode.Uri;
  proposed: vscode.Uri;
}

interface Review {
  id: string;
  request: ChangeReviewRequest;
  files: ReviewedFile[];
  settled: boolean;
  /** Its notification, hidden when the review ends another way. */
  toast?: ReviewToast;
  resolve(outcome: ChangeReviewOutcome): void;
}

export class ChangeReviews implements vscode.Disposable {
  private readonly files = new ProposalFileSystem();
  private readonly reviews = new Map<string, Review>();
  private readonly changes = new vscode.EventEmitter<ChatReview>();
  /** A review opened, one of its proposed texts changed, or it ended: what the chat's card shows. */
  readonly onDidChangeReview = this.changes.event;
  private readonly disposables: vscode.Disposable[];

  constructor() {
    this.disposables = [
      this.files,
      vscode.workspace.registerFileSystemProvider(CHANGES_SCHEME, this.files, { isCaseSensitive: true }),
      this.changes,
      vscode.workspace.onDidChangeTextDocument((e) => {
        const review = e.document.uri.scheme === CHANGES_SCHEME ? this.reviews.get(e.document.uri.authority) : undefined;
        if (review) this.publish(review);
      }),
    ];
  }

  get pending(): number {
    return this.reviews.size;
  }

  open(request: ChangeReviewRequest, signal: AbortSignal): Promise<ChangeReviewOutcome> {
    if (signal.aborted) return Promise.resolve({ decision: 'rejected' });
    const id = randomUUID();
    const files = request.files.map((f): ReviewedFile => {
      const proposed = vscode.Uri.from({ scheme: CHANGES_SCHEME, authority: id, path: `/${f.relative.replace(/^\/+/, '')}` });
      this.files.put(proposed, f.proposed);
      return { relative: f.relative, hunks: f.review, original: vscode.Uri.file(f.path), proposed };
    });
    return new Promise<ChangeReviewOutcome>((resolve) => {
      const review: Review = { id, request, files, settled: false, resolve };
      this.reviews.set(id, review);
      signal.addEventListener('abort', () => void this.finish(review, { decision: 'rejected' }), { once: true });
      this.show(review).catch(() => void this.finish(review, { decision: 'rejected' }));
    });
  }

  /** Accept or Reject from the chat's card; false when the review is not one of these or has ended. */
  async decide(reviewId: string, accept: boolean, reason: string | undefined): Promise<boolean> {
    const review = this.reviews.get(reviewId);
    if (!review) return false;
    const why = reason ? { reason } : {};
    await this.finish(review, accept ? { decision: 'accepted', contents: this.contentsOf(review), ...why } : { decision: 'rejected', ...why });
    return true;
  }

  /** Keeps or takes back hunk `index`, counted across the files in order, by editing that file's proposed document. */
  async setHunk(reviewId: string, index: number, keep: boolean): Promise<boolean> {
    const review = this.reviews.get(reviewId);
    if (!review) return false;
    const at = locateHunk(review.files.map((f) => f.hunks.hunks.length), index);
    if (!at) return false;
    const file = review.files[at.file];
    const text = this.textOf(file);
    const next = withHunk(file.hunks, text, at.hunk, keep);
    if (next === undefined) return false;
    if (next === text) return true;
    const how = await this.files.replaceProposal(file.proposed, next);
    if (how === 'stored') this.publish(review);
    return how !== 'failed';
  }

  /**
   * The palette's and the title bar's Accept: the review named by a proposed document's URI, the
   * active one, or the only one. A review with lines the editor does not draw whole asks first, naming them.
   */
  async accept(target?: unknown): Promise<boolean> {
    const review = this.find(target);
    if (!review) return false;
    const { warning } = review.request;
    if (warning !== undefined && !(await confirmUnrendered(reviewedFiles(review), warning))) return false;
    await this.finish(review, { decision: 'accepted', contents: this.contentsOf(review) });
    return true;
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

  /** Whether `target` (a URI from the title bar) or else the active editor (one of its documents, or its multi-file diff editor) is one of these reviews. */
  shows(target: unknown): boolean {
    return this.shown(target) !== undefined;
  }

  private find(target: unknown): Review | undefined {
    return this.shown(target) ?? (this.reviews.size === 1 ? [...this.reviews.values()][0] : undefined);
  }

  private shown(target: unknown): Review | undefined {
    if (target instanceof vscode.Uri && target.scheme === CHANGES_SCHEME) return this.reviews.get(target.authority);
    const tab = vscode.window.tabGroups.activeTabGroup.activeTab;
    if (!tab) return undefined;
    return [...this.reviews.values()].find((r) => showsReview(tab, r.id, uiText(r.request.title).toString()));
  }

  private textOf(file: ReviewedFile): string {
    return this.files.proposal(file.proposed);
  }

  private contentsOf(review: Review): string[] {
    return review.files.map((f) => this.textOf(f));
  }

  private async show(review: Review): Promise<void> {
    const title = uiText(review.request.title);
    const resources = review.files.map((f) => [f.original, f.original, f.proposed] as const);
    try {
      await vscode.commands.executeCommand('vscode.changes', title, resources);
    } catch {
      // No multi-file diff editor in this VS Code: one diff per file.
      for (const f of review.files) await vscode.commands.executeCommand('vscode.diff', f.original, f.proposed, uiText(`${f.relative} ↔ ${review.request.title}`), { preview: false });
    }
    this.updateContext();
    this.publish(review);
    if (review.settled) return;
    const count = review.files.reduce((n, f) => n + f.hunks.hunks.length, 0);
    const what = `${review.request.message.replace(/\.$/, '')} (${review.files.length} file${review.files.length === 1 ? '' : 's'}, ${count} hunk${count === 1 ? '' : 's'}).`;
    // The warning first, so that VS Code's cut of a long notification never takes it.
    const warned = review.request.warning !== undefined ? safe`⚠ ${uiText(review.request.warning)} ` : safe``;
    const [accept, reject] = [safe`Accept`, safe`Reject`];
    // Bound to this review: once it has ended another way, a late click does nothing.
    review.toast = showReviewToast(safe`${warned}${uiText(what)} Accept or Reject it here or in the chat, where you can also keep or reject each hunk.`, accept, reject, (accepted) => {
      void this.finish(review, accepted ? { decision: 'accepted', contents: this.contentsOf(review) } : { decision: 'rejected' });
    });
  }

  /** Tells the chat's card the hunks of every file, in order, as the proposed texts now hold them. */
  private publish(review: Review, open = !review.settled): void {
    const hunks = review.files.flatMap((f) => cardHunks(f.hunks, this.textOf(f), (i) => clipStart(`${f.relative}, hunk ${i + 1}`, 100), MAX_REVIEW_HUNKS));
    const names = review.files.map((f) => f.relative);
    this.changes.fire({
      recordId: review.request.recordId,
      reviewId: review.id,
      path: clipStart(names.length === 1 ? names[0] : `${names.length} files (${clipNames(names)})`, 1000),
      newFile: false,
      open,
      hunks: hunks.slice(0, MAX_REVIEW_HUNKS),
      moreHunks: Math.max(0, hunks.length - MAX_REVIEW_HUNKS),
      ...(review.request.warning !== undefined ? { warning: review.request.warning } : {}),
    });
  }

  /** Ends a review once: closes its editors, then answers. */
  private async finish(review: Review, outcome: ChangeReviewOutcome): Promise<void> {
    if (review.settled) return;
    review.settled = true;
    review.toast?.ended();
    this.reviews.delete(review.id);
    this.updateContext();
    try {
      this.publish(review, false);
      for (const f of review.files) {
        const doc = openDocument(f.proposed);
        if (doc?.isDirty) await doc.save();
      }
      const title = uiText(review.request.title).toString();
      const tabs = vscode.window.tabGroups.all.flatMap((g) => g.tabs).filter((t) => showsReview(t, review.id, title));
      if (tabs.length > 0) await vscode.window.tabGroups.close(tabs, true);
    } catch {
      // The editors may already be gone; the answer matters more.
    } finally {
      for (const f of review.files) this.files.remove(f.proposed);
      review.resolve(outcome);
    }
  }

  private updateContext(): void {
    void vscode.commands.executeCommand('setContext', ContextKeys.changesPending, this.reviews.size > 0);
  }
}

/**
 * A tab of this review: a diff or editor of one of its documents, or the multi-file diff editor
 * (a tab type the stable API does not name: its input lists `textDiffs`, and its label is the title
 * with VS Code's count of files after it, "Rename to b (2 files)").
 */
function showsReview(tab: vscode.Tab, reviewId: string, title: string): boolean {
  const input = tab.input;
  const ours = (uri: unknown) => uri instanceof vscode.Uri && uri.scheme === CHANGES_SCHEME && uri.authority === reviewId;
  if (input instanceof vscode.TabInputTextDiff) return ours(input.modified);
  if (input instanceof vscode.TabInputText) return ours(input.uri);
  const known = [vscode.TabInputNotebook, vscode.TabInputNotebookDiff, vscode.TabInputCustom, vscode.TabInputWebview, vscode.TabInputTerminal];
  if (input === undefined || input === null || known.some((k) => input instanceof k)) return false;
  const textDiffs = (input as { textDiffs?: unknown }).textDiffs;
  if (Array.isArray(textDiffs)) return textDiffs.some((d: { modified?: unknown } | null) => ours(d?.modified));
  return tab.label === title || tab.label.startsWith(`${title} (`);
}

/** What the review changes, as the modal names it: its one file, or how many. */
function reviewedFiles(review: Review): string {
  return review.files.length === 1 ? review.files[0].relative : `${review.files.length} files`;
}

function clipNames(names: readonly string[]): string {
  const shown = names.slice(0, 5).join(', ');
  return names.length > 5 ? `${shown}, … and ${names.length - 5} more` : shown;
}
