/**
 * The chat's ACP agents: one process per agent (started on the first message that needs it, never
 * before), one session per chat thread on it with the editor's MCP server of its own, the thread's
 * session resumed or loaded after a reload where the agent offers that (with the user's reasons for
 * a Deny it had not received yet, kept in the binding). Run events, call records
 * and the agent's status go to the chat through the options. An agent that goes away ends its
 * threads' runs with AGENT_EXITED and is started again by the next message.
 */
import * as os from 'node:os';
import * as path from 'node:path';
import { CodedError, ErrorCode, type EditorContext, type RunEvent } from '../protocol';
import type { Disposable } from '../base/events';
import type { Logger } from '../base/logger';
import type { CallRecord } from '../core/callRecord';
import type { WorkspaceInfo } from '../core/host';
import { AgentConnection, type ConnectionLimits } from './agentConnection';
import { startAgentMcp, type AgentMcp, type AgentMcpCore } from './agentMcp';
import { launchOf, resolveCommand } from './agentPresets';
import { AgentSession, type Continuation } from './agentSession';
import type { AgentSpec } from './agentSettings';
import { gateCallbacks, type CallbackCore } from './dispatcherCallbacks';
import type { AgentStatusChange } from './sessionUpdates';
import { prepareLaunch } from './presetLaunch';
import type { ThreadAgents } from './threadAgents';

export interface AgentChatsOptions {
  core: CallbackCore & AgentMcpCore;
  workspace: WorkspaceInfo;
  bindings: ThreadAgents;
  logger: Logger;
  clientInfo: { name: string; version: string };
  /** A run event of `agent`'s run. */
  emit: (event: RunEvent, agent: string) => void;
  onRecord: (record: CallRecord) => void;
  onStatus?: (agent: string, change: AgentStatusChange, threadId: string) => void;
  limits?: Partial<ConnectionLimits>;
  cancelGraceMs?: number;
  /** The extension's own folder for the files a preset's launch needs (one folder per agent inside). */
  launchDir: string;
}

interface LiveSession {
  agent: string;
  session: AgentSession;
  mcp: AgentMcp;
}

export class AgentChats implements Disposable {
  private readonly connections = new Map<string, Promise<AgentConnection>>();
  private readonly sessions = new Map<string, Promise<LiveSession>>();
  private disposed = false;

  constructor(private readonly options: AgentChatsOptions) {}

  /**
   * Sends the user's message to the thread's agent: starts the agent and opens (or resumes) the
   * thread's session first if needed. Resolves when the run finished; throws a CodedError when the
   * agent could not be started or the session not opened (no run was started then), or RUN_BUSY.
   */
  async send(threadId: string, spec: AgentSpec, text: string): Promise<void> {
    const live = await this.sessionFor(threadId, spec);
    await live.session.prompt(text);
  }

  /** Stop: cancels the thread's turn, if one runs. */
  stop(threadId: string): boolean {
    const live = this.settled.get(threadId);
    if (!live?.session.running) return false;
    live.session.cancel();
    return true;
  }

  isRunning(threadId: string): boolean {
    return this.settled.get(threadId)?.session.running === true;
  }

  /** The thread was deleted: its session ends and its binding goes. */
  forgetThread(threadId: string): void {
    this.closeSession(threadId);
    this.options.bindings.forget(threadId);
  }

  /** An agent's settings changed: its process and sessions end (the next message starts it again). */
  stopAgent(name: string): void {
    const connection = this.connections.get(name);
    this.connections.delete(name);
    void connection?.then((c) => c.dispose(), () => undefined);
  }

  dispose(): void {
    this.disposed = true;
    for (const threadId of [...this.sessions.keys()]) this.closeSession(threadId);
    for (const name of [...this.connections.keys()]) this.stopAgent(name);
  }

  /** Sessions opened already, by thread (for synchronous questions). */
  private readonly settled = new Map<string, LiveSession>();

  private sessionFor(threadId: string, spec: AgentSpec): Promise<LiveSession> {
    const existing = this.sessions.get(threadId);
    const live = this.settled.get(threadId);
    if (existing && (!live || live.agent === spec.name)) return existing;
    if (existing) this.closeSession(threadId);
    const opening = this.openSession(threadId, spec);
    this.sessions.set(threadId, opening);
    opening.then((l) => {
      if (this.sessions.get(threadId) === opening) this.settled.set(threadId, l);
      else {
        // Closed (thread deleted, agent switched, disposed) while it was opening.
        l.session.dispose();
        l.mcp.dispose();
      }
    }, () => {
      if (this.sessions.get(threadId) === opening) this.sessions.delete(threadId);
    });
    return opening;
  }

