/**
 * The editor's MCP server in VS Code: on while `clientTools.mcpServer.enabled` is true in the user's
 * settings (never a workspace's: a workspace must not open the tools to other programs), with a new
 * token each start, the lock file in `~/.client-tools/mcp/`, its calls on the chat's cards, and the
 * "Copy MCP Configuration" command. For agents started outside the editor: named credentials in
 * secret storage that survive restarts (the Create and Revoke MCP Credential commands,
 * mcpCredentialStore.ts) and a fixed port (`clientTools.mcpServer.port`). The server and its calls
 * are src/core/mcpServer/.
 */
import * as vscode from 'vscode';
import { DisposableStore } from '../../base/events';
import { McpCalls } from '../../core/mcpServer/mcpCalls';
import { McpCredentialSet } from '../../core/mcpServer/mcpCredentials';
import { McpHttpServer } from '../../core/mcpServer/mcpHttpServer';
import { defaultMcpLockFolder, writeMcpLockFile } from './mcpLockFile';
import { MCP_SNIPPET_KINDS, mcpSnippet, type McpSnippetKind } from './mcpSnippets';
import { MCP_CREDENTIALS_SECRET, McpCredentialStore } from './mcpCredentialStore';
import { newMcpToken } from '../../core/mcpServer/mcpToken';
import { safe, uiText } from '../../core/uiText';
import type { ClientToolsContext } from '../context';
import { Commands } from '../ids';
import { channelLogger } from '../log';
import * as ui from '../ui';
import { userValue } from '../settings/userSetting';

