import * as path from 'node:path';
import * as vscode from 'vscode';
import { ClientCore, type ConnectionState, type PermissionStore } from '../core';
import type { ClientTool, Grant, ToolGroupSpec } from '../core';
import { grantKey, parseStoredGrant } from '../core/consent/grants';
import { CodedError, ErrorCode, type EditorContext, type RunEvent } from '../protocol';
import type { ChatStatus } from '../protocol/webview';
import { safe, uiText } from '../core/uiText';
import { registerBuiltinGroups } from '../tools';
import { registerExternalGroup } from './toolGroups/extensionGroups';
import { AgentsHost } from './agents/agentsHost';
import { ChatPromptPresenter } from './prompts/chatPrompts';
import { ModalPromptPresenter } from './prompts/modalPrompts';
import { PromptStyleSwitch } from './prompts/promptStyle';
import { ChatViewProvider, type SteerRequest } from './chat/chatView';
import { showReviewsInChat } from './reviews/reviewBridge';
import { affectsConnection, readBackendFallbackUrls, readConfig, readPromptStyle } from './settings/config';
import { EditorContextPusher } from './chat/editorContext';
import { EmbeddedBackend } from './backendProcess/embeddedBackend';
import { ContextKeys, SecretKeys, Views } from './ids';
import { VsCodeIdeHost } from './host/ideHost';
import { LmToolsBridge } from './toolGroups/lmToolsBridge';
import { McpApprovals } from './mcpClient/approvals';
import { McpServersBridge } from './mcpClient/mcpServersBridge';
import { ModelEndpointCheck } from './backendProcess/modelEndpoint';
import { channelLogger } from './log';
import { StatusBar, type StatusState } from './statusBar';
import { ChatThreads } from './chat/threads';
import { ToolGroupsView } from './toolGroups/toolGroupsView';
import { keepSwitchedOffTools, ToolPolicyStore } from './toolGroups/toolPolicies';
import { tellAgentWhatIsOff } from './toolGroups/switchedOffContext';
import { RunChangeList } from './reviews/runChangeList';
import { Rewinder } from './reviews/rewind';
import * as ui from './ui';

/** Where versions before the history list kept the one thread id; adopted as the first thread. */
const THREAD_KEY = 'clientTools.threadId';
const PERMISSIONS_KEY = 'clientTools.rememberedPermissions';

/** What `activate()` returns: other extensions register their own client tool groups through it. */
export interface ClientToolsApi {
  /** Registers a group with its tools; they get the same validation, permission gate and logging. Dispose to remove it. */
  registerToolGroup(group: ToolGroupSpec, tools: readonly ClientTool[]): vscode.Disposable;
  /** The registered groups as the Tool Groups view shows them: status (expanded, collapsed, …) and tools. */
  toolGroups(): ReturnType<ToolGroupsView['snapshot']>;
  /** The connection state: idle, connecting, connected, reconnecting or stopped. */
  connectionState(): ConnectionState['kind'];
  /** The status bar item's text. */
  statusText(): string;
}

/**
 * Everything the extension owns, built once in `activate()`: the log, the connection core, the
 * embedded backend (when no backend URL is set), the views and the status bar. Disposing it
 * releases all of them.
 */
