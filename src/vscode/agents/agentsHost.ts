/**
 * ACP agents in the chat, on the VS Code side: reads `clientTools.agents` from the user's settings
 * only and finds the installed presets (src/agents/agentChoice.ts decides which agent answers in
 * which thread), keeps each thread's agent in workspace state, wires the chat's agent picker, and
 * sends the messages, Stop and deleted threads of agent threads to `AgentChats`, whose run events
 * and call records reach the chat like the backend's, named after the agent.
 */
import * as vscode from 'vscode';
import { AgentChats, withEditorContext } from '../../agents/agentChats';
import { AgentChoice } from '../../agents/agentChoice';
import { findPresetAgents } from '../../agents/agentPresets';
import { parseAgentSettings } from '../../agents/agentSettings';
import { BACKEND, ThreadAgents } from '../../agents/threadAgents';
import type { ClientCore } from '../../core/clientCore';
import { CodedError, ErrorCode, type EditorContext } from '../../protocol';
import { BACKEND_AGENT, type ChatStatus } from '../../protocol/webview';
import type { ChatViewProvider } from '../chat/chatView';
import type { VsCodeIdeHost } from '../host/ideHost';
import { channelLogger } from '../log';
import type { ChatThreads } from '../chat/threads';
import { userValue } from '../settings/userSetting';

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
  private readonly choice: AgentChoice;
  private readonly chats: AgentChats;
  private readonly disposables: vscode.Disposable[] = [];

  constructor(private readonly options: AgentsHostOptions) {
    const { extension, core, host, chat, log } = options;
    this.bindings = new ThreadAgents({
      get: () => extension.workspaceState.get<unknown>(THREADS_KEY),
      set: (value) => void extension.workspaceState.update(THREADS_KEY, value),
    });
    this.choice = new AgentChoice(this.bindings, {
      get: () => extension.globalState.get<string>(PICKED_KEY),
      set: (name) => void extension.globalState.update(PICKED_KEY, name),
    });
    const pkg = extension.extension.packageJSON as { version?: string };
    this.chats = new AgentChats({
      core,
      workspace: host,
      bindings: this.bindings,
      logger: channelLogger(log),
      clientInfo: { name: 'client-tools-vscode', version: pkg.version ?? '0.0.0' },
      launchDir: vscode.Uri.joinPath(extension.globalStorageUri, 'agents').fsPath,
      emit: (event, agent) => chat.postRunEvent(event, agent),
      onRecord: (record) => chat.postCallRecord(record),
      onStatus: (agent, change, threadId) => {
        this.choice.noteStatus(agent, change, threadId);
        if (this.choice.agentOf(options.threads.currentId) === agent) this.showStatus();
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
    return this.choice.agentOf(threadId) !== BACKEND;
  }

  /** The name of the thread's agent, as the chat shows it. */
  agentName(threadId: string): string {
    return this.choice.agentOf(threadId);
  }

  /** The chat's own backend got a message on the thread: it stays the backend's. */
  noteBackendMessage(threadId: string): void {
    this.bindings.bind(threadId, BACKEND);
  }

  /** Sends the user's message (already shown in the chat) to the thread's agent. */
  send(threadId: string, text: string, context: EditorContext | undefined): void {
    const name = this.choice.agentOf(threadId);
    const spec = this.choice.spec(name);
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
    this.choice.forgetThread(threadId);
  }

  /** The picker and the status line follow the thread shown now. */
  refresh(): void {
    const current = this.choice.agentOf(this.options.threads.currentId);
    this.options.chat.setAgents(this.choice.pickerOptions(), current === BACKEND ? BACKEND_AGENT : current);
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

  private pick(name: string): void {
    const picked = this.choice.pick(name, this.options.threads.currentId);
    if (!picked.accepted) return;
    if (picked.newConversation) this.options.newChat();
    this.refresh();
  }

  private reload(): void {
    const configured = parseAgentSettings(userValue(vscode.workspace.getConfiguration(), SETTING));
    for (const problem of configured.problems) this.options.log.warn(problem);
    // An agent that is gone or changed is stopped; the next message starts it as configured now.
    for (const name of this.choice.setAgents(configured.agents, findPresetAgents())) this.chats.stopAgent(name);
    const agents = this.choice.agents;
    if (agents.length > 0) this.options.log.info(`Agents on offer: ${agents.map((a) => `${a.name} (${a.command})`).join(', ')}`);
    this.refresh();
  }

  private showStatus(): void {
    this.options.chat.setStatus(this.choice.statusOf(this.options.threads.currentId) ?? this.options.backendStatus());
  }
}
