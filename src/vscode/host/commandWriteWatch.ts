/**
 * Watches the workspace folders while a terminal command runs (RunInTerminal, RunTask) and tells the
 * run's change list which files it created, changed or deleted (bounds and rules:
 * src/core/commandWrites.ts). The text before is taken from documents the editor held open and
 * unchanged when the command started; nothing else is read up front, so a file the command changed
 * that was not open is listed without an earlier copy. VS Code's watcher reports a little after the
 * fact, so the watch ends only once its events have settled; it skips what `files.watcherExclude`
 * names (node_modules, .git objects), so writes there are not detected.
 */
import * as vscode from 'vscode';
import { CommandWriteCollector, keptOpenTexts, type CommandWrites, type WatchedChange } from '../../core/commandWrites';
import { readProtectedPatterns } from '../settings/config';
import { fileWorkspaceFolders } from './workspaceHost';

/**
 * The watch ends once the command has ended this long ago and no event came for SETTLE_QUIET_MS, or
 * at SETTLE_MAX_MS: VS Code's disk watcher batches its events before they reach the extension.
 */
const SETTLE_MIN_MS = 1000;
const SETTLE_QUIET_MS = 300;
const SETTLE_MAX_MS = 3000;

export function watchCommandWrites(): { stop(): Promise<CommandWrites> } {
  const folders = fileWorkspaceFolders();
  const documents = vscode.workspace.textDocuments.filter((doc) => doc.uri.scheme === 'file').map((doc) => ({ file: doc.uri.fsPath, dirty: doc.isDirty, text: () => doc.getText() }));
  const openTexts = keptOpenTexts(documents, folders);
  const collector = new CommandWriteCollector(folders, readProtectedPatterns(), openTexts);
  let lastEvent = Date.now();
  const watchers = folders.map((f) => vscode.workspace.createFileSystemWatcher(new vscode.RelativePattern(vscode.Uri.file(f.path), '**/*')));
  const on = (change: WatchedChange) => (uri: vscode.Uri) => {
    lastEvent = Date.now();
    if (uri.scheme === 'file') collector.note(change, uri.fsPath);
  };
  const subscriptions = watchers.flatMap((w) => [w.onDidCreate(on('created')), w.onDidChange(on('changed')), w.onDidDelete(on('deleted'))]);
  return {
    async stop(): Promise<CommandWrites> {
      const ended = Date.now();
      const settled = () => Date.now() - ended >= SETTLE_MAX_MS || (Date.now() - ended >= SETTLE_MIN_MS && Date.now() - lastEvent >= SETTLE_QUIET_MS);
      while (!settled()) await new Promise((resolve) => setTimeout(resolve, 50));
      for (const d of [...subscriptions, ...watchers]) d.dispose();
      return collector.result();
    },
  };
}