export class ClientToolsContext implements vscode.Disposable {
  readonly log = vscode.window.createOutputChannel('Client Tools', { log: true });
  readonly statusBar = new StatusBar();
  readonly host = new VsCodeIdeHost();
  readonly toolGroups = new ToolGroupsView();
  /** The bundled backend's model endpoint as its connection test found it (the chat header shows it). */
  readonly modelEndpoint = new ModelEndpointCheck();
  readonly chat: ChatViewProvider;
  /** Permission prompts shown in the chat (`promptStyle: chat`). */
  readonly chatPrompts: ChatPromptPresenter;
  /** The presenter of every permission prompt: the chat's card or the modal, by `promptStyle`. */
  readonly prompts: PromptStyleSwitch;
  /** Allow / Ask / Deny per tool, set in the Tool Groups view. */
  readonly toolPolicies: ToolPolicyStore;
  readonly threads: ChatThreads;
  readonly core: ClientCore;
  /** Every run's change list in the chat, with Keep and Undo (kept in the workspace's storage). */
  readonly runChanges: RunChangeList;
  /** The user's MCP servers as `MCP: <server>` groups. */
  readonly mcpServers: McpServersBridge;
  /** ACP agents in the chat (Claude Code, Gemini CLI, …) and the chat's agent picker. */
  readonly agents: AgentsHost;
  /** What the status line says of the chat's own backend (shown while the thread shown talks to it). */
  private backendStatus: ChatStatus = { connection: 'disconnected' };
  private embedded: EmbeddedBackend | undefined;
  private endpointLabel = '';
  /** Counts `connect()` calls; see there. */
  private connectGeneration = 0;
  private readonly disposables: vscode.Disposable[] = [];

