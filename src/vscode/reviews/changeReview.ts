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
 */
import { randomUUID } from 'node:crypto';
import * as vscode from 'vscode';
import { cutWithNote } from '../../protocol/textCut';
import type { ChangeReviewOutcome, ChangeReviewRequest } from '../../core/host';
import { hunkReview, locateHunk, readReviewedText, withHunk, type HunkReview } from '../../core/hunkReview';
import { safe, uiText } from '../../core/uiText';
import { MAX_HUNK_PREVIEW, MAX_REVIEW_HUNKS, type ChatReview } from '../../protocol/webview';
import { ContextKeys } from '../ids';
import { ProposalFileSystem } from './proposalFileSystem';
import * as ui from '../ui';

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
      return { relative: f.relative, hunks: hunkReview(f.current, f.proposed), original: vscode.Uri.file(f.path), proposed };
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
    const doc = this.documentOf(file);
    if (!doc) {
      this.files.put(file.proposed, next);
      this.publish(review);
      return true;
    }
    const edit = new vscode.WorkspaceEdit();
    edit.replace(doc.uri, new vscode.Range(0, 0, doc.lineCount, 0), next);
    return vscode.workspace.applyEdit(edit);
  }

  /** The palette's and the title bar's Accept: the review named by a proposed document's URI, the active one, or the only one. */
  async accept(target?: unknown): Promise<boolean> {
    const review = this.find(target);
    if (!review) return false;
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

  private find(target: unknown): Review | undefined {
    if (target instanceof vscode.Uri && target.scheme === CHANGES_SCHEME) return this.reviews.get(target.authority);
    const input = vscode.window.tabGroups.activeTabGroup.activeTab?.input;
    const shown = input instanceof vscode.TabInputTextDiff ? input.modified : input instanceof vscode.TabInputText ? input.uri : undefined;
    if (shown?.scheme === CHANGES_SCHEME) return this.reviews.get(shown.authority);
    return this.reviews.size === 1 ? [...this.reviews.values()][0] : undefined;
  }

  private documentOf(file: ReviewedFile): vscode.TextDocument | undefined {
    return vscode.workspace.textDocuments.find((d) => d.uri.toString() === file.proposed.toString());
  }

  private textOf(file: ReviewedFile): string {
    return this.documentOf(file)?.getText() ?? this.files.text(file.proposed);
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
    const [accept, reject] = [safe`Accept`, safe`Reject`];
    void ui.showInfo(safe`${uiText(what)} Accept or Reject it here or in the chat, where you can also keep or reject each hunk.`, accept, reject).then((choice) => {
      // Bound to this review: once it has ended another way, a late click does nothing.
      if (choice === accept) void this.finish(review, { decision: 'accepted', contents: this.contentsOf(review) });
      else if (choice === reject) void this.finish(review, { decision: 'rejected' });
    });
  }

  /** Tells the chat's card the hunks of every file, in order, as the proposed texts now hold them. */
  private publish(review: Review, open = !review.settled): void {
    const side = (lines: readonly string[], start: number, end: number) => clip(lines.slice(start, Math.min(end, start + 200)).join(''));
    const hunks = review.files.flatMap((f) => {
      const { states } = readReviewedText(f.hunks, this.textOf(f));
      return f.hunks.hunks.map((h, i) => ({
        header: clipStart(`${f.relative}, hunk ${i + 1}`, 100),
        removed: side(f.hunks.original, h.aStart, h.aEnd),
        added: side(f.hunks.proposal, h.bStart, h.bEnd),
        state: states[i],
      }));
    });
    const names = review.files.map((f) => f.relative);
    this.changes.fire({
      recordId: review.request.recordId,
      reviewId: review.id,
      path: clipStart(names.length === 1 ? names[0] : `${names.length} files (${clipNames(names)})`, 1000),
      newFile: false,
      open,
      hunks: hunks.slice(0, MAX_REVIEW_HUNKS),
      moreHunks: Math.max(0, hunks.length - MAX_REVIEW_HUNKS),
    });
  }

  /** Ends a review once: closes its editors, then answers. */
  private async finish(review: Review, outcome: ChangeReviewOutcome): Promise<void> {
    if (review.settled) return;
    review.settled = true;
    this.reviews.delete(review.id);
    this.updateContext();
    try {
      this.publish(review, false);
      for (const f of review.files) {
        const doc = this.documentOf(f);
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

/** A tab of this review: a diff or editor of one of its documents, or the multi-file diff editor with its title (a tab type the stable API does not name). */
function showsReview(tab: vscode.Tab, reviewId: string, title: string): boolean {
  const input = tab.input;
  const ours = (uri: vscode.Uri) => uri.scheme === CHANGES_SCHEME && uri.authority === reviewId;
  if (input instanceof vscode.TabInputTextDiff) return ours(input.modified);
  if (input instanceof vscode.TabInputText) return ours(input.uri);
  const known = [vscode.TabInputNotebook, vscode.TabInputNotebookDiff, vscode.TabInputCustom, vscode.TabInputWebview, vscode.TabInputTerminal];
  return input !== undefined && !known.some((k) => input instanceof k) && tab.label === title;
}

function clip(text: string): string {
  // The note names the original's size and fits in the schema's 100 characters over the preview.
  return cutWithNote(text, MAX_HUNK_PREVIEW - 60);
}

function clipNames(names: readonly string[]): string {
  const shown = names.slice(0, 5).join(', ');
  return names.length > 5 ? `${shown}, … and ${names.length - 5} more` : shown;
}

/** The end of a text that must fit in `max` characters (a path's end names the file). */
function clipStart(text: string, max: number): string {
  return text.length <= max ? text : `…${text.slice(text.length - max + 1)}`;
}
