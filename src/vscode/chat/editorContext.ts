/**
 * Pushes the active editor's file, cursor and selection to the backend as the `editor` context
 * item, when the user turned it on (`clientTools.editorContext.enabled`, off by default). Changes
 * are debounced; the same text is not sent twice; a new connection gets the current state again.
 * Selected text from files that can hold secrets, or from outside the workspace, is never sent.
 */
import * as vscode from 'vscode';
import type { ClientCore } from '../../core';
import type { IdeHost } from '../../core/host';
import { isProtectedPath } from '../../core/paths';
import { locateInWorkspace } from '../../tools/support/workspacePaths';
import { readEditorContextEnabled } from '../settings/config';
import { EDITOR_CONTEXT_NAME, SHARING_OFF, summarizeEditor, type EditorState } from './editorContextSummary';

export const EDITOR_CONTEXT_DEBOUNCE_MS = 500;
/** More than the summary shows: enough to count what is cut. */
const READ_SELECTION_CHARS = 100_000;

export class EditorContextPusher implements vscode.Disposable {
  private timer: NodeJS.Timeout | undefined;
  /** What the backend was last told in this session; undefined when nothing was sent yet. */
  private lastSent: string | undefined;
  private enabled = readEditorContextEnabled();
  private readonly disposables: vscode.Disposable[];

  constructor(
    private readonly core: ClientCore,
    private readonly host: IdeHost,
  ) {
    this.disposables = [
      vscode.window.onDidChangeActiveTextEditor(() => this.schedule()),
      vscode.window.onDidChangeTextEditorSelection(() => this.schedule()),
      vscode.workspace.onDidChangeConfiguration((e) => {
        if (e.affectsConfiguration('clientTools.editorContext')) this.onSettingChanged();
      }),
      this.core.onWelcome(() => {
        // A new or resumed session: say it again rather than guess what the backend kept.
        this.lastSent = undefined;
        this.schedule();
      }),
    ];
    this.schedule();
  }

  dispose(): void {
    clearTimeout(this.timer);
    for (const d of this.disposables) d.dispose();
  }

  private onSettingChanged(): void {
    this.enabled = readEditorContextEnabled();
    if (this.enabled) {
      this.schedule();
    } else if (this.lastSent !== undefined) {
      // The protocol has no way to remove a context item: replace it with a note.
      clearTimeout(this.timer);
      if (this.core.pushContext([{ name: EDITOR_CONTEXT_NAME, text: SHARING_OFF }])) this.lastSent = undefined;
    }
  }

  private schedule(): void {
    if (!this.enabled) return;
    clearTimeout(this.timer);
    this.timer = setTimeout(() => this.push(), EDITOR_CONTEXT_DEBOUNCE_MS);
  }

  private push(): void {
    if (!this.enabled) return;
    const text = summarizeEditor(this.currentState());
    if (text === this.lastSent) return;
    if (this.core.pushContext([{ name: EDITOR_CONTEXT_NAME, text }])) this.lastSent = text;
  }

  private currentState(): EditorState | undefined {
    const editor = vscode.window.activeTextEditor;
    const doc = editor?.document;
    if (!editor || !doc || (doc.uri.scheme !== 'file' && doc.uri.scheme !== 'untitled')) return undefined;
    const where = doc.uri.scheme === 'file' ? locateInWorkspace(doc.uri.fsPath, this.host.workspaceFolders()) : undefined;
    const sel = editor.selection;
    const range = sel.isEmpty ? undefined : new vscode.Range(sel.start, doc.validatePosition(sel.end));
    const selectedText = range ? doc.getText(range).slice(0, READ_SELECTION_CHARS) : undefined;
    return {
      ...(where ? { file: where.display } : {}),
      untitled: doc.uri.scheme === 'untitled',
      outsideWorkspace: doc.uri.scheme === 'file' && !where,
      protected: where ? isProtectedPath(where.inFolder, this.host.protectedPatterns?.() ?? []) : false,
      language: doc.languageId,
      lineCount: doc.lineCount,
      cursor: { line: sel.active.line, character: sel.active.character },
      ...(range
        ? { selection: { startLine: range.start.line, startCharacter: range.start.character, endLine: range.end.line, endCharacter: range.end.character }, selectedText }
        : {}),
    };
  }
}