  constructor(readonly extension: vscode.ExtensionContext) {
    const config = readConfig();
    this.chat = ChatViewProvider.register(extension.extensionUri, this.log);
    this.chatPrompts = new ChatPromptPresenter(this.chat, this.log);
    this.prompts = new PromptStyleSwitch({ chat: this.chatPrompts, modal: new ModalPromptPresenter() }, readPromptStyle);
    const pkg = extension.extension.packageJSON as { version?: string };
    this.core = new ClientCore({
      url: '',
      token: '',
      clientInfo: { name: 'client-tools-vscode', version: pkg.version ?? '0.0.0', ide: `${vscode.env.appName} ${vscode.version}`, pid: process.pid },
      host: this.host,
      presenter: this.prompts,
      logger: channelLogger(this.log),
      limits: { ...config.limits },
      connection: { reconnect: { maxAttempts: config.reconnect.maxAttempts, maxDelayMs: config.reconnect.maxDelaySeconds * 1000 } },
      permissions: {
        store: workspacePermissionStore(extension.workspaceState),
        rememberScope: config.permissions.rememberScope,
        promptTimeoutMs: config.permissions.promptTimeoutSeconds * 1000,
        backgroundCalls: config.permissions.backgroundCalls,
      },
      onFileWritten: (write, call) => this.runChanges.fileWritten(write, call),
    });
    this.runChanges = new RunChangeList(path.join((extension.storageUri ?? extension.globalStorageUri).fsPath, 'run-changes.json'), this.chat, this.log);
    const adoptId = extension.workspaceState.get<string>(THREAD_KEY);
    this.threads = new ChatThreads({
      // Per workspace when there is one; windows without a folder share the global list.
      dir: path.join((extension.storageUri ?? extension.globalStorageUri).fsPath, 'threads'),
      chat: this.chat,
      log: this.log,
      forgetThread: (threadId) => {
        this.agents.forgetThread(threadId);
        this.runChanges.forgetThread(threadId);
        try {
          this.core.resetThread(threadId);
        } catch {
          // Not connected: the backend drops the thread with the session.
        }
      },
      ...(adoptId !== undefined ? { adoptId } : {}),
    });
    this.disposables.push(
      this.log, this.statusBar, this.host, this.prompts, this.toolGroups, this.chat, this.threads, this.runChanges,
      ...registerBuiltinGroups(this.core.registry),
      new LmToolsBridge(this.core.registry, this.log),
      new EditorContextPusher(this.core, this.host),
      vscode.window.registerTreeDataProvider(Views.toolGroups, this.toolGroups),
      this.core.onDidChangeState((s) => this.onState(s)),
      this.core.onRunEvent((e) => {
        this.runChanges.noteRunEvent(e);
        this.chat.postRunEvent(e);
        this.noteModelAnswer(e);
      }),
      this.core.onCallRecord((r) => this.chat.postCallRecord(r)),
      ...showReviewsInChat(this.host.diffs, this.chat),
      ...showReviewsInChat(this.host.changes, this.chat),
      this.core.onToolGroupState((s) => this.toolGroups.setState(s)),
      this.core.onServerError((e) => {
        this.log.warn(`backend error ${e.code}: ${e.message}`);
        if (e.code === ErrorCode.RunBusy) this.chat.showError(e.message, e.code, false);
      }),
      this.core.registry.onDidChange(() => this.toolGroups.setDefinitions(this.core.registry.allDefinitions())),
      this.core.permissions.onDidChangeActivity((a) => this.chat.setAwaitingInput(a.open > 0)),
      this.prompts.onDidChangePrompt((p) => (p.open ? this.statusBar.permissionPromptOpened() : this.statusBar.permissionPromptClosed())),
      this.chat.onDidSend(({ text, context }) => this.send(text, context, false)),
      this.chat.onDidRetry(({ text, context }) => this.send(text, context, false)),
      this.chat.onDidStop(() => this.stopRun()),
      this.chat.onDidSteer((request) => this.steer(request)),
      this.chat.onDidCompact(() => this.compact()),
      this.chat.onDidNewChat(() => this.newChat()),
      this.chat.onDidAnswerQuestion((a) => this.host.questions.answer(a.recordId, a.index)),
      this.modelEndpoint,
      this.modelEndpoint.onDidChange(() => {
        const s = this.core.state;
        if (s.kind !== 'connected') return;
        this.statusBar.set(this.connectedBarState(s.welcome.server.model));
        this.setBackendStatus(this.connectedStatus(s.welcome.server.model));
      }),
      vscode.workspace.onDidGrantWorkspaceTrust(() => this.core.setWorkspaceTrusted(true)),
      vscode.workspace.onDidChangeConfiguration((e) => {
        if (e.affectsConfiguration('clientTools.permissions.rememberScope')) this.core.permissions.setRememberScope(readConfig().permissions.rememberScope);
        if (e.affectsConfiguration('clientTools.permissions.promptTimeoutSeconds')) this.core.permissions.setPromptTimeout(readConfig().permissions.promptTimeoutSeconds * 1000);
        if (e.affectsConfiguration('clientTools.permissions.backgroundCalls')) this.core.setBackgroundCalls(readConfig().permissions.backgroundCalls);
        if (affectsConnection(e)) void this.reconnect();
      }),
      extension.secrets.onDidChange((e) => {
        if (e.key === SecretKeys.apiKey || e.key === SecretKeys.backendToken) void this.reconnect();
      }),
    );
    // Pushed last, so disposed first: open prompts are withdrawn while the chat still exists.
    this.disposables.push(this.chatPrompts);
    this.toolPolicies = new ToolPolicyStore(extension.workspaceState);
    this.core.permissions.setToolPolicies(this.toolPolicies);
    this.toolGroups.setToolLookup((name) => this.core.registry.get(name));
    this.toolGroups.setPolicies(this.toolPolicies);
    this.disposables.push(this.toolPolicies, this.toolPolicies.onDidChange(() => this.toolGroups.refresh()));
    this.disposables.push(keepSwitchedOffTools(this.core.registry, this.toolPolicies), tellAgentWhatIsOff(this.core, this.toolPolicies));
    this.toolGroups.setDefinitions(this.core.registry.allDefinitions());
    this.mcpServers = new McpServersBridge(this.core.registry, this.log, new McpApprovals(extension.globalState), pkg.version ?? '0.0.0');
    // Pushed after the chat prompts, so disposed before them: every server stops first.
    this.disposables.push(this.mcpServers, this.mcpServers.onDidChangeNotices((n) => this.toolGroups.setNotices(n)));
    this.agents = new AgentsHost({
      extension,
      core: this.core,
      host: this.host,
      chat: this.chat,
      threads: this.threads,
      log: this.log,
      newChat: () => this.newChat(),
      backendStatus: () => this.backendStatus,
    });
    // Disposed before the chat prompts too: every agent process stops and its prompts close first.
    this.disposables.push(this.agents);
    const rewinder = new Rewinder({
      chat: this.chat,
      changes: this.runChanges,
      currentThread: () => this.threads.currentId,
      canTruncate: (threadId) => !this.agents.handles(threadId) && this.core.backendCan('truncateThread'),
      agentName: (threadId) => (this.agents.handles(threadId) ? this.agents.agentName(threadId) : 'The backend'),
      truncate: (threadId, runId) => this.core.truncateThread(threadId, runId),
      log: this.log,
    });
    this.disposables.push(this.chat.onDidRewind((request) => void rewinder.rewind(request)));
  }

