/**
 * The changes accepted in OpenDiff reviews, kept so the call's card in the chat can show one again
 * (a diff editor between the text before it and the file as it is now) and undo it. Undo writes the
 * text before only while the file still holds exactly what was accepted: it never throws away what
 * was typed or written since. The text before lives in the proposal file system, under
 * `<review id>-before`, for at most MAX_KEPT changes.
 */
import * as vscode from 'vscode';
import { safe, uiText } from '../../core/uiText';
import type { ChatReview } from '../../protocol/webview';
import type { ProposalFileSystem } from './proposalFileSystem';
import { writeIfUnchanged } from './guardedWrite';
import * as ui from '../ui';

const MAX_KEPT = 50;

interface Kept {
  file: vscode.Uri;
  /** The text before, as a document of the proposal file system; none for a new file. */
  before: vscode.Uri | undefined;
  beforeText: string;
  after: string;
  card: ChatReview;
}

export class KeptChanges implements vscode.Disposable {
  private readonly kept = new Map<string, Kept>();

  constructor(
    private readonly files: ProposalFileSystem,
    private readonly scheme: string,
    /** Sends the card its review again (now `change: 'undone'`). */
    private readonly publish: (review: ChatReview) => void,
  ) {}

  /** An accepted review's change: `after` is what is written over `beforeText` (none: a new file). Returns the card to send. */
  record(card: ChatReview, file: vscode.Uri, beforeText: string | undefined, after: string): ChatReview {
    const before = beforeText === undefined ? undefined : vscode.Uri.from({ scheme: this.scheme, authority: `${card.reviewId}-before`, path: `/${card.path.replace(/^\/+/, '')}` });
    if (before) this.files.put(before, beforeText ?? '');
    const kept: ChatReview = { ...card, change: 'kept' };
    this.kept.set(card.reviewId, { file, before, beforeText: beforeText ?? '', after, card: kept });
    for (const id of [...this.kept.keys()].slice(0, Math.max(0, this.kept.size - MAX_KEPT))) this.forget(id);
    return kept;
  }

  has(reviewId: string): boolean {
    return this.kept.has(reviewId);
  }

  /** Opens the change: a diff editor from the text before to the file now (a new file opens as itself). */
  async open(reviewId: string): Promise<boolean> {
    const k = this.kept.get(reviewId);
    if (!k) return false;
    if (!k.before) await vscode.window.showTextDocument(k.file, { preview: true });
    else await vscode.commands.executeCommand('vscode.diff', k.before, k.file, `${k.card.path}: before the accepted change ↔ now`, { preview: true });
    return true;
  }

  /** Puts the text before back (a new file is deleted), only while the file holds exactly what was accepted. */
  async undo(reviewId: string): Promise<boolean> {
    const k = this.kept.get(reviewId);
    if (!k || k.card.change !== 'kept') return false;
    const outcome = await writeIfUnchanged(k.file, k.after, k.before ? k.beforeText : null);
    if (outcome === 'changed') {
      void ui.showWarning(safe`Client Tools: ${uiText(k.card.path)} changed after the change was accepted, so it was not undone. Open the diff to compare.`);
      return false;
    }
    if (outcome === 'failed') return false;
    k.card = { ...k.card, change: 'undone' };
    this.publish(k.card);
    return true;
  }

  dispose(): void {
    for (const id of [...this.kept.keys()]) this.forget(id);
  }

  private forget(reviewId: string): void {
    const k = this.kept.get(reviewId);
    if (k?.before) this.files.remove(k.before);
    this.kept.delete(reviewId);
  }
}