const SETTING = 'clientTools.mcpServer.enabled';
const PORT_SETTING = 'clientTools.mcpServer.port';

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
  private readonly credentialStore: McpCredentialStore;
  /** The named credentials the server accepts, kept in step with secret storage. */
  private readonly credentials = new McpCredentialSet();

  constructor(private readonly ctx: ClientToolsContext) {
    this.credentialStore = new McpCredentialStore(ctx.extension.secrets);
    this.disposables.push(
      vscode.workspace.onDidChangeConfiguration((e) => {
        if (e.affectsConfiguration(SETTING)) this.apply();
        else if (e.affectsConfiguration(PORT_SETTING) && this.running) this.apply(true);
      }),
      // Another window created or revoked a credential: this one follows.
      ctx.extension.secrets.onDidChange((e) => {
        if (e.key === MCP_CREDENTIALS_SECRET) void this.loadCredentials();
      }),
      vscode.commands.registerCommand(Commands.createMcpCredential, (name?: unknown, kind?: unknown) => this.createCredential(name, kind)),
      vscode.commands.registerCommand(Commands.revokeMcpCredential, (name?: unknown) => this.revokeCredential(name)),
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
    this.credentials.dispose();
  }

  /** `restart`: the port setting changed, so a running server starts again on the new port. */
  private apply(restart = false): void {
    const enabled = userValue(vscode.workspace.getConfiguration(), SETTING) === true;
    this.queue = this.queue.then(async () => {
      if (restart && this.running) this.stopNow();
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
      await this.loadCredentials();
      const options = { registry: this.ctx.core.registry, calls, token, serverVersion: pkg.version ?? '0.0.0', logger, credentials: this.credentials };
      const port = fixedPort();
      server = await McpHttpServer.start({ ...options, port }).catch(async (e: unknown) => {
        // Another window holds the port: this one takes any, and says so.
        if (port === 0 || (e as { code?: unknown }).code !== 'EADDRINUSE') throw e;
        this.ctx.log.warn(`MCP server: port ${port} (${PORT_SETTING}) is taken, probably by another window; using another port`);
        void ui.showWarning(safe`Client Tools: port ${uiText(String(port))} is taken (another window?): this window's MCP server uses another port, so configurations naming ${uiText(String(port))} reach the other window.`);
        return McpHttpServer.start({ ...options, port: 0 });
      });
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

  private async loadCredentials(): Promise<void> {
    try {
      this.credentials.set(await this.credentialStore.list());
    } catch (e) {
      this.ctx.log.error(`MCP credentials could not be read from secret storage: ${e instanceof Error ? e.message : String(e)}`);
      this.credentials.set([]);
    }
  }

  /** A snippet kind the user picks (or the one a caller names). */
  private async snippetKind(kind: unknown): Promise<McpSnippetKind | undefined> {
    const named = MCP_SNIPPET_KINDS.find((k) => k.kind === kind)?.kind;
    if (named) return named;
    const items = MCP_SNIPPET_KINDS.map((k) => ({ label: safe`${uiText(k.label)}`, detail: safe`${uiText(k.detail)}`, snippet: k.kind }));
    return (await ui.pickOne(items, { title: safe`Copy MCP configuration for…` }))?.snippet;
  }

  /**
   * A credential for one agent started outside the editor, kept in secret storage: created (or
   * replaced) under the name the user gives, and copied as that agent's configuration.
   */
  private async createCredential(nameArg: unknown, kindArg: unknown): Promise<string | undefined> {
    const running = this.running;
    if (!running) {
      void ui.showWarning(safe`Client Tools: the MCP server is off. Turn on clientTools.mcpServer.enabled in your user settings first.`);
      return undefined;
    }
    const name = typeof nameArg === 'string' ? nameArg : await ui.askForText({ title: safe`Name the agent this credential is for`, placeHolder: safe`Claude Code`, prompt: safe`Its calls show under this name. Creating one with a name in use replaces that credential.` });
    if (name === undefined) return undefined;
    const kind = await this.snippetKind(kindArg);
    if (!kind) return undefined;
    let created: { name: string; token: string };
    try {
      created = await this.credentialStore.create(name);
    } catch (e) {
      void ui.showError(safe`Client Tools: ${uiText(e instanceof Error ? e.message : String(e))}`);
      return undefined;
    }
    await this.loadCredentials();
    await vscode.env.clipboard.writeText(mcpSnippet(kind, running.server.url, created.token));
    const portNote = fixedPort() === 0 ? ` The port changes at every start unless you set ${PORT_SETTING}.` : '';
    void ui.showInfo(safe`Client Tools: MCP configuration for ${uiText(created.name)} copied. Its credential works after restarts until you revoke it (Client Tools: Revoke MCP Credential).${uiText(portNote)}`);
    this.ctx.log.info(`MCP credential created for ${created.name}`);
    return created.name;
  }

  private async revokeCredential(nameArg: unknown): Promise<boolean> {
    let name = typeof nameArg === 'string' ? nameArg : undefined;
    if (name === undefined) {
      const items = (await this.credentialStore.list()).map((c) => ({ label: safe`${uiText(c.name)}`, name: c.name }));
      if (items.length === 0) {
        void ui.showInfo(safe`Client Tools: there is no MCP credential to revoke.`);
        return false;
      }
      name = (await ui.pickOne(items, { title: safe`Revoke the MCP credential of…` }))?.name;
      if (name === undefined) return false;
    }
    const revoked = await this.credentialStore.revoke(name);
    await this.loadCredentials();
    if (revoked) this.ctx.log.info(`MCP credential revoked: ${name}`);
    return revoked;
  }

  private async copyConfiguration(kind: unknown): Promise<boolean> {
    const running = this.running;
    if (!running) {
      void ui.showWarning(safe`Client Tools: the MCP server is off. Turn on clientTools.mcpServer.enabled in your user settings first.`);
      return false;
    }
    const chosen = await this.snippetKind(kind);
    if (!chosen) return false;
    await vscode.env.clipboard.writeText(mcpSnippet(chosen, running.server.url, running.token));
    void ui.showInfo(safe`Client Tools: MCP configuration copied. It holds this window's token: paste it only into your own agent's settings. It is valid while this window runs.`);
    return true;
  }
}

/** `clientTools.mcpServer.port` from user settings: a port from 1024 to 65535, else 0 (any). */
function fixedPort(): number {
  const value = userValue(vscode.workspace.getConfiguration(), PORT_SETTING);
  return typeof value === 'number' && Number.isInteger(value) && value >= 1024 && value <= 65535 ? value : 0;
}