  get api(): ClientToolsApi {
    return {
      registerToolGroup: (group, tools) => registerExternalGroup(this.core.registry, this.log, group, tools),
      toolGroups: () => this.toolGroups.snapshot(),
      connectionState: () => this.core.state.kind,
      statusText: () => this.statusBar.text,
    };
  }

  get connectionState(): ConnectionState {
    return this.core.state;
  }

  get endpoint(): string {
    return this.endpointLabel;
  }

  /** Resolves where to connect (configured backend, or the bundled one started now) and connects. */
  async connect(): Promise<void> {
    // Settings and secrets can change several times in a row (each change reconnects): only the
    // latest call may set the endpoint, or a slow bundled-backend start could win over a backend
    // URL set a moment later.
    const generation = ++this.connectGeneration;
    const stale = () => generation !== this.connectGeneration;
    const config = readConfig();
    try {
      if (config.backendUrl) {
        this.embedded?.dispose();
        this.embedded = undefined;
        // The secret store first; CLIENT_TOOLS_BACKEND_TOKEN serves automation (CI, dev containers)
        // where nobody can type into an input box. Never a setting: a workspace could plant it.
        const token = (await this.extension.secrets.get(SecretKeys.backendToken)) ?? process.env.CLIENT_TOOLS_BACKEND_TOKEN ?? '';
        if (stale()) return;
        this.endpointLabel = config.backendUrl;
        this.core.setEndpoint(config.backendUrl, token, readBackendFallbackUrls());
      } else {
        if (!this.embedded) {
          const apiKey = await this.extension.secrets.get(SecretKeys.apiKey);
          if (stale()) return;
          void this.modelEndpoint.check(config.model, apiKey);
          this.embedded = new EmbeddedBackend({
            extensionPath: this.extension.extensionPath,
            baseUrl: config.model.baseUrl,
            model: config.model.name,
            api: config.model.api,
            provider: config.model.provider,
            azure: config.model.azure,
            contextWindow: config.model.contextWindow,
            apiKey,
            vision: config.model.vision,
            imageMaxSide: config.model.imageMaxSide,
            patience: { firstByteTimeoutSeconds: config.model.firstByteTimeoutSeconds, idleTimeoutSeconds: config.model.idleTimeoutSeconds, retries: config.model.retries },
            invokeTimeoutSeconds: config.invokeTimeoutSeconds,
            disconnectStrategy: config.disconnectStrategy,
            dataDir: vscode.Uri.joinPath(this.extension.globalStorageUri, 'conversations').fsPath,
            log: this.log,
          });
          this.embedded.onDidRestart((ep) => this.core.setEndpoint(ep.url, ep.token));
        }
        this.statusBar.set({ kind: 'connecting', target: 'bundled backend' });
        const ep = await this.embedded.start();
        if (stale()) return;
        this.endpointLabel = `${ep.url} (bundled)`;
        this.core.setEndpoint(ep.url, ep.token);
      }
      this.core.start();
    } catch (e) {
      if (stale()) return;
      const reason = e instanceof Error ? e.message : String(e);
      this.log.error(`Cannot connect: ${reason}`);
      this.statusBar.set({ kind: 'stopped', reason });
      this.setBackendStatus({ connection: 'disconnected', detail: reason });
    }
  }

  disconnect(): void {
    this.core.stop();
  }

