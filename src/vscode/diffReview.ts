/**
 * Diff reviews for OpenDiff: VS Code's diff editor between the file and the proposed content, which
 * lives in a small in-memory file system (scheme `client-tools-diff`) so that the user can edit it
 * like any file. The user decides with Accept or Reject in the diff editor's title bar or from the
 * palette (`clientTools.acceptDiff` / `clientTools.rejectDiff`); closing the diff, or Cancel on the
 * review's notification, rejects it. Writing an accepted change is the caller's job
 * (IdeHost.writeDocument).
 *
 * The notification is a progress notification, not a message with buttons: VS Code lets no extension
 * close a message, so one with Accept/Reject would stay on screen, its buttons dead, after the review
 * ended some other way. A progress notification closes when its task settles, which is when the
 * review ends, however it ends.
 *
 * A proposal's URI is `client-tools-diff://<review id>/<workspace-relative path>`: the breadcrumb
 * shows the path (`src › a.ts`), and the id in the authority keeps every review's documents apart,
 * two files named alike as well as a later review of the same file.
 */
import { randomUUID } from 'node:crypto';
import * as vscode from 'vscode';
import type { DiffOutcome, DiffRequest } from '../core/host';
import { safe, uiText } from '../core/uiText';
import { ContextKeys } from './ids';
import * as ui from './ui';

export const DIFF_SCHEME = 'client-tools-diff';

interface Review {
  request: DiffRequest;
  original: vscode.Uri;
  proposed: vscode.Uri;
  settled: boolean;
  /** Settles when the review ends, which closes its notification. */
  ended: Promise<void>;
  end(): void;
  resolve(outcome: DiffOutcome): void;
  reject(error: unknown): void;
}

export class DiffReviews implements vscode.Disposable {
  private readonly files = new MemoryFileSystem();
  /** Open reviews by the proposed document's URI. */
  private readonly reviews = new Map<string, Review>();
  private readonly disposables: vscode.Disposable[];

