/**
 * Today's `AgentCallbacks`: each of the agent's requests is exactly the client tool call a backend
 * would make, with the agent as its caller, decided by the one consent module and run by the same tools.
 * - `fs/read_text_file` is ReadFile (its path containment and protected-file prompt, its TOCTOU
 *   checks and read limit); a binary file is refused.
 * - `fs/write_text_file` is OpenDiff: the user reviews the proposal hunk by hunk and only what they
 *   kept is written (checked against what was reviewed at the moment of writing). Anything short of
 *   the whole proposal fails the request with the user's choices and reason, so the agent knows.
 * - `terminal/create` is RunInTerminal: the exact command line (arguments quoted for the shell)
 *   asked every time, its own terminal, its time limit. It answers once the command runs (or fails
 *   with the user's reason); output, exit, kill and release follow that call.
 * - `session/request_permission` is decided by the consent module with a prompt built from the tool
 *   call (permissionPrompt.ts); an allow is answered with the agent's allow-once option, so the agent
 *   asks again next time and the editor keeps every decision (its remembered grants included).
 *   A request for a tool of the session's own editor MCP server (editorToolRequest.ts) is answered
 *   allow-once without a prompt: the call comes to the consent module with its arguments, one decision.
 */
import { randomUUID } from 'node:crypto';
import { CodedError, ErrorCode, type ClientToolInvokeResponse, type ErrorCode as Code } from '../protocol';
import type { Logger } from '../base/logger';
import type { CallRecord } from '../core/callRecord';
import type { WorkspaceInfo } from '../core/host';
import type { BackgroundRefusal, Consent, ConsentDecision } from '../core/consent/consent';
import type { AgentCallbacks, AgentCaller, AgentExitStatus, AgentPermissionOutcome, AgentPermissionRequest, AgentReadRequest, AgentTerminalOutput, AgentTerminalRequest, AgentWriteRequest } from './agentCallbacks';
import { EditReview, type EditReviewMode } from './editReview';
import { editorToolRequestOf } from './editorToolRequest';
import { describePermission, type PromptWorkspace } from './permissionPrompt';
import { describesItself } from './toolCalls';
import { ToolRunner, type RunnerDispatcherFactory } from './toolRunner';

export const CALLBACK_LIMITS = {
  /** Terminals one session may hold (running or not yet released). */
  maxTerminals: 16,
  /** The time limit a command gets: the most RunInTerminal allows; the agent stops it sooner with terminal/kill. */
  terminalTimeoutSeconds: 600,
} as const;

export interface DispatcherCallbacksOptions {
  caller: AgentCaller;
  runner: ToolRunner;
  consent: Consent;
  workspace: () => PromptWorkspace;
  logger: Logger;
  /** The name of the session's editor MCP server (agentMcp.ts): requests for its tools are the gate's on the call. */
  editorServer?: string;
  /** An edit's permission request is the per-hunk review itself (the agent writes on its own once allowed: editReview.ts). */
  reviewEditPermissions?: EditReviewMode;
}

/** The card's note on a request for an editor tool, answered without a prompt. */
export const EDITOR_DECIDES = 'The editor\'s own permission rules decide this call when it runs';

interface Terminal {
  id: string;
  abort: AbortController;
  result: Promise<TerminalEnd>;
  end?: TerminalEnd;
  outputByteLimit?: number;
}

interface TerminalEnd {
  output: string;
  truncated: boolean;
  exit: AgentExitStatus;
}

export class DispatcherCallbacks implements AgentCallbacks {
  private readonly terminals = new Map<string, Terminal>();
  private readonly inFlight = new Set<AbortController>();
  private disposed = false;
  private readonly edits: EditReview | undefined;

  constructor(private readonly options: DispatcherCallbacksOptions) {
    this.edits = options.reviewEditPermissions !== undefined ? new EditReview(options.reviewEditPermissions, options.workspace, (name, args, signal) => this.run(name, args, signal)) : undefined;
  }