  /** Applies changed settings or secrets: restarts the bundled backend and connects again. */
  async reconnect(): Promise<void> {
    const config = readConfig();
    this.core.reconfigure({
      limits: { ...config.limits },
      connection: { reconnect: { maxAttempts: config.reconnect.maxAttempts, maxDelayMs: config.reconnect.maxDelaySeconds * 1000 } },
    });
    this.core.stop();
    this.embedded?.dispose();
    this.embedded = undefined;
    await this.connect();
  }

  /** Sends a chat message, with the editor's selection as context when asked: to the thread's agent, or the backend. */
  send(text: string, context: EditorContext | undefined, echo: boolean): void {
    if (echo) this.chat.showUserMessage(text, context);
    const threadId = this.threads.currentId;
    if (this.agents.handles(threadId)) {
      this.agents.send(threadId, text, context);
      return;
    }
    try {
      this.core.sendUserMessage(threadId, text, context);
      this.agents.noteBackendMessage(threadId);
      this.threads.noteUserMessage(text);
    } catch (e) {
      const code = e instanceof CodedError ? e.code : ErrorCode.Internal;
      const message = code === ErrorCode.Disconnected ? 'Not connected to the agent backend: Connect, or see the log (Client Tools: Show Log).' : (e as Error).message;
      this.chat.showError(message, code, true);
    }
  }

  /**
   * A message typed while the backend's run works, for its next tool boundary. An ACP agent takes
   * none during a turn: the view keeps it and sends it as the next message once the turn is over.
   */
  steer(request: SteerRequest): void {
    const threadId = this.threads.currentId;
    if (this.agents.handles(threadId)) return;
    try {
      this.core.sendSteer(request.type === 'steer'
        ? { type: 'steer', threadId, runId: request.runId, steerId: request.steerId, text: request.text }
        : { type: 'withdrawSteer', threadId, runId: request.runId, steerId: request.steerId });
    } catch (e) {
      this.chat.showError((e as Error).message, e instanceof CodedError ? e.code : ErrorCode.Internal, false);
    }
  }

  /** Compact now, for the backend's conversation (ACP agents compact on their own). */
  compact(): void {
    const threadId = this.threads.currentId;
    if (this.agents.handles(threadId)) {
      this.chat.showError('This agent manages its own context; Compact now works with the chat\'s own backend.', ErrorCode.InvalidMessage, false);
      return;
    }
    try {
      this.core.compactThread(threadId);
    } catch (e) {
      this.chat.showError((e as Error).message, e instanceof CodedError ? e.code : ErrorCode.Internal, false);
    }
  }

  stopRun(): void {
    if (this.agents.handles(this.threads.currentId)) {
      this.agents.stop(this.threads.currentId);
      return;
    }
    try {
      this.core.cancel(this.threads.currentId);
    } catch (e) {
      this.log.warn(`Stop: ${(e as Error).message}`);
    }
  }

  /**
   * Starts a fresh thread and shows it; the old one stays in the history list, and in the backend,
   * to be switched back to.
   */
  newChat(): void {
    this.threads.newChat();
    this.agents.refresh();
  }

  /** Opens the chat with its history list showing. */
  async showHistory(): Promise<void> {
    await vscode.commands.executeCommand(`${Views.chat}.focus`);
    this.chat.showHistory();
  }

  /** The backend's status for the chat: shown unless the thread shown talks to an ACP agent. */
  private setBackendStatus(status: ChatStatus): void {
    this.backendStatus = status;
    // Before the agents exist (constructor), the backend's status goes straight to the chat.
    if (this.agents) this.agents.backendStatusChanged();
    else this.chat.setStatus(status);
  }

  /** Connected to the backend, and whether its model endpoint answered its connection test. */
  private connectedStatus(model: { name: string; offline: boolean }): ChatStatus {
    const unreachable = model.offline ? undefined : this.modelEndpoint.unreachableReason;
    return { connection: 'connected', model: model.name, offline: model.offline, ...(unreachable ? { modelUnreachable: unreachable } : {}) };
  }

