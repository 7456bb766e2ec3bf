/**
 * The Editor group's part of `IdeHost` on the VS Code API (VsCodeIdeHost delegates here; OpenDiff's
 * review is diffReview.ts): document buffers, edits, saving and closing tabs, and what the editor
 * draws of a line.
 */
import * as vscode from 'vscode';
import { CodedError, ErrorCode } from '../../protocol';
import type { AppliedEdits, ClosedTabs, DocumentSnapshot, SaveOutcome, TextEditSpec } from '../../core/host';
import { DEFAULT_RENDER_LIMIT } from '../../core/renderLimit';

/**
 * What the editor draws of a line for this file: `editor.stopRenderingLineAfter` as it applies to
 * it (its language's override, the folder's, the user's; VS Code's default 10,000), undefined for -1.
 */
export function renderedLineLimit(absPath: string): number | undefined {
  const uri = vscode.Uri.file(absPath);
  const languageId = vscode.workspace.textDocuments.find((d) => d.uri.fsPath === uri.fsPath)?.languageId;
  const value = vscode.workspace.getConfiguration('editor', languageId !== undefined ? { uri, languageId } : uri).get<number>('stopRenderingLineAfter', DEFAULT_RENDER_LIMIT);
  return typeof value === 'number' && value >= 0 ? value : undefined;
}

export async function readDocument(absPath: string): Promise<DocumentSnapshot> {
  const uri = vscode.Uri.file(absPath);
  const open = vscode.workspace.textDocuments.find((d) => d.uri.toString() === uri.toString());
  const doc = open ?? (await vscode.workspace.openTextDocument(uri));
  return { text: doc.getText(), open: open !== undefined, dirty: doc.isDirty, language: doc.languageId };
}

/** All edits in one WorkspaceEdit, so one Undo reverts them; positions past the end are refused, not clamped. */
export async function applyEdits(absPath: string, edits: readonly TextEditSpec[]): Promise<AppliedEdits> {
  const uri = vscode.Uri.file(absPath);
  const doc = await vscode.workspace.openTextDocument(uri);
  const edit = new vscode.WorkspaceEdit();
  edits.forEach((e, i) => {
    const start = new vscode.Position(e.range.startLine, e.range.startCharacter);
    const end = new vscode.Position(e.range.endLine, e.range.endCharacter);
    if (!doc.validatePosition(start).isEqual(start) || !doc.validatePosition(end).isEqual(end)) {
      throw new CodedError(ErrorCode.InvalidArguments, `edits[${i}]: the range is past the end of the document (it changed since it was read?)`);
    }
    edit.replace(uri, new vscode.Range(start, end), e.newText);
  });
  if (!(await vscode.workspace.applyEdit(edit))) throw new CodedError(ErrorCode.ToolFailed, 'VS Code refused the edit (the document may be read-only)');
  return { lineCount: doc.lineCount, dirty: doc.isDirty };
}

/** Replaces the whole text with one WorkspaceEdit and saves; creates the file when it does not exist. */
export async function writeDocument(absPath: string, text: string): Promise<void> {
  const uri = vscode.Uri.file(absPath);
  let exists = true;
  try {
    await vscode.workspace.fs.stat(uri);
  } catch {
    exists = false;
  }
  const edit = new vscode.WorkspaceEdit();
  if (!exists) {
    edit.createFile(uri, { ignoreIfExists: false, contents: new TextEncoder().encode(text) });
    if (!(await vscode.workspace.applyEdit(edit))) throw new CodedError(ErrorCode.ToolFailed, `VS Code could not create ${uri.fsPath}`);
    return;
  }
  const doc = await vscode.workspace.openTextDocument(uri);
  edit.replace(uri, new vscode.Range(doc.lineAt(0).range.start, doc.lineAt(doc.lineCount - 1).range.end), text);
  if (!(await vscode.workspace.applyEdit(edit))) throw new CodedError(ErrorCode.ToolFailed, 'VS Code refused the edit (the document may be read-only)');
  if (!(await doc.save())) throw new CodedError(ErrorCode.ToolFailed, `the change was applied but ${uri.fsPath} could not be saved`);
}

/** Replaces the whole text of every file with one WorkspaceEdit (one Undo), then saves each. */
export async function writeDocuments(files: readonly { path: string; text: string }[]): Promise<void> {
  const edit = new vscode.WorkspaceEdit();
  const docs: vscode.TextDocument[] = [];
  for (const f of files) {
    const doc = await vscode.workspace.openTextDocument(vscode.Uri.file(f.path));
    edit.replace(doc.uri, new vscode.Range(doc.lineAt(0).range.start, doc.lineAt(doc.lineCount - 1).range.end), f.text);
    docs.push(doc);
  }
  if (!(await vscode.workspace.applyEdit(edit))) throw new CodedError(ErrorCode.ToolFailed, 'VS Code refused the edit (a document may be read-only)');
  const unsaved = [];
  for (const doc of docs) if (!(await doc.save())) unsaved.push(doc.uri.fsPath);
  if (unsaved.length > 0) throw new CodedError(ErrorCode.ToolFailed, `the change was applied but could not be saved in ${unsaved.join(', ')}`);
}

export async function saveDocument(absPath: string): Promise<SaveOutcome> {
  const uri = vscode.Uri.file(absPath);
  const doc = vscode.workspace.textDocuments.find((d) => d.uri.toString() === uri.toString());
  if (!doc) return 'notOpen';
  if (!doc.isDirty) return 'notDirty';
  if (!(await doc.save())) throw new CodedError(ErrorCode.ToolFailed, `${uri.fsPath} could not be saved`);
  return 'saved';
}

/** Whether the document is loaded and dirty, without reading its text. */
export async function documentState(absPath: string): Promise<{ open: boolean; dirty: boolean }> {
  const uri = vscode.Uri.file(absPath).toString();
  const doc = vscode.workspace.textDocuments.find((d) => d.uri.toString() === uri);
  return { open: doc !== undefined, dirty: doc?.isDirty === true };
}

/** Closes every tab showing the file (text, diff either side, notebook); dirty ones stay, nobody is asked. */
export async function closeTabs(absPath: string): Promise<ClosedTabs> {
  const target = vscode.Uri.file(absPath).toString();
  const shows = (input: unknown): boolean => {
    const uris =
      input instanceof vscode.TabInputText || input instanceof vscode.TabInputNotebook || input instanceof vscode.TabInputCustom
        ? [input.uri]
        : input instanceof vscode.TabInputTextDiff || input instanceof vscode.TabInputNotebookDiff
          ? [input.original, input.modified]
          : [];
    return uris.some((u) => u.toString() === target);
  };
  const tabs = vscode.window.tabGroups.all.flatMap((g) => g.tabs).filter((t) => shows(t.input));
  const closable = tabs.filter((t) => !t.isDirty);
  if (closable.length > 0) await vscode.window.tabGroups.close(closable, true);
  return { closed: closable.length, keptDirty: tabs.length - closable.length };
}
