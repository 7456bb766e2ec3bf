/**
 * Undo's one rule, for every Undo the chat offers (an accepted review's kept change, a run's change
 * list): write only while the file holds exactly what the agent's change left, so nothing the user
 * typed or wrote since is thrown away. The text compared is the editor's buffer when the file is
 * open; line endings aside.
 */
import * as vscode from 'vscode';
import { toLf } from '../../core/lineDiff';

export type GuardedWriteOutcome = 'written' | 'changed' | 'failed';

/** The file's text (its open buffer, else the disk), or null when it does not exist. */
export async function currentText(file: vscode.Uri): Promise<string | null> {
  const exists = await vscode.workspace.fs.stat(file).then(() => true, () => false);
  if (!exists) return null;
  const doc = await vscode.workspace.openTextDocument(file).then((d) => d, () => undefined);
  return doc ? doc.getText() : null;
}

/**
 * Writes `replacement` (null: deletes the file; a text for a missing file creates it) only while the
 * file holds `expected` (null: absent). `changed` when it does not, and nothing is written.
 */
export async function writeIfUnchanged(file: vscode.Uri, expected: string | null, replacement: string | null): Promise<GuardedWriteOutcome> {
  const now = await currentText(file);
  if (now === null || expected === null ? now !== expected : toLf(now) !== toLf(expected)) return 'changed';
  const edit = new vscode.WorkspaceEdit();
  if (replacement === null) edit.deleteFile(file, { ignoreIfNotExists: true });
  else if (now === null) edit.createFile(file, { contents: new TextEncoder().encode(replacement) });
  else {
    const doc = await vscode.workspace.openTextDocument(file);
    edit.replace(file, new vscode.Range(doc.positionAt(0), doc.positionAt(doc.getText().length)), replacement);
  }
  if (!(await vscode.workspace.applyEdit(edit))) return 'failed';
  if (replacement !== null && now !== null) await (await vscode.workspace.openTextDocument(file)).save();
  return 'written';
}
