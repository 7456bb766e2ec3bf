import * as vscode from 'vscode';
import type {
  CallInfo, ChangeReviewOutcome, ChangeReviewRequest, CodeActionInfo, DeleteOptions, DiffOutcome, DiffRequest, FileDiagnostics, FileStat, IdeHost,
  LocationQuery, MessageSeverity, OpenedFile, OpenFileOptions, QuestionCall, RunCommandRequest,
  RunCommandResult, SelectionInfo, SourceLocation, SourcePosition, SymbolInfo, TextRange, WorkspaceChange, WorkspaceFolder,
} from '../../core/host';
import { uiText } from '../../core/uiText';
import { ChangeReviews } from '../reviews/changeReview';
import { readProtectedPatterns } from '../settings/config';
import { DiffReviews } from '../reviews/diffReview';
import { PendingQuestions } from './pendingQuestions';
import * as editorHost from './editorHost';
import * as gitHost from './gitHost';
import { LanguageHost } from './languageHost';
import { TerminalRunner } from './terminalRunner';
import { watchCommandWrites } from './commandWriteWatch';
import * as ui from '../ui';
import * as searchHost from './searchHost';
import * as tasksHost from './tasksHost';
import * as workspaceHost from './workspaceHost';

/**
 * `IdeHost` on the real VS Code API. The only place tools reach the editor through: the workspace
 * and the IDE group's part here, the other groups' parts in their own files. Permission prompts are
 * not the host's (src/vscode/prompts/).
 */
export class VsCodeIdeHost implements IdeHost, vscode.Disposable {
  /** ShowMessage questions waiting for an answer; the chat answers them too. */
  readonly questions = new PendingQuestions();

  workspaceFolders(): readonly WorkspaceFolder[] {
    return workspaceHost.fileWorkspaceFolders();
  }

  isTrusted(): boolean {
    return vscode.workspace.isTrusted;
  }

  protectedPatterns(): readonly string[] {
    return readProtectedPatterns();
  }

  async openFile(absPath: string, options: OpenFileOptions): Promise<OpenedFile> {
    const doc = await vscode.workspace.openTextDocument(vscode.Uri.file(absPath));
    const selection = options.selection ? clampRange(doc, options.selection) : undefined;
    const editor = await vscode.window.showTextDocument(doc, { preview: options.preview, selection, preserveFocus: false });
    if (selection) editor.revealRange(selection, vscode.TextEditorRevealType.InCenterIfOutsideViewport);
    return { language: doc.languageId, lineCount: doc.lineCount };
  }

  async getSelection(): Promise<SelectionInfo | undefined> {
    const editor = vscode.window.activeTextEditor;
    if (!editor) return undefined;
    const { document, selection } = editor;
    return {
      path: document.uri.scheme === 'file' ? document.uri.fsPath : undefined,
      uri: document.uri.toString(),
      language: document.languageId,
      selection: toRange(selection),
      text: document.getText(selection),
      isEmpty: selection.isEmpty,
    };
  }

  async showMessage(text: string, severity: MessageSeverity, buttons: readonly string[], question?: QuestionCall): Promise<string | undefined> {
    // ShowMessage sanitised already; the door again (idempotent) because IdeHost speaks plain strings.
    const shown = ui.notify(severity, uiText(text), ...buttons.map((b) => uiText(b)));
    // A question may also be answered (or given up) in the chat, and ends with its call.
    return question && buttons.length > 0 ? this.questions.ask(question, buttons, shown) : shown;
  }

  async stat(absPath: string): Promise<FileStat | undefined> {
    try {
      const s = await vscode.workspace.fs.stat(vscode.Uri.file(absPath));
      const kind = s.type & vscode.FileType.Directory ? 'directory' : s.type & vscode.FileType.File ? 'file' : 'other';
      return { kind, size: kind === 'directory' ? 0 : s.size };
    } catch (e) {
      if (e instanceof vscode.FileSystemError && e.code === 'FileNotFound') return undefined;
      throw e;
    }
  }

  async readFile(absPath: string): Promise<Uint8Array> {
    return vscode.workspace.fs.readFile(vscode.Uri.file(absPath));
  }

  async deleteFile(absPath: string, options: DeleteOptions): Promise<{ movedToTrash: boolean }> {
    const uri = vscode.Uri.file(absPath);
    try {
      await vscode.workspace.fs.delete(uri, { recursive: options.recursive, useTrash: options.useTrash });
      return { movedToTrash: options.useTrash };
    } catch (e) {
      // Some platforms (and remote hosts without a desktop, like code-server) have no trash: delete
      // for good then, which the prompt warned about, and say so in the result.
      if (!options.useTrash) throw e;
      await vscode.workspace.fs.delete(uri, { recursive: options.recursive, useTrash: false });
      return { movedToTrash: false };
    }
  }

