import * as vscode from 'vscode';
import { registerCommands } from './commands';
import { ClientToolsContext, type ClientToolsApi } from './context';

let ctx: ClientToolsContext | undefined;

/**
 * Builds the one context object, registers the commands and connects. A failure is shown to the
 * user (VS Code itself would show nothing) and the extension stays inert rather than half-alive.
 */
export function activate(context: vscode.ExtensionContext): ClientToolsApi | undefined {
  try {
    ctx = new ClientToolsContext(context);
    context.subscriptions.push(ctx, ...registerCommands(ctx));
    void ctx.connect();
    return ctx.api;
  } catch (e) {
    const message = e instanceof Error ? e.message : String(e);
    void vscode.window.showErrorMessage(`Client Tools failed to start: ${message}`);
    ctx?.dispose();
    ctx = undefined;
    return undefined;
  }
}

export function deactivate(): void {
  ctx?.dispose();
  ctx = undefined;
}
