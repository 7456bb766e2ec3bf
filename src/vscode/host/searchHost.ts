/**
 * The Search group's part of `IdeHost` on the VS Code API (VsCodeIdeHost delegates here): the
 * editor's own ripgrep, found under `vscode.env.appRoot`, and folder listings that follow no link.
 */
import * as vscode from 'vscode';
import { CodedError, ErrorCode } from '../../protocol';
import type { DirectoryEntry, TextSearchOutcome, TextSearchQuery } from '../../core/host';
import { findRipgrep, runRipgrep } from '../../tools/search/ripgrep';

export { excludeGlobs } from './workspaceHost';

let ripgrep: Promise<string | undefined> | undefined;

export async function searchText(query: TextSearchQuery, signal: AbortSignal): Promise<TextSearchOutcome> {
  ripgrep ??= findRipgrep(vscode.env.appRoot);
  const rgPath = await ripgrep;
  if (!rgPath) {
    ripgrep = undefined;
    throw new CodedError(ErrorCode.ToolFailed, `the ripgrep that ships with VS Code was not found under ${vscode.env.appRoot}`);
  }
  return runRipgrep(rgPath, query, signal);
}

export async function readDirectory(absDir: string): Promise<DirectoryEntry[]> {
  const dir = vscode.Uri.file(absDir);
  const out: DirectoryEntry[] = [];
  for (const [name, type] of await vscode.workspace.fs.readDirectory(dir)) {
    if (type & vscode.FileType.SymbolicLink) out.push({ name, kind: 'symlink' });
    else if (type & vscode.FileType.Directory) out.push({ name, kind: 'directory' });
    else if (type & vscode.FileType.File) {
      const size = await vscode.workspace.fs.stat(vscode.Uri.joinPath(dir, name)).then((s) => s.size, () => undefined);
      out.push({ name, kind: 'file', ...(size !== undefined ? { size } : {}) });
    } else out.push({ name, kind: 'other' });
  }
  return out;
}
