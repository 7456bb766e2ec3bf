/**
 * ACP agents in the chat, on the VS Code side: the agents on offer (`clientTools.agents` from the
 * user's settings only, plus the presets whose command is installed), the chat's agent picker,
 * which agent each thread talks to (workspace state), and the messages, Stop and deleted threads
 * of threads that talk to an agent. The agents themselves run in src/agents/ (`AgentChats`); their
 * run events and call records reach the chat like the backend's, named after the agent.
 */
import * as vscode from 'vscode';
import { AgentChats, withEditorContext } from '../../agents/agentChats';
import { findPresetAgents } from '../../agents/agentPresets';
import { parseAgentSettings, type AgentSpec } from '../../agents/agentSettings';
import type { AgentStatusChange } from '../../agents/sessionUpdates';
import { BACKEND, ThreadAgents, type ThreadAgent } from '../../agents/threadAgents';
import type { ClientCore } from '../../core/client';
import { CodedError, ErrorCode, type EditorContext } from '../../protocol';
import { BACKEND_AGENT, type ChatStatus } from '../../protocol/webview';
import type { ChatViewProvider } from '../chatView';
import type { VsCodeIdeHost } from '../ideHost';
import { channelLogger } from '../log';
import type { ChatThreads } from '../threads';
import { userValue } from '../userSetting';

const SETTING = 'clientTools.agents';
const THREADS_KEY = 'clientTools.agentThreads';
const PICKED_KEY = 'clientTools.agentPicked';

export interface AgentsHostOptions {
  extension: vscode.ExtensionContext;
  core: ClientCore;
  host: VsCodeIdeHost;
  chat: ChatViewProvider;
  threads: ChatThreads;
  log: vscode.LogOutputChannel;
  /** New Chat (an empty current thread is kept). */
  newChat(): void;
  /** What the status line says of the chat's own backend now. */
  backendStatus(): ChatStatus;
}

export class AgentsHost implements vscode.Disposable {
  private readonly bindings: ThreadAgents;
  private readonly chats: AgentChats;
  private agents: AgentSpec[] = [];
  /** What each agent said about itself last (its mode), by name. */
  private readonly statuses = new Map<string, AgentStatusChange>();
  private readonly disposables: vscode.Disposable[] = [];

  constructor(private readonly options: AgentsHostOptions) {
    const { extension, core, host, chat, log } = options;
    this.bindings = new ThreadAgents({
      get: () => extension.workspaceState.get<unknown>(THREADS_KEY),
      set: (value) => void extension.workspaceState.update(THREADS_KEY, value),
    });
    const pkg = extension.extension.packageJSON as { version?: string };
    this.chats = new AgentChats({
      core,
      workspace: host,
      bindings: this.bindings,
      logger: channelLogger(log),
      clientInfo: { name: 'client-tools-vscode', version: pkg.version ?? '0.0.0' },
      emit: (event, agent) => chat.postRunEvent(event, agent),
      onRecord: (record) => chat.postCallRecord(record),
      onStatus: (agent, change) => {
        this.statuses.set(agent, { ...this.statuses.get(agent), ...change });
        if (this.agentOf(options.threads.currentId) === agent) this.showStatus();
      },
    });
    this.disposables.push(
      vscode.workspace.onDidChangeConfiguration((e) => {
        if (e.affectsConfiguration(SETTING)) this.reload();
      }),
      chat.onDidPickAgent((name) => this.pick(name)),
      // Switching threads, deleting one, a rebuilt view: show the agent of the thread shown now.
      chat.onDidThreadRequest(() => setImmediate(() => this.refresh())),
    );
    this.reload();
  }

  /** Whether the thread talks to an ACP agent (else the chat's own backend). */
  handles(threadId: string): boolean {
    return this.agentOf(threadId) !== BACKEND;
  }

  /** The chat's own backend got a message on the thread: it stays the backend's. */
  noteBackendMessage(threadId: string): void {
    this.bindings.bind(threadId, BACKEND);
  }

