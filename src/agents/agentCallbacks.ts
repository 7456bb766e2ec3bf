/**
 * The seam between an ACP agent and the editor's consent: every request an agent makes of the
 * client (`session/request_permission`, `fs/read_text_file`, `fs/write_text_file`, `terminal/*`)
 * goes through one `AgentCallbacks`, in the editor's own words, never the SDK's types. Today
 * `DispatcherCallbacks` (dispatcherCallbacks.ts) implements it by running the same client tools a
 * backend's call runs (ReadFile, OpenDiff, RunInTerminal) through a dispatcher over the one
 * permission gate; the consent module that replaces it later implements this interface too, so the
 * ACP side (agentConnection.ts) does not change.
 *
 * Every method may throw a `CodedError`; the connection answers the agent with a JSON-RPC error
 * carrying the sentence and `data.code`. A call's `signal` aborts when the agent withdraws the
 * request, its turn is cancelled, or the agent goes away: an open prompt then closes and nothing
 * more is done.
 */
import type { Disposable } from '../base/events';

/** Who asks: the agent as the chat names it, and the chat thread whose run the request belongs to. */
export interface AgentCaller {
  /** The agent's name as the user configured or picked it (plain text, capped). */
  readonly agent: string;
  /** The chat thread the agent session serves; calls made during its run are the user's, not background calls. */
  readonly threadId: string;
  /** True while a turn the user started is running on that thread. */
  isRunning(): boolean;
}

/** A tool call as the agent described it (announced in `session/update`, merged with the permission request's own fields). */
export interface AgentToolCall {
  toolCallId: string;
  title: string;
  /** ACP's tool kind: read, edit, delete, move, search, execute, think, fetch, switch_mode, other. */
  kind: string;
  /** The agent's raw arguments (shown to the user as the agent sent them). */
  rawInput?: unknown;
  /** What the agent says the call will do: text, a proposed diff, a terminal. */
  content: AgentToolContent[];
  /** Files the call touches, absolute paths as the agent sent them. */
  locations: string[];
}

export type AgentToolContent =
  | { type: 'text'; text: string }
  | { type: 'diff'; path: string; oldText: string | null; newText: string }
  | { type: 'terminal'; terminalId: string };

/** One of the agent's answers on offer (ACP `PermissionOption`). */
export interface AgentPermissionOption {
  optionId: string;
  name: string;
  kind: 'allow_once' | 'allow_always' | 'reject_once' | 'reject_always';
}

export interface AgentPermissionRequest {
  toolCall: AgentToolCall;
  /** Whether the agent announced this tool call in `session/update` before asking. */
  announced: boolean;
  options: AgentPermissionOption[];
}

/** The answer sent back: one of the agent's options, or `cancelled` (the turn was cancelled meanwhile). */
export type AgentPermissionOutcome =
  | {
    outcome: 'selected';
    optionId: string;
    /** Why it was not allowed: the user's reason, or why no prompt could be shown. */
    reason?: string;
    /** Set when the user denied it in the prompt and wrote a reason: the session delivers it to the agent (declinedReasons.ts). */
    userReason?: string;
    /** What the card says of the decision instead of "Allowed by you" (no prompt was shown). */
    note?: string;
    /** The edit was reviewed per hunk in the request itself and the editor wrote part of it (editReview.ts): the session tells the agent. */
    partialWrite?: PartialWrite;
  }
  /** `userReason`: the user denied with a reason, and the agent offered no option to reject with. */
  | { outcome: 'cancelled'; userReason?: string };

/** What the editor wrote of an agent's edit after the user kept only some of its hunks. */
export interface PartialWrite {
  /** The file, workspace-relative as the editor resolved it. */
  path: string;
  kept: number[];
  rejected: number[];
  editedByUser: boolean;
  /** What the user wrote in the review, if anything. */
  reason?: string;
}

export interface AgentReadRequest {
  /** Absolute path, as ACP requires. */
  path: string;
  /** First line to return, 1-based. */
  line?: number;
  /** Most lines to return. */
  limit?: number;
}

export interface AgentWriteRequest {
  path: string;
  content: string;
}

export interface AgentTerminalRequest {
  command: string;
  args: string[];
  /** Environment the agent asked for (not applied: see docs/AGENTS.md). */
  env: { name: string; value: string }[];
  /** Absolute working directory; absent means the session's folder. */
  cwd?: string;
  /** Bytes of output the agent wants kept at most. */
  outputByteLimit?: number;
}

export interface AgentExitStatus {
  exitCode: number | null;
  signal: string | null;
}

export interface AgentTerminalOutput {
  output: string;
  truncated: boolean;
  /** Set once the command ended. */
  exitStatus?: AgentExitStatus;
}

export interface AgentCallbacks extends Disposable {
  requestPermission(request: AgentPermissionRequest, signal: AbortSignal): Promise<AgentPermissionOutcome>;
  readTextFile(request: AgentReadRequest, signal: AbortSignal): Promise<{ content: string }>;
  /** Resolves once the content the user kept is on disk; throws when nothing (or only part) was written. */
  writeTextFile(request: AgentWriteRequest, signal: AbortSignal): Promise<void>;
  /** Resolves once the command runs (the user allowed it); throws when it was refused. */
  startTerminal(request: AgentTerminalRequest, signal: AbortSignal): Promise<{ terminalId: string }>;
  terminalOutput(terminalId: string): Promise<AgentTerminalOutput>;
  waitForTerminalExit(terminalId: string, signal: AbortSignal): Promise<AgentExitStatus>;
  killTerminal(terminalId: string): Promise<void>;
  releaseTerminal(terminalId: string): Promise<void>;
}

/** Makes the callbacks of one agent session; the VS Code side passes one in, tests pass fakes. */
export type AgentCallbacksFactory = (caller: AgentCaller) => AgentCallbacks;
