/**
 * A file path clicked in a chat answer. The path is the model's text, so it gets the checks
 * OpenFile's get (src/core/paths.ts: NUL, schemes, UNC, `..`, symlinks out of the workspace) and
 * must name an existing file; only then does it open, in a preview tab, at the line when one was
 * given. Anything else is a warning naming the path, through the door, and nothing opens.
 */
import * as vscode from 'vscode';
import { resolveWorkspacePath } from '../../core';
import { safe, uiText } from '../../core/uiText';
import { readProtectedPatterns } from '../settings/config';
import { fileWorkspaceFolders } from '../host/workspaceHost';
import * as ui from '../ui';

export async function openPathFromChat(path: string, line: number | undefined): Promise<void> {
  try {
    const target = await resolveWorkspacePath(path, fileWorkspaceFolders(), { protectedPatterns: readProtectedPatterns() });
    const uri = vscode.Uri.file(target.absolute);
    const stat = target.exists ? await vscode.workspace.fs.stat(uri) : undefined;
    if (!stat || (stat.type & vscode.FileType.File) === 0) throw new Error(target.exists ? 'it is not a file' : 'no such file in the workspace');
    // `vscode.open` rather than a text document: an image or another binary opens in its own editor.
    const at = line !== undefined ? new vscode.Position(line - 1, 0) : undefined;
    const options: vscode.TextDocumentShowOptions = { preview: true, ...(at ? { selection: new vscode.Range(at, at) } : {}) };
    await vscode.commands.executeCommand('vscode.open', uri, options);
  } catch (e) {
    const reason = e instanceof Error ? e.message : String(e);
    void ui.showWarning(safe`Client Tools: cannot open ${uiText(path, { maxLength: 300 })} from the chat: ${uiText(reason, { maxLength: 300 })}`);
  }
}