  /** Sends the user's message (already shown in the chat) to the thread's agent. */
  send(threadId: string, text: string, context: EditorContext | undefined): void {
    const name = this.agentOf(threadId);
    const spec = this.agents.find((a) => a.name === name);
    if (!spec) {
      this.options.chat.showError(`${name} is no longer on offer (removed from clientTools.agents, or its command is gone). Pick another agent for a new conversation.`, ErrorCode.AgentUnavailable, false);
      return;
    }
    this.bindings.bind(threadId, spec.name);
    this.options.threads.noteUserMessage(text);
    void this.chats.send(threadId, spec, withEditorContext(text, context)).catch((e: unknown) => {
      const code = e instanceof CodedError ? e.code : ErrorCode.Internal;
      const message = e instanceof Error ? e.message : String(e);
      this.options.log.warn(`Agent ${spec.name}: ${message}`);
      this.options.chat.showError(message, code, code !== ErrorCode.RunBusy);
    });
  }

  /** Stop on a thread that talks to an agent: cancels its turn. */
  stop(threadId: string): void {
    this.chats.stop(threadId);
  }

  /** The thread was deleted. */
  forgetThread(threadId: string): void {
    this.chats.forgetThread(threadId);
  }

  /** The picker and the status line follow the thread shown now. */
  refresh(): void {
    const current = this.agentOf(this.options.threads.currentId);
    this.options.chat.setAgents(this.agents.map((a) => ({ name: a.name, detail: `${a.command} ${a.args.join(' ')}`.trim().slice(0, 300) })), current === BACKEND ? BACKEND_AGENT : current);
    this.showStatus();
  }

  /** The chat's own backend's status changed: shown unless the thread shown talks to an agent. */
  backendStatusChanged(): void {
    if (!this.handles(this.options.threads.currentId)) this.options.chat.setStatus(this.options.backendStatus());
  }

  dispose(): void {
    for (const d of this.disposables) d.dispose();
    this.chats.dispose();
  }

  /** The thread's agent: the one it talks to, else (a thread with no message yet) the one picked last. */
  private agentOf(threadId: string): string {
    const bound: ThreadAgent | undefined = this.bindings.get(threadId);
    if (bound) return bound.agent;
    const picked = this.options.extension.globalState.get<string>(PICKED_KEY) ?? BACKEND;
    return picked === BACKEND || this.agents.some((a) => a.name === picked) ? picked : BACKEND;
  }

  private pick(name: string): void {
    if (name !== BACKEND && !this.agents.some((a) => a.name === name)) return;
    void this.options.extension.globalState.update(PICKED_KEY, name);
    const bound = this.bindings.get(this.options.threads.currentId);
    // A conversation stays with its agent: another agent gets a new one (an empty one is reused).
    if (bound && bound.agent !== name) this.options.newChat();
    this.refresh();
  }

  private reload(): void {
    const configured = parseAgentSettings(userValue(vscode.workspace.getConfiguration(), SETTING));
    for (const problem of configured.problems) this.options.log.warn(problem);
    const presets = findPresetAgents().filter((p) => !configured.agents.some((a) => a.name.toLowerCase() === p.name.toLowerCase()));
    const next = [...configured.agents, ...presets];
    // An agent whose command changed is stopped; the next message starts it as configured now.
    for (const old of this.agents) {
      const now = next.find((a) => a.name === old.name);
      if (!now || JSON.stringify(now) !== JSON.stringify(old)) this.chats.stopAgent(old.name);
    }
    this.agents = next;
    if (next.length > 0) this.options.log.info(`Agents on offer: ${next.map((a) => `${a.name} (${a.command})`).join(', ')}`);
    this.refresh();
  }

  private showStatus(): void {
    const name = this.agentOf(this.options.threads.currentId);
    if (name === BACKEND) {
      this.options.chat.setStatus(this.options.backendStatus());
      return;
    }
    const mode = this.statuses.get(name);
    const modeName = mode?.modes?.available.find((m) => m.id === (mode.currentMode ?? mode.modes?.current))?.name;
    const available = this.agents.some((a) => a.name === name);
    this.options.chat.setStatus(available
      ? { connection: 'connected', model: modeName ? `${name} · ${modeName}` : name }
      : { connection: 'disconnected', model: name, detail: `${name} is no longer on offer` });
  }
}