  async requestPermission(request: AgentPermissionRequest, signal: AbortSignal): Promise<AgentPermissionOutcome> {
    const { toolCall } = request;
    if (!request.announced && !describesItself(toolCall)) {
      throw new CodedError(ErrorCode.UnannouncedToolCall, `${this.options.caller.agent} asked permission for tool call ${toolCall.toolCallId.slice(0, 100)}, which it never announced and which says nothing about what it would do; refused without asking the user`);
    }
    const forEditor = this.options.editorServer !== undefined ? editorToolRequestOf(toolCall, this.options.editorServer) : undefined;
    const once = request.options.find((o) => o.kind === 'allow_once');
    if (forEditor !== undefined && once !== undefined) {
      this.options.logger.info('agent permission request for an editor tool: the gate decides the call itself', { agent: this.options.caller.agent, tool: forEditor.tool ?? '(unnamed)' });
      return { outcome: 'selected', optionId: once.optionId, note: EDITOR_DECIDES };
    }
    const edit = this.edits?.diffsOf(request);
    if (this.edits !== undefined && edit !== undefined) {
      const outcome = await this.withSignal(signal, (s) => (this.edits as EditReview).decide(request, edit, s));
      this.options.logger.info('agent edit decided in the per-hunk review', { agent: this.options.caller.agent, written: outcome.outcome === 'selected' && outcome.partialWrite !== undefined ? 'part' : 'as asked' });
      return outcome;
    }
    const prompt = await describePermission(this.options.caller.agent, toolCall, this.options.workspace());
    const { caller } = this.options;
    const consent = this.options.consent.admit({ kind: 'agent', label: caller.agent, userRun: caller.isRunning() });
    const decision = consent.refusal() ?? await this.withSignal(signal, (s) => consent.decide({
      requestId: `agent-permission-${randomUUID()}`,
      tool: { key: prompt.toolKey, name: prompt.toolName, group: prompt.groupName, requiresPermission: true },
      preparation: { prompt: prompt.message, detail: prompt.detail, forcePrompt: !prompt.rememberable, ...(prompt.target ? { grantTarget: prompt.target } : {}) },
      signal: s,
    }));
    this.options.logger.info('agent permission request decided', { agent: this.options.caller.agent, kind: toolCall.kind, decision: decision.kind });
    return outcomeFor(decision, request);
  }

  async readTextFile(request: AgentReadRequest, signal: AbortSignal): Promise<{ content: string }> {
    const args: Record<string, unknown> = { path: request.path };
    if (request.line !== undefined && request.line >= 1) args.startLine = Math.floor(request.line);
    if (request.limit !== undefined && request.limit >= 1) args.endLine = Math.floor((request.line ?? 1) + request.limit - 1);
    const response = await this.run('ReadFile', args, signal);
    const text = response.content.find((c) => c.type === 'text');
    if (!text || text.type !== 'text') throw new CodedError(ErrorCode.InvalidArguments, `${request.path} is not a text file; fs/read_text_file reads text`);
    return { content: text.text };
  }

  async writeTextFile(request: AgentWriteRequest, signal: AbortSignal): Promise<void> {
    // The write of an edit the user already decided in its permission request: answered from that decision.
    if (await this.edits?.answerWrite(request)) return;
    const response = await this.run('OpenDiff', { path: request.path, newContent: request.content }, signal);
    const result = jsonOf(response) as { decision?: string; unchanged?: boolean; keptHunks?: number[]; rejectedHunks?: number[]; editedByUser?: boolean; reason?: string; path?: string };
    if (result.decision === 'accepted' && result.editedByUser !== true) return;
    if (result.unchanged === true) return;
    const why = result.reason !== undefined ? ` The user's reason: "${result.reason}".` : '';
    if (result.decision === 'rejected') throw new CodedError(ErrorCode.PermissionDenied, `The user rejected the change to ${result.path ?? request.path}; nothing was written.${why}`);
    const kept = result.keptHunks?.length ? ` kept hunks ${result.keptHunks.join(', ')}` : '';
    const rejected = result.rejectedHunks?.length ? ` rejected hunks ${result.rejectedHunks.join(', ')}` : '';
    const edited = result.editedByUser === true ? ' edited the proposal' : '';
    throw new CodedError(ErrorCode.PermissionDenied, `The user accepted only part of the change to ${result.path ?? request.path}:${[kept, rejected, edited].filter(Boolean).join(';')}. The file now holds what the user kept; read it again before changing it further.${why}`);
  }