  async countEntries(absDir: string, limit: number): Promise<number> {
    let count = 0;
    const queue = [vscode.Uri.file(absDir)];
    while (queue.length && count < limit) {
      const dir = queue.shift()!;
      for (const [name, type] of await vscode.workspace.fs.readDirectory(dir)) {
        if (++count >= limit) break;
        if (type & vscode.FileType.Directory && !(type & vscode.FileType.SymbolicLink)) queue.push(vscode.Uri.joinPath(dir, name));
      }
    }
    return Math.min(count, limit);
  }

  // ── Workspace group (workspaceHost.ts) ──
  readonly findFiles = workspaceHost.findFiles;
  readonly openEditors = workspaceHost.openEditors;

  /** Diagnostics once they can be taken as settled: right after a file opened or changed, the language server is waited for (bounded). */
  async diagnostics(absPath?: string): Promise<FileDiagnostics[]> {
    await this.language.settleDiagnostics(absPath);
    return workspaceHost.diagnostics(absPath);
  }

  // ── Search group (searchHost.ts) ──
  readonly excludeGlobs = searchHost.excludeGlobs;
  readonly searchText = searchHost.searchText;
  readonly readDirectory = searchHost.readDirectory;

  // ── Editor group (editorHost.ts, diffReview.ts) ──
  readonly readDocument = editorHost.readDocument;
  readonly applyEdits = editorHost.applyEdits;
  readonly writeDocument = editorHost.writeDocument;
  readonly saveDocument = editorHost.saveDocument;
  readonly documentState = editorHost.documentState;
  readonly closeTabs = editorHost.closeTabs;
  readonly renderedLineLimit = editorHost.renderedLineLimit;
  /** Open OpenDiff reviews; the accept/reject commands act on them. */
  readonly diffs = new DiffReviews();

  openDiff(request: DiffRequest, signal: AbortSignal): Promise<DiffOutcome> {
    return this.diffs.open(request, signal);
  }

  // ── Language group (languageHost.ts, changeReview.ts) ──
  readonly language = new LanguageHost();
  /** Open multi-file change reviews (RenameSymbol, ApplyCodeAction); the accept/reject commands act on them too. */
  readonly changes = new ChangeReviews();
  readonly writeDocuments = editorHost.writeDocuments;

  locations(query: LocationQuery, absPath: string, position: SourcePosition): Promise<SourceLocation[]> {
    return this.language.locations(query, absPath, position);
  }

  hover(absPath: string, position: SourcePosition): Promise<string[]> {
    return this.language.hover(absPath, position);
  }

  documentSymbols(absPath: string): Promise<SymbolInfo[]> {
    return this.language.documentSymbols(absPath);
  }

  workspaceSymbols(query: string): Promise<SymbolInfo[]> {
    return this.language.workspaceSymbols(query);
  }

  callHierarchy(absPath: string, position: SourcePosition, direction: 'incoming' | 'outgoing'): Promise<{ symbol: SymbolInfo; calls: CallInfo[] } | undefined> {
    return this.language.callHierarchy(absPath, position, direction);
  }

  renameEdits(absPath: string, position: SourcePosition, newName: string): Promise<WorkspaceChange> {
    return this.language.renameEdits(absPath, position, newName);
  }

  codeActions(absPath: string, range: TextRange, kind: string | undefined): Promise<CodeActionInfo[]> {
    return this.language.codeActions(absPath, range, kind);
  }

  reviewChanges(request: ChangeReviewRequest, signal: AbortSignal): Promise<ChangeReviewOutcome> {
    return this.changes.open(request, signal);
  }

  // ── SourceControl group (gitHost.ts) ──
  readonly gitRepository = gitHost.gitRepository;
  readonly gitDiff = gitHost.gitDiff;
  readonly gitLog = gitHost.gitLog;

  // ── Tasks group (tasksHost.ts; a task's command runs through runCommand below) ──
  readonly listTasks = tasksHost.listTasks;

  // ── Terminal group (terminalRunner.ts) ──
  private readonly terminals = new TerminalRunner();

  runCommand(request: RunCommandRequest, signal: AbortSignal): Promise<RunCommandResult> {
    return this.terminals.run(request, signal);
  }

  readonly watchCommandWrites = watchCommandWrites;

  dispose(): void {
    this.diffs.dispose();
    this.changes.dispose();
    this.language.dispose();
    this.terminals.dispose();
  }
}

function toRange(s: vscode.Selection | vscode.Range): TextRange {
  return { startLine: s.start.line, startCharacter: s.start.character, endLine: s.end.line, endCharacter: s.end.character };
}

function clampRange(doc: vscode.TextDocument, r: TextRange): vscode.Selection {
  const start = doc.validatePosition(new vscode.Position(r.startLine, r.startCharacter));
  const end = doc.validatePosition(new vscode.Position(r.endLine, r.endCharacter));
  return new vscode.Selection(start, end);
}