  private async openSession(threadId: string, spec: AgentSpec): Promise<LiveSession> {
    const connection = await this.connectionFor(spec);
    const { core, bindings, logger } = this.options;
    const launch = launchOf(spec);
    let running = () => false;
    const caller = { agent: spec.name, threadId, isRunning: () => running() };
    const mcp = await startAgentMcp(core, caller, { serverVersion: this.options.clientInfo.version, logger, onRecord: this.options.onRecord, listing: launch.mcpTools });
    const callbacksFor = gateCallbacks(core, this.options.workspace, logger, this.options.onRecord, mcp.name, launch.reviewEditPermissions);
    const binding = bindings.get(threadId);
    const previous = binding?.agent === spec.name ? binding : undefined;
    let opened: { session: AgentSession; continuation: Continuation };
    try {
      opened = await AgentSession.open({
        agent: spec.name,
        threadId,
        connection,
        callbacks: (s) => callbacksFor({ ...caller, isRunning: () => s.isRunning() }),
        cwd: this.cwd(),
        mcpServers: [mcp.server],
        ...(launch.sessionMeta ? { sessionMeta: launch.sessionMeta } : {}),
        ...(launch.endTurnAtReasonedDeny === true ? { endTurnAtReasonedDeny: true } : {}),
        emit: (event) => this.options.emit(event, spec.name),
        onStatus: (change) => this.options.onStatus?.(spec.name, change, threadId),
        logger,
        ...(this.options.cancelGraceMs !== undefined ? { cancelGraceMs: this.options.cancelGraceMs } : {}),
        ...(previous?.sessionId !== undefined && previous.declined ? { savedDeclined: previous.declined } : {}),
        onDeclined: (saved) => bindings.setDeclined(threadId, spec.name, saved),
      }, previous?.sessionId);
    } catch (e) {
      mcp.dispose();
      throw e;
    }
    const { session, continuation } = opened;
    running = () => session.running;
    bindings.setSession(threadId, spec.name, session.sessionId);
    if (continuation === 'fresh') session.announce('Started a new session', `${spec.name} could not resume or load this conversation's earlier session, so it does not remember the earlier messages of this thread.`);
    logger.info('agent session opened', { agent: spec.name, continuation });
    const closed = connection.onClose((reason) => {
      closed.dispose();
      session.connectionClosed(reason);
      if (this.settled.get(threadId)?.session === session) this.closeSession(threadId);
    });
    return { agent: spec.name, session, mcp };
  }

  private connectionFor(spec: AgentSpec): Promise<AgentConnection> {
    const existing = this.connections.get(spec.name);
    if (existing) return existing;
    const command = resolveCommand(spec.command);
    if (command === undefined) {
      return Promise.reject(new CodedError(ErrorCode.AgentUnavailable, `${spec.name}: ${spec.command} was not found (an absolute path, or a name in one of PATH's absolute folders)`));
    }
    let launch: { args: string[]; env: Record<string, string> };
    try {
      launch = prepareLaunch(launchOf(spec), path.join(this.options.launchDir, folderName(spec.name)));
    } catch (e) {
      return Promise.reject(new CodedError(ErrorCode.AgentUnavailable, `${spec.name}: its launch files could not be written: ${e instanceof Error ? e.message : String(e)}`));
    }
    const starting = AgentConnection.start({
      name: spec.name,
      // The user's own arguments and variables come last: an entry can override what a preset adds.
      command: { command, args: [...spec.args, ...launch.args], env: { ...launch.env, ...spec.env }, cwd: this.cwd() },
      clientInfo: this.options.clientInfo,
      logger: this.options.logger,
      ...(this.options.limits ? { limits: this.options.limits } : {}),
    });
    this.connections.set(spec.name, starting);
    starting.then((connection) => {
      connection.onClose(() => {
        if (this.connections.get(spec.name) === starting) this.connections.delete(spec.name);
      });
    }, () => {
      if (this.connections.get(spec.name) === starting) this.connections.delete(spec.name);
    });
    return starting;
  }

  private closeSession(threadId: string): void {
    const live = this.settled.get(threadId);
    this.settled.delete(threadId);
    this.sessions.delete(threadId);
    if (!live) return;
    live.session.dispose();
    live.mcp.dispose();
  }

  /** The agent's working folder: the first workspace folder, else the home folder. */
  private cwd(): string {
    return this.options.workspace.workspaceFolders()[0]?.path ?? os.homedir();
  }
}

/** A folder name for an agent's launch files: its name with anything but letters and digits made `_`. */
function folderName(agent: string): string {
  return agent.replace(/[^A-Za-z0-9]/g, '_').slice(0, 64) || 'agent';
}

/** The message with the editor text attached to it (Ask About Selection), as the agent reads it. */
export function withEditorContext(text: string, context: EditorContext | undefined): string {
  if (!context?.selectedText) return text;
  const where = context.file ?? 'the editor';
  const lines = context.selection ? ` (lines ${context.selection.startLine + 1}-${context.selection.endLine + 1})` : '';
  // A fence longer than any run of backticks in the text, so the text cannot close it.
  const longest = Math.max(2, ...(context.selectedText.match(/`+/g) ?? []).map((run) => run.length));
  const fence = '`'.repeat(longest + 1);
  return `${text}\n\nSelected in ${where}${lines}:\n${fence}${context.language ?? ''}\n${context.selectedText}\n${fence}`;
}
