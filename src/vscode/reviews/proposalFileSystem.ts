/**
 * A flat in-memory file system for proposals under review (OpenDiff's and the Language group's
 * multi-file changes): each review's documents live under its own authority, keyed by authority and
 * path, so the user can edit them like files; folders are implied by paths. Only documents of open
 * reviews can be saved; anything else is refused. The proposed side as the user left it is its open
 * document's text, else what is stored (`proposal`, `replaceProposal`).
 */
import * as vscode from 'vscode';

export class ProposalFileSystem implements vscode.FileSystemProvider, vscode.Disposable {
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

  /** A proposal's text as the user left it: its open document (edits included), else what is stored. */
  proposal(uri: vscode.Uri): string {
    return openDocument(uri)?.getText() ?? this.text(uri);
  }

  /**
   * Replaces a proposal's text: by editing its open document (the user sees it happen, and the
   * document's change event follows), else in the store ('stored': no event follows). 'failed' when
   * the editor refused the edit.
   */
  async replaceProposal(uri: vscode.Uri, text: string): Promise<'edited' | 'stored' | 'failed'> {
    const doc = openDocument(uri);
    if (!doc) {
      this.put(uri, text);
      return 'stored';
    }
    const edit = new vscode.WorkspaceEdit();
    edit.replace(doc.uri, new vscode.Range(0, 0, doc.lineCount, 0), text);
    return (await vscode.workspace.applyEdit(edit)) ? 'edited' : 'failed';
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

/** The open document of a proposal, if the user has it open. */
export function openDocument(uri: vscode.Uri): vscode.TextDocument | undefined {
  return vscode.workspace.textDocuments.find((d) => d.uri.toString() === uri.toString());
}

/** Where an entry lives: a review's authority and the path in it. */
function key(uri: vscode.Uri): string {
  return `//${uri.authority.toLowerCase()}${uri.path}`;
}