  async startTerminal(request: AgentTerminalRequest, signal: AbortSignal): Promise<{ terminalId: string }> {
    if (this.terminals.size >= CALLBACK_LIMITS.maxTerminals) {
      throw new CodedError(ErrorCode.LimitExceeded, `${this.options.caller.agent} holds ${this.terminals.size} terminals already (limit ${CALLBACK_LIMITS.maxTerminals}); release one first`);
    }
    const command = [request.command, ...request.args.map(shellQuote)].join(' ');
    if (request.env.length > 0) this.options.logger.info('agent terminal environment not applied', { agent: this.options.caller.agent, names: request.env.map((e) => e.name).join(',').slice(0, 200) });
    const abort = new AbortController();
    const onAbort = () => abort.abort();
    signal.addEventListener('abort', onAbort, { once: true });
    let markRunning: () => void = () => {};
    const running = new Promise<void>((resolve) => (markRunning = resolve));
    const response = this.options.runner.run('RunInTerminal', {
      command,
      ...(request.cwd !== undefined ? { cwd: request.cwd } : {}),
      timeoutSeconds: CALLBACK_LIMITS.terminalTimeoutSeconds,
    }, { signal: abort.signal, onProgress: (status) => status === 'running' && markRunning() });
    const first = await Promise.race([running.then(() => undefined), response]);
    signal.removeEventListener('abort', onAbort);
    if (first !== undefined) throw errorOf(first);
    const id = `terminal-${randomUUID()}`;
    const terminal: Terminal = {
      id,
      abort,
      ...(request.outputByteLimit !== undefined ? { outputByteLimit: request.outputByteLimit } : {}),
      result: response.then((r) => terminalEnd(r)),
    };
    void terminal.result.then((end) => (terminal.end = end));
    this.terminals.set(id, terminal);
    return { terminalId: id };
  }

  async terminalOutput(terminalId: string): Promise<AgentTerminalOutput> {
    const t = this.terminal(terminalId);
    // RunInTerminal reports its output when the command ends; until then there is none to give.
    if (!t.end) return { output: '', truncated: false };
    const kept = keepTail(t.end.output, t.outputByteLimit);
    return { output: kept.text, truncated: t.end.truncated || kept.cut, exitStatus: t.end.exit };
  }

  async waitForTerminalExit(terminalId: string, signal: AbortSignal): Promise<AgentExitStatus> {
    const t = this.terminal(terminalId);
    const end = await this.withSignal(signal, () => t.result);
    return end.exit;
  }

  async killTerminal(terminalId: string): Promise<void> {
    this.terminal(terminalId).abort.abort();
  }

  async releaseTerminal(terminalId: string): Promise<void> {
    const t = this.terminals.get(terminalId);
    if (!t) return;
    t.abort.abort();
    this.terminals.delete(terminalId);
  }

  /** The output of a terminal that ended (for the chat's card), if this session still holds it. */
  outputOf(terminalId: string): string | undefined {
    return this.terminals.get(terminalId)?.end?.output;
  }

  dispose(): void {
    if (this.disposed) return;
    this.disposed = true;
    for (const c of this.inFlight) c.abort();
    for (const t of this.terminals.values()) t.abort.abort();
    this.terminals.clear();
    this.options.runner.dispose();
  }

  private terminal(id: string): Terminal {
    const t = this.terminals.get(id);
    if (!t) throw new CodedError(ErrorCode.NotFound, `no terminal ${id.slice(0, 100)} in this session (released, or never created)`);
    return t;
  }

  /** Runs a client tool; a failed call becomes its CodedError. */
  private async run(toolName: string, args: Record<string, unknown>, signal: AbortSignal): Promise<ClientToolInvokeResponse> {
    if (this.disposed) throw new CodedError(ErrorCode.Cancelled, 'the agent session ended');
    const response = await this.withSignal(signal, (s) => this.options.runner.run(toolName, args, { signal: s }));
    if (!response.success) throw errorOf(response);
    return response;
  }

  /** Work that stops when the request is withdrawn or the session ends. */
  private async withSignal<T>(signal: AbortSignal, work: (signal: AbortSignal) => Promise<T>): Promise<T> {
    const own = new AbortController();
    const onAbort = () => own.abort();
    signal.addEventListener('abort', onAbort, { once: true });
    if (signal.aborted) own.abort();
    this.inFlight.add(own);
    try {
      return await work(own.signal);
    } finally {
      signal.removeEventListener('abort', onAbort);
      this.inFlight.delete(own);
    }
  }
}

