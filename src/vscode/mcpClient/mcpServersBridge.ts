/**
 * The user's MCP servers as client tool groups: reads the user's `mcp` setting (user settings only)
 * and each workspace folder's `.vscode/mcp.json`, starts each server (workspace servers only in a
 * trusted workspace and after the user approved that exact launch), registers its tools as the
 * collapsed group `MCP: <server>`, and keeps the Tool Groups view told of every server that is not
 * (yet) a group: a bad entry, waiting for approval or trust, starting, restarting, failed.
 * Config changes stop what changed and start what is new; dispose stops every server.
 */
import * as fs from 'node:fs/promises';
import * as os from 'node:os';
import * as path from 'node:path';
import * as vscode from 'vscode';
import type { ToolRegistry } from '../../core';
import { approvalKey, MAX_CONFIG_BYTES, parseMcpConfig, parseMcpJsonText, type McpConfigProblem, type McpServerConfig, type McpVariables, type ParsedMcpConfig } from '../../tools/mcpClient/config';
import { mcpGroupName } from '../../tools/mcpClient/group';
import { McpGroupRegistration } from '../../tools/mcpClient/groupRegistration';
import { DECLINED_DETAIL, startDecision, TOO_LARGE_TO_APPROVE } from '../../tools/mcpClient/startPolicy';
import type { McpServerState, McpServerSupervisor } from '../../tools/mcpClient/supervisor';
import { channelLogger } from '../log';
import type { GroupNotice } from '../toolGroups/toolGroupsView';
import type { McpApprovals } from './approvals';

const RELOAD_DEBOUNCE_MS = 300;

interface Running {
  supervisor: McpServerSupervisor;
  launchKey: string;
  /** Its group in the registry, following the supervisor's state. */
  group: McpGroupRegistration;
}

export class McpServersBridge implements vscode.Disposable {
  private readonly running = new Map<string, Running>();
  /** Servers not running, with why: bad entries, approval or trust missing. */
  private waiting: GroupNotice[] = [];
  private readonly changed = new vscode.EventEmitter<GroupNotice[]>();
  /** What the Tool Groups view shows for servers that are not a working group. */
  readonly onDidChangeNotices = this.changed.event;
  private readonly disposables: vscode.Disposable[] = [];
  private watchers: vscode.Disposable[] = [];
  private reloadTimer: NodeJS.Timeout | undefined;
  private reloading: Promise<void> = Promise.resolve();
  private disposed = false;

  constructor(
    private readonly registry: ToolRegistry,
    private readonly log: vscode.LogOutputChannel,
    private readonly approvals: McpApprovals,
    private readonly version: string,
  ) {
    this.disposables.push(
      vscode.workspace.onDidChangeConfiguration((e) => {
        if (e.affectsConfiguration('mcp') || e.affectsConfiguration('clientTools.mcpServers')) this.scheduleReload();
      }),
      vscode.workspace.onDidChangeWorkspaceFolders(() => this.scheduleReload()),
      vscode.workspace.onDidGrantWorkspaceTrust(() => this.scheduleReload()),
    );
    this.scheduleReload();
  }

  /** The notices right now (servers that are not a working group, and why). */
  get notices(): GroupNotice[] {
    const states = [...this.running.entries()].map(([, r]) => notice(r.supervisor.config.name, r.supervisor.state, r.group.refused)).filter((n): n is GroupNotice => n !== undefined);
    return [...this.waiting, ...states];
  }

  /** Stops every server, forgets this window's refusals, reads the configuration again. */
  async restartAll(): Promise<void> {
    this.approvals.forgetDeclined();
    await this.stopAll();
    this.scheduleReload(0);
    await new Promise((r) => setTimeout(r, 10));
    await this.reloading;
  }

  dispose(): void {
    this.disposed = true;
    clearTimeout(this.reloadTimer);
    void this.stopAll();
    for (const d of [...this.disposables, ...this.watchers]) d.dispose();
    this.changed.dispose();
  }