  /** The status bar's connected state: it says "model unreachable" exactly when the chat header does. */
  private connectedBarState(model: { name: string; offline: boolean }): StatusState {
    const unreachable = model.offline ? undefined : this.modelEndpoint.unreachableReason;
    return { kind: 'connected', target: this.endpointLabel, model: model.name, offline: model.offline, ...(unreachable ? { modelUnreachable: unreachable } : {}) };
  }

  /** A run whose model did not answer in time marks the endpoint unreachable (header and status bar); a completed run clears that. */
  private noteModelAnswer(e: RunEvent): void {
    if (e.type === 'runError' && e.code === ErrorCode.ModelTimeout) this.modelEndpoint.noteNoAnswer(e.message.split(': ')[0].slice(0, 300));
    else if (e.type === 'runFinished' && e.reason === 'completed') this.modelEndpoint.noteAnswered();
  }

  private onState(s: ConnectionState): void {
    void vscode.commands.executeCommand('setContext', ContextKeys.connectionState, s.kind);
    void vscode.commands.executeCommand('setContext', ContextKeys.connected, s.kind === 'connected');
    switch (s.kind) {
      case 'idle':
        this.statusBar.set({ kind: 'idle' });
        this.setBackendStatus({ connection: 'disconnected' });
        this.toolGroups.setState(undefined);
        break;
      case 'connecting':
        this.statusBar.set({ kind: 'connecting', target: this.endpointLabel });
        this.setBackendStatus({ connection: 'connecting' });
        break;
      case 'connected': {
        const model = s.welcome.server.model;
        this.statusBar.set(this.connectedBarState(model));
        this.setBackendStatus(this.connectedStatus(model));
        this.log.info(`Connected to ${this.endpointLabel} (session ${s.sessionId}${s.resumed ? ', resumed' : ''}; model ${model.name}${model.offline ? ', offline demo' : ''})`);
        break;
      }
      case 'reconnecting':
        this.statusBar.set({ kind: 'reconnecting', target: this.endpointLabel, attempt: s.attempt, reason: s.reason });
        this.setBackendStatus({ connection: 'reconnecting', detail: s.reason });
        break;
      case 'stopped':
        this.statusBar.set({ kind: 'stopped', reason: `${s.reason} (${s.code}).` });
        this.setBackendStatus({ connection: 'disconnected', detail: s.reason });
        this.toolGroups.setState(undefined);
        // The reason can be the backend's own handshake error text: through the door, or it could carry a command: link.
        void ui.showError(safe`Client Tools: disconnected from the agent backend: ${uiText(s.reason)}`, RETRY, SHOW_LOG).then((choice) => {
          if (choice === RETRY) this.core.retry();
          else if (choice === SHOW_LOG) this.log.show();
        });
        break;
    }
  }

  dispose(): void {
    this.core.dispose();
    this.embedded?.dispose();
    for (const d of this.disposables.reverse()) d.dispose();
  }
}

const RETRY = safe`Retry`;
const SHOW_LOG = safe`Show Log`;

/**
 * Grants remembered per workspace when the user set `rememberScope: workspace`. Entries that do not
 * parse as a target-bound grant are dropped: older versions stored bare tool names, which covered
 * every call of the tool.
 */
function workspacePermissionStore(state: vscode.Memento): PermissionStore {
  const read = (): Grant[] => {
    const stored = state.get<unknown>(PERMISSIONS_KEY);
    return Array.isArray(stored) ? stored.map(parseStoredGrant).filter((g): g is Grant => g !== undefined) : [];
  };
  const others = (key: string) => read().filter((g) => grantKey(g) !== key);
  return {
    list: read,
    add: (grant) => Promise.resolve(state.update(PERMISSIONS_KEY, [...others(grantKey(grant)), grant])),
    remove: (key) => Promise.resolve(state.update(PERMISSIONS_KEY, others(key))),
    clear: () => Promise.resolve(state.update(PERMISSIONS_KEY, [])),
  };
}
