import type * as vscode from 'vscode';

export function activate(_context: vscode.ExtensionContext): void {
  // Wired up in the following commits.
}

export function deactivate(): void {}