/** The agent's option for the consent decision: allow-once only (never "always": the gate remembers), reject-once, or cancelled. */
function outcomeFor(decision: ConsentDecision | BackgroundRefusal, request: AgentPermissionRequest): AgentPermissionOutcome {
  const pick = (...kinds: string[]) => kinds.map((k) => request.options.find((o) => o.kind === k)).find((o) => o !== undefined);
  if (decision.kind === 'cancelled') return { outcome: 'cancelled' };
  if (decision.kind === 'allowed' || decision.kind === 'notAsked') {
    const allow = pick('allow_once');
    if (allow) return { outcome: 'selected', optionId: allow.optionId };
  }
  const reject = pick('reject_once', 'reject_always');
  const reason = decision.kind === 'denied' && decision.via !== 'backgroundCalls' ? decision.reason : decision.kind === 'refused' ? decision.message : undefined;
  // Only what the user wrote in the prompt goes to the agent as a message (not a refusal's or a policy's words).
  const typed = decision.kind === 'denied' && decision.via === 'user' ? decision.reason : undefined;
  if (!reject) return { outcome: 'cancelled', ...(typed ? { userReason: typed } : {}) };
  return { outcome: 'selected', optionId: reject.optionId, ...(reason !== undefined ? { reason } : {}), ...(typed ? { userReason: typed } : {}) };
}

function errorOf(response: ClientToolInvokeResponse): CodedError {
  const code = (response.errorCode ?? ErrorCode.ToolFailed) as Code;
  return new CodedError(code, response.errorMessage ?? 'the call failed');
}

function jsonOf(response: ClientToolInvokeResponse): Record<string, unknown> {
  const item = response.content.find((c) => c.type === 'json');
  return item && item.type === 'json' && typeof item.value === 'object' && item.value !== null ? item.value as Record<string, unknown> : {};
}

/** How a RunInTerminal call ended, as ACP's exit status: a code, or the signal it was stopped with. */
function terminalEnd(response: ClientToolInvokeResponse): TerminalEnd {
  if (!response.success) {
    const stopped = response.errorCode === ErrorCode.Cancelled || response.errorCode === ErrorCode.Timeout;
    return { output: response.errorMessage ?? '', truncated: false, exit: { exitCode: null, signal: stopped ? 'SIGTERM' : null } };
  }
  const r = jsonOf(response) as { exitCode?: number | null; output?: string; outputTruncated?: boolean; stopped?: boolean; timedOut?: boolean };
  const exitCode = typeof r.exitCode === 'number' ? r.exitCode : null;
  return {
    output: typeof r.output === 'string' ? r.output : '',
    truncated: r.outputTruncated === true,
    exit: { exitCode, signal: exitCode === null ? (r.timedOut || r.stopped ? 'SIGTERM' : 'SIGKILL') : null },
  };
}

/** The end of `text` within `limit` bytes of UTF-8, as ACP's `outputByteLimit` asks. */
export function keepTail(text: string, limit: number | undefined): { text: string; cut: boolean } {
  const bytes = Buffer.from(text, 'utf8');
  if (limit === undefined || bytes.byteLength <= limit) return { text, cut: false };
  // A character cut in two at the start decodes as U+FFFD: drop it.
  return { text: bytes.subarray(bytes.byteLength - Math.max(0, limit)).toString('utf8').replace(/^\uFFFD+/, ''), cut: true };
}

/** One argument as the shell reads it back: plain words stay, anything else in single quotes. */
export function shellQuote(arg: string): string {
  return /^[A-Za-z0-9_./:=@%+-]+$/.test(arg) ? arg : `'${arg.replace(/'/g, `'\\''`)}'`;
}

/** What the callbacks need of the extension's core (`ClientCore` has it). */
export interface CallbackCore {
  createDispatcher: RunnerDispatcherFactory;
  readonly consent: Consent;
}

/**
 * The callbacks of each agent session on the extension's core: its dispatcher factory (registry,
 * gate, host), its permission gate, the workspace's folders and protected patterns; every call's
 * record goes to `onRecord`, marked with the agent's name.
 */
export function gateCallbacks(core: CallbackCore, workspace: WorkspaceInfo, logger: Logger, onRecord: (record: CallRecord) => void, editorServer?: string, reviewEditPermissions?: EditReviewMode): (caller: AgentCaller) => DispatcherCallbacks {
  return (caller) => {
    const runner = new ToolRunner((options) => core.createDispatcher(options), caller);
    runner.onCallRecord(onRecord);
    return new DispatcherCallbacks({
      caller,
      runner,
      consent: core.consent,
      workspace: () => ({ folders: workspace.workspaceFolders(), protectedPatterns: workspace.protectedPatterns?.() ?? [] }),
      logger,
      ...(editorServer !== undefined ? { editorServer } : {}),
      ...(reviewEditPermissions !== undefined ? { reviewEditPermissions } : {}),
    });
  };
}