  constructor() {
    this.disposables = [
      this.files,
      vscode.workspace.registerFileSystemProvider(DIFF_SCHEME, this.files, { isCaseSensitive: true }),
      vscode.window.tabGroups.onDidChangeTabs((e) => {
        for (const tab of e.closed) {
          const review = tab.input instanceof vscode.TabInputTextDiff ? this.reviews.get(tab.input.modified.toString()) : undefined;
          if (review) void this.finish(review, { decision: 'rejected' });
        }
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
    let original = vscode.Uri.file(request.path);
    if (!request.exists) {
      original = vscode.Uri.from({ scheme: DIFF_SCHEME, authority: `${id}.original`, path: relativePath });
      this.files.put(original, '');
    }
    let end = () => {};
    const ended = new Promise<void>((r) => (end = r));
    return new Promise<DiffOutcome>((resolve, reject) => {
      const review: Review = { request, original, proposed, settled: false, ended, end, resolve, reject };
      this.reviews.set(proposed.toString(), review);
      signal.addEventListener('abort', () => void this.finish(review, { decision: 'rejected' }), { once: true });
      this.show(review).catch((error: unknown) => void this.finish(review, error));
    });
  }

  /** Accepts the review named by `target` (a URI, as the editor title passes it), else the active or only one. */
  async accept(target?: unknown): Promise<boolean> {
    const review = this.find(target);
    if (!review) return false;
    const doc = vscode.workspace.textDocuments.find((d) => d.uri.toString() === review.proposed.toString());
    const content = doc ? doc.getText() : this.files.text(review.proposed);
    await this.finish(review, { decision: 'accepted', content });
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

  private async show(review: Review): Promise<void> {
    await vscode.commands.executeCommand('vscode.diff', review.original, review.proposed, uiText(review.request.title), { preview: false });
    this.updateContext();
    if (review.settled) return;
    // The message names the request's path, which the backend chose: through the door, or a path like
    // `a[x](command:…).txt` becomes a link in the notification.
    const title = safe`${uiText(review.request.message)} ✓ Accept or ✗ Reject it in the diff editor's title bar or the palette; Cancel rejects.`;
    void ui.withNotificationProgress(title, true, async (token) => {
      const onCancel = token.onCancellationRequested(() => void this.finish(review, { decision: 'rejected' }));
      try {
        await review.ended;
      } finally {
        onCancel.dispose();
      }
    });
  }

  private find(target: unknown): Review | undefined {
    if (target instanceof vscode.Uri) {
      const named = this.reviews.get(target.toString());
      if (named) return named;
    }
    const input = vscode.window.tabGroups.activeTabGroup.activeTab?.input;
    if (input instanceof vscode.TabInputTextDiff) {
      const active = this.reviews.get(input.modified.toString());
      if (active) return active;
    }
    return this.reviews.size === 1 ? [...this.reviews.values()][0] : undefined;
  }

  /** Ends a review once: closes its diff (keeping the user's edits from a "save?" question), then answers. */
  private async finish(review: Review, outcome: DiffOutcome | unknown): Promise<void> {
    if (review.settled) return;
    review.settled = true;
    this.reviews.delete(review.proposed.toString());
    this.updateContext();
    try {
      const doc = vscode.workspace.textDocuments.find((d) => d.uri.toString() === review.proposed.toString());
      if (doc?.isDirty) await doc.save();
      const tabs = vscode.window.tabGroups.all
        .flatMap((g) => g.tabs)
        .filter((t) => t.input instanceof vscode.TabInputTextDiff && t.input.modified.toString() === review.proposed.toString());
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

function isOutcome(v: unknown): v is DiffOutcome {
  return typeof v === 'object' && v !== null && 'decision' in v;
}

/**
 * A flat in-memory file system holding the two sides of open reviews, keyed by authority and path (the
 * authority is a review's own); folders are implied by paths.
 */
class MemoryFileSystem implements vscode.FileSystemProvider, vscode.Disposable {
  private readonly entries = new Map<string, { data: Uint8Array; ctime: number; mtime: number }>();
  private readonly changes = new vscode.EventEmitter<vscode.FileChangeEvent[]>();
  readonly onDidChangeFile = this.changes.event;

  put(uri: vscode.Uri, text: string): void {
    const now = Date.now();
    this.entries.set(key(uri), { data: new TextEncoder().encode(text), ctime: now, mtime: now });
  }

  text(uri: vscode.Uri): string {
    const entry = this.entries.get(key(uri));
    return entry ? new TextDecoder().decode(entry.data) : '';
  }

  remove(uri: vscode.Uri): void {
    this.entries.delete(key(uri));
  }

  watch(): vscode.Disposable {
    return new vscode.Disposable(() => undefined);
  }

  stat(uri: vscode.Uri): vscode.FileStat {
    const entry = this.entries.get(key(uri));
    if (entry) return { type: vscode.FileType.File, ctime: entry.ctime, mtime: entry.mtime, size: entry.data.byteLength };
    const prefix = key(uri).endsWith('/') ? key(uri) : `${key(uri)}/`;
    if ([...this.entries.keys()].some((k) => k.startsWith(prefix))) return { type: vscode.FileType.Directory, ctime: 0, mtime: 0, size: 0 };
    throw vscode.FileSystemError.FileNotFound(uri);
  }

  readDirectory(uri: vscode.Uri): [string, vscode.FileType][] {
    const prefix = key(uri).endsWith('/') ? key(uri) : `${key(uri)}/`;
    const names = new Map<string, vscode.FileType>();
    for (const key of this.entries.keys()) {
      if (!key.startsWith(prefix)) continue;
      const [first, ...rest] = key.slice(prefix.length).split('/');
      names.set(first, rest.length > 0 ? vscode.FileType.Directory : vscode.FileType.File);
    }
    return [...names];
  }

  createDirectory(): void {
    // Folders exist implicitly.
  }

  readFile(uri: vscode.Uri): Uint8Array {
    const entry = this.entries.get(key(uri));
    if (!entry) throw vscode.FileSystemError.FileNotFound(uri);
    return entry.data;
  }

  writeFile(uri: vscode.Uri, content: Uint8Array): void {
    const old = this.entries.get(key(uri));
    // Only the documents of open reviews can be saved; anything else is refused.
    if (!old) throw vscode.FileSystemError.NoPermissions(uri);
    this.entries.set(key(uri), { data: content, ctime: old.ctime, mtime: Date.now() });
    this.changes.fire([{ type: vscode.FileChangeType.Changed, uri }]);
  }

  delete(uri: vscode.Uri): void {
    this.entries.delete(key(uri));
  }

  rename(oldUri: vscode.Uri): void {
    throw vscode.FileSystemError.NoPermissions(oldUri);
  }

  dispose(): void {
    this.entries.clear();
    this.changes.dispose();
  }
}

/** Where an entry lives: a review's authority and the path in it. */
function key(uri: vscode.Uri): string {
  return `//${uri.authority.toLowerCase()}${uri.path}`;
}