  private scheduleReload(delayMs = RELOAD_DEBOUNCE_MS): void {
    clearTimeout(this.reloadTimer);
    this.reloadTimer = setTimeout(() => {
      this.reloading = this.reloading.then(() => this.reload()).catch((e: unknown) => this.log.error(`MCP servers: ${(e as Error).message}`));
    }, delayMs);
  }

  private async reload(): Promise<void> {
    if (this.disposed) return;
    this.watchFiles();
    const enabled = vscode.workspace.getConfiguration('clientTools').inspect<boolean>('mcpServers.enabled');
    const parsed = (enabled?.globalValue ?? enabled?.defaultValue) === false ? { servers: [], problems: [] } : await this.readAll();
    const waiting: GroupNotice[] = parsed.problems.map((p) => problemNotice(p));
    for (const p of parsed.problems) this.log.warn(`MCP server configuration${p.source.kind === 'workspace' ? ` in ${p.source.file}` : ' in user settings'}${p.name !== undefined ? `, server "${p.name}"` : ''}: ${p.message}`);

    const wanted = new Map<string, McpServerConfig>();
    for (const server of parsed.servers) {
      if (wanted.has(server.name)) {
        waiting.push({ group: mcpGroupName(server.name), status: 'error', detail: `a server named "${server.name}" is configured already; rename one of them`, error: true });
        continue;
      }
      wanted.set(server.name, server);
    }
    for (const [name, r] of [...this.running]) {
      const next = wanted.get(name);
      if (!next || approvalKey(next) !== r.launchKey) await this.stopOne(name);
    }
    this.waiting = waiting;
    this.fireNotices();
    for (const server of wanted.values()) {
      if (this.disposed) return;
      if (this.running.has(server.name)) continue;
      const blocked = await this.mayStart(server);
      if (blocked) {
        this.waiting.push(blocked);
        this.fireNotices();
        continue;
      }
      await this.startOne(server);
    }
    this.fireNotices();
  }

  /** Undefined when the server may start; else the notice saying why not. Asks for approval when needed. */
  private async mayStart(server: McpServerConfig): Promise<GroupNotice | undefined> {
    const group = mcpGroupName(server.name);
    const decision = startDecision(server, { workspaceTrusted: vscode.workspace.isTrusted, approved: this.approvals.isApproved(server), declinedInThisWindow: this.approvals.wasDeclined(server) });
    if (decision.kind === 'start') return undefined;
    if (decision.kind === 'wait') return { group, status: decision.status, detail: decision.detail, error: false };
    this.waiting.push({ group, status: 'waiting for your approval', error: false });
    this.fireNotices();
    const answer = await this.approvals.ask(server);
    this.waiting = this.waiting.filter((n) => !(n.group === group && n.status === 'waiting for your approval'));
    if (answer === 'approved') {
      this.log.info(`MCP server "${server.name}" from ${server.source.kind === 'workspace' ? server.source.file : 'user settings'} approved by the user`);
      return undefined;
    }
    if (answer === 'too-long') return { group, status: 'error', detail: TOO_LARGE_TO_APPROVE, error: true };
    return { group, status: 'not approved', detail: DECLINED_DETAIL, error: false };
  }

  private async startOne(server: McpServerConfig): Promise<void> {
    // Loaded at the first server, not at activation: the SDK's modules take a few hundred ms to load.
    const { McpServerSupervisor } = await import('../../tools/mcpClient/supervisor');
    if (this.disposed) return;
    const supervisor = new McpServerSupervisor(server, channelLogger(this.log), { clientVersion: this.version });
    const entry: Running = { supervisor, launchKey: approvalKey(server), group: new McpGroupRegistration(this.registry, supervisor, channelLogger(this.log)) };
    this.running.set(server.name, entry);
    supervisor.onDidChangeState((s) => {
      entry.group.update(s);
      this.fireNotices();
    });
    // Only the origin of a URL: its path or query may carry a token.
    this.log.info(`MCP server "${server.name}" starting (${server.launch.type === 'stdio' ? server.launch.command : new URL(server.launch.url).origin})`);
    supervisor.start();
  }

