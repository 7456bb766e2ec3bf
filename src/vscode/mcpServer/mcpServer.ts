/**
 * The editor's MCP server in VS Code: on while `clientTools.mcpServer.enabled` is true in the user's
 * settings (never a workspace's: a workspace must not open the tools to other programs), with a new
 * token each start, the lock file in `~/.client-tools/mcp/`, its calls on the chat's cards, and the
 * "Copy MCP Configuration" command. The server and its calls are src/core/mcpServer/.
 */
import * as vscode from 'vscode';
import { DisposableStore } from '../../base/events';
import { McpCalls } from '../../core/mcpServer/mcpCalls';
import { McpHttpServer } from '../../core/mcpServer/mcpHttpServer';
import { defaultMcpLockFolder, writeMcpLockFile } from './mcpLockFile';
import { MCP_SNIPPET_KINDS, mcpSnippet } from './mcpSnippets';
import { newMcpToken } from '../../core/mcpServer/mcpToken';
import { safe, uiText } from '../../core/uiText';
import type { ClientToolsContext } from '../context';
import { Commands } from '../ids';
import { channelLogger } from '../log';
import * as ui from '../ui';
import { userValue } from '../settings/userSetting';

const SETTING = 'clientTools.mcpServer.enabled';

interface Running {
  server: McpHttpServer;
  calls: McpCalls;
  token: string;
  subscriptions: DisposableStore;
  removeLock: () => void;
}

export class McpServerHost implements vscode.Disposable {
  private running: Running | undefined;
  /** Serialises start and stop, so a quick off-on cannot leave two servers. */
  private queue: Promise<void> = Promise.resolve();
  private readonly disposables: vscode.Disposable[] = [];

  constructor(private readonly ctx: ClientToolsContext) {
    this.disposables.push(
      vscode.workspace.onDidChangeConfiguration((e) => {
        if (e.affectsConfiguration(SETTING)) this.apply();
      }),
      // The lock file names the window's folders: CLI agents pick the window by them.
      vscode.workspace.onDidChangeWorkspaceFolders(() => this.rewriteLock()),
      vscode.commands.registerCommand(Commands.copyMcpConfig, (kind?: unknown) => this.copyConfiguration(kind)),
    );
    this.apply();
  }

  /** The endpoint while the server runs (tests and the command read it). */
  get url(): string | undefined {
    return this.running?.server.url;
  }

  dispose(): void {
    for (const d of this.disposables) d.dispose();
    this.stopNow();
  }

  private apply(): void {
    const enabled = userValue(vscode.workspace.getConfiguration(), SETTING) === true;
    this.queue = this.queue.then(async () => {
      if (enabled && !this.running) await this.start();
      if (!enabled && this.running) this.stopNow();
    }).catch((e: unknown) => {
      const reason = e instanceof Error ? e.message : String(e);
      this.ctx.log.error(`MCP server could not start: ${reason}`);
      void ui.showError(safe`Client Tools: the MCP server could not start: ${uiText(reason)}`);
    });
  }

  private async start(): Promise<void> {
    const token = newMcpToken();
    const calls = new McpCalls((options) => this.ctx.core.createDispatcher(options));
    const subscriptions = new DisposableStore();
    subscriptions.add(calls.onCallRecord((record) => this.ctx.chat.postCallRecord(record)));
    const pkg = this.ctx.extension.extension.packageJSON as { version?: string };
    const logger = channelLogger(this.ctx.log);
    let server: McpHttpServer;
    try {
      server = await McpHttpServer.start({ registry: this.ctx.core.registry, calls, token, serverVersion: pkg.version ?? '0.0.0', logger });
    } catch (e) {
      subscriptions.dispose();
      calls.dispose();
      throw e;
    }
    this.running = { server, calls, token, subscriptions, removeLock: () => {} };
    try {
      this.rewriteLock();
    } catch (e) {
      this.stopNow();
      throw e;
    }
    // Never the token: the log is not a secret store.
    this.ctx.log.info(`MCP server listening on ${server.url}`);
  }

  private rewriteLock(): void {
    const running = this.running;
    if (!running) return;
    running.removeLock();
    const lock = writeMcpLockFile(defaultMcpLockFolder(), {
      port: running.server.port,
      pid: process.pid,
      url: running.server.url,
      transport: 'streamable-http',
      token: running.token,
      workspaceFolders: (vscode.workspace.workspaceFolders ?? []).filter((f) => f.uri.scheme === 'file').map((f) => f.uri.fsPath),
      ideName: `${vscode.env.appName} ${vscode.version}`,
    });
    running.removeLock = lock.remove;
    this.ctx.log.info(`MCP lock file: ${lock.file}`);
  }

  private stopNow(): void {
    const running = this.running;
    if (!running) return;
    this.running = undefined;
    running.removeLock();
    running.subscriptions.dispose();
    // Calls still running end (their prompts close); then the sessions and the port.
    running.calls.dispose();
    void running.server.close();
    this.ctx.log.info('MCP server stopped');
  }

  private async copyConfiguration(kind: unknown): Promise<boolean> {
    const running = this.running;
    if (!running) {
      void ui.showWarning(safe`Client Tools: the MCP server is off. Turn on clientTools.mcpServer.enabled in your user settings first.`);
      return false;
    }
    let chosen = MCP_SNIPPET_KINDS.find((k) => k.kind === kind)?.kind;
    if (!chosen) {
      const items = MCP_SNIPPET_KINDS.map((k) => ({ label: safe`${uiText(k.label)}`, detail: safe`${uiText(k.detail)}`, snippet: k.kind }));
      const picked = await ui.pickOne(items, { title: safe`Copy MCP configuration for…` });
      if (!picked) return false;
      chosen = picked.snippet;
    }
    await vscode.env.clipboard.writeText(mcpSnippet(chosen, running.server.url, running.token));
    void ui.showInfo(safe`Client Tools: MCP configuration copied. It holds this window's token: paste it only into your own agent's settings. It is valid while this window runs.`);
    return true;
  }
}
