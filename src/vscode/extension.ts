import * as vscode from 'vscode';
import { registerCommands } from './commands';
import { ClientToolsContext, type ClientToolsApi } from './context';
import { McpServerHost } from './mcpServer/mcpServer';
import { safe, uiText } from '../core/uiText';
import * as ui from './ui';

let ctx: ClientToolsContext | undefined;

/**
 * Builds the one context object, registers the commands and connects. A failure is shown to the
 * user (VS Code itself would show nothing) and the extension stays inert rather than half-alive.
 */
export function activate(context: vscode.ExtensionContext): ClientToolsApi | undefined {
  const started = performance.now();
  try {
    ctx = new ClientToolsContext(context);
    context.subscriptions.push(ctx, ...registerCommands(ctx));
    context.subscriptions.push(new McpServerHost(ctx));
    void ctx.connect();
    // Read by `npm run bench` from the log file; the connection itself is made after activate() returns.
    ctx.log.info(`Activated in ${(performance.now() - started).toFixed(1)} ms`);
    return ctx.api;
  } catch (e) {
    const message = e instanceof Error ? e.message : String(e);
    void ui.showError(safe`Client Tools failed to start: ${uiText(message)}`);
    ctx?.dispose();
    ctx = undefined;
    return undefined;
  }
}

export function deactivate(): void {
  ctx?.dispose();
  ctx = undefined;
}