  private async stopOne(name: string): Promise<void> {
    const r = this.running.get(name);
    if (!r) return;
    this.running.delete(name);
    r.group.dispose();
    await r.supervisor.stop();
    this.log.info(`MCP server "${name}" stopped`);
  }

  private async stopAll(): Promise<void> {
    await Promise.all([...this.running.keys()].map((name) => this.stopOne(name)));
  }

  private fireNotices(): void {
    if (!this.disposed) this.changed.fire(this.notices);
  }

  /** The user's `mcp` setting (user settings only: a workspace's settings.json is the repository's), then each folder's mcp.json. */
  private async readAll(): Promise<ParsedMcpConfig> {
    const out: ParsedMcpConfig = { servers: [], problems: [] };
    const folders = vscode.workspace.workspaceFolders ?? [];
    const first = folders.find((f) => f.uri.scheme === 'file');
    const userValue = vscode.workspace.getConfiguration().inspect<unknown>('mcp')?.globalValue;
    merge(out, parseMcpConfig(userValue, { kind: 'user' }, variables(first?.uri.fsPath)));
    for (const folder of folders) {
      if (folder.uri.scheme !== 'file') continue;
      const file = path.join(folder.uri.fsPath, '.vscode', 'mcp.json');
      const source = { kind: 'workspace' as const, folderName: folder.name, folderPath: folder.uri.fsPath, file };
      let text: string;
      try {
        const stat = await fs.stat(file);
        if (stat.size > MAX_CONFIG_BYTES) {
          out.problems.push({ name: undefined, source, message: `the file is larger than ${MAX_CONFIG_BYTES} bytes` });
          continue;
        }
        text = await fs.readFile(file, 'utf8');
      } catch (e) {
        if ((e as NodeJS.ErrnoException).code !== 'ENOENT') out.problems.push({ name: undefined, source, message: `cannot read it: ${(e as Error).message}` });
        continue;
      }
      merge(out, parseMcpJsonText(text, source, variables(folder.uri.fsPath)));
    }
    return out;
  }

  private watchFiles(): void {
    for (const w of this.watchers) w.dispose();
    this.watchers = [];
    for (const folder of vscode.workspace.workspaceFolders ?? []) {
      const watcher = vscode.workspace.createFileSystemWatcher(new vscode.RelativePattern(folder, '.vscode/mcp.json'));
      this.watchers.push(watcher, watcher.onDidCreate(() => this.scheduleReload()), watcher.onDidChange(() => this.scheduleReload()), watcher.onDidDelete(() => this.scheduleReload()));
    }
  }
}

function variables(workspaceFolder: string | undefined): McpVariables {
  return { ...(workspaceFolder !== undefined ? { workspaceFolder } : {}), userHome: os.homedir(), env: { ...process.env }, pathSeparator: path.sep };
}

function merge(into: ParsedMcpConfig, from: ParsedMcpConfig): void {
  into.servers.push(...from.servers);
  into.problems.push(...from.problems);
}

function problemNotice(p: McpConfigProblem): GroupNotice {
  const where = p.source.kind === 'workspace' ? p.source.file : 'user settings (mcp)';
  return { group: p.name !== undefined ? mcpGroupName(p.name) : `MCP configuration: ${p.source.kind === 'workspace' ? p.source.folderName : 'user'}`, status: 'configuration error', detail: `${where}: ${p.message}`, error: true };
}

/** A running server needs no notice (its group is in the registry) unless its group was refused. */
function notice(name: string, s: McpServerState, refused: string | undefined): GroupNotice | undefined {
  const group = mcpGroupName(name);
  switch (s.kind) {
    case 'running':
      return refused === undefined ? undefined : { group, status: 'error', detail: `its tools were not registered: ${refused}`, error: true };
    case 'starting':
      return { group, status: s.attempt > 1 ? `starting (attempt ${s.attempt})` : 'starting', error: false };
    case 'restarting':
      return { group, status: `restarting in ${Math.round(s.delayMs / 1000)} s`, detail: s.reason, error: true };
    case 'failed':
      return { group, status: 'failed', detail: s.reason, error: true };
    case 'stopped':
      return undefined;
  }
}
