/**
 * The extension's own record of a tool call, as the dispatcher runs it. The chat builds its cards
 * for client tools from these records, not from the backend's display events: the backend can say
 * what it likes, but only the dispatcher knows what actually ran in the editor.
 */
import { randomBytes } from 'node:crypto';
import type { ClientToolInvokeRequest, ClientToolInvokeResponse, ContentItem } from '../protocol/types';

export type CallRecordStatus =
  | 'pending'
  | 'awaiting-permission'
  | 'running'
  | 'succeeded'
  | 'failed'
  | 'denied'
  | 'cancelled';

/** How the permission gate decided, when it was asked. */
export interface CallPermission {
  decision: 'allowed' | 'denied';
  /** The gate's `via`: prompt, remembered, user, dismissed, timeout, error. */
  via: string;
  /** For a call let through by a remembered grant: the grant's label as its button said it. */
  grantLabel?: string;
}

/**
 * What the calls outside a run the user started are subject to
 * (`clientTools.permissions.backgroundCalls`).
 */
export type BackgroundCallPolicy = 'ask' | 'allow' | 'deny';

export interface CallRecord {
  /**
   * Minted by the extension for this call alone (unique across sessions, windows and reloads): the
   * chat's card, its review and its question are found by it. The backend's request id is unique
   * only within a session, and a new session may send it again for another call.
   */
  recordId: string;
  requestId: string;
  /** The backend's tool call id, to match its display events for the same call. */
  callId: string;
  threadId?: string;
  toolName: string;
  /** The tool's identity key (src/core/consent/toolIdentity.ts): which tool ran, whatever its model-facing name. */
  toolKey: string;
  groupName: string;
  /** The arguments as validated against the tool's schema. */
  arguments: Record<string, unknown>;
  /** One line naming the target: the tool's own prompt line when it prepared one, else the path-like argument. */
  target?: string;
  /** Outside any run the user started from this window's chat. */
  background: boolean;
  /** Who asked, when it was not the backend: "MCP: <client name>" for a call through the MCP server (see `callerLabel`). */
  caller?: string;
  status: CallRecordStatus;
  /** Set once the call ended. */
  durationMs?: number;
  permission?: CallPermission;
  errorCode?: string;
  errorMessage?: string;
  /** What the extension answered, for a call that succeeded. */
  content?: ContentItem[];
  /**
   * Refused before anything ran (unknown, hidden or disabled tool, invalid arguments, the in-flight
   * cap, an undecodable request): status `failed`, and `arguments` are the request's, unchecked.
   */
  refused?: true;
  /**
   * The user edited the call before allowing it (src/core/editedCall.ts): the argument, the agent's
   * value and the user's; `arguments` are then those that ran.
   */
  edited?: { argument: string; proposed: string; ran: string };
}

/** Random per process, so no window, reload or restart hands out an id another one used. */
const RECORD_ID_PREFIX = randomBytes(9).toString('base64url');
let recordCounter = 0;

/** A record id no other call has had: the process's random prefix and a counter. */
export function newRecordId(): string {
  return `${RECORD_ID_PREFIX}-${(++recordCounter).toString(36)}`;
}

export function isFinalStatus(status: CallRecordStatus): boolean {
  return status === 'succeeded' || status === 'failed' || status === 'denied' || status === 'cancelled';
}

const TARGET_KEYS = ['path', 'uri', 'file', 'command', 'directory', 'folder'] as const;
const MAX_TARGET_CHARS = 300;

/** The path-like argument of a call, if it has one, on one line. */
export function targetFromArguments(args: Record<string, unknown>): string | undefined {
  for (const key of TARGET_KEYS) {
    const v = args[key];
    if (typeof v === 'string' && v !== '') return oneLine(v);
  }
  return undefined;
}

export function oneLine(text: string): string {
  const flat = text.replace(/\s+/g, ' ').trim();
  return flat.length <= MAX_TARGET_CHARS ? flat : `${flat.slice(0, MAX_TARGET_CHARS - 1)}…`;
}

const MAX_CALLER_CHARS = 64;

/**
 * How the chat and the prompt name an MCP client. The name comes from the client's own `initialize`
 * (anyone who holds the token can claim any name), so it is shown as plain text only: letters,
 * digits, spaces and a few punctuation marks survive, anything else (markup, links, control and
 * bidi characters) becomes `?`, and it is cut to 64 characters.
 */
export function callerLabel(clientName: string | undefined): string {
  return `${MCP_CALLER_PREFIX}${plainCallerName(clientName)}`;
}

const MCP_CALLER_PREFIX = 'MCP: ';

/** Whether a record's caller is an MCP client (`callerLabel`) rather than an agent of the chat (named as the user configured it). */
export function isMcpCaller(caller: string): boolean {
  return caller.startsWith(MCP_CALLER_PREFIX);
}

function plainCallerName(clientName: string | undefined): string {
  const plain = (clientName ?? '').normalize('NFKC').replace(/[^\p{L}\p{N} ._@()+-]/gu, '?').replace(/\s+/g, ' ').trim();
  return plain === '' ? 'unnamed client' : plain.length > MAX_CALLER_CHARS ? `${plain.slice(0, MAX_CALLER_CHARS - 1)}…` : plain;
}

/** A call's first record, as the request named it and with its caller. */
export function pendingRecord(recordId: string, consent: { readonly caller: { readonly label?: string }; readonly background: unknown }, request: ClientToolInvokeRequest, group: string, toolKey: string): CallRecord {
  const caller = consent.caller.label;
  return {
    recordId,
    requestId: request.requestId,
    callId: request.callId,
    ...(request.threadId !== undefined ? { threadId: request.threadId } : {}),
    toolName: request.toolName,
    toolKey,
    groupName: group,
    arguments: request.arguments,
    background: consent.background !== undefined,
    ...(caller !== undefined ? { caller } : {}),
    status: 'pending',
  };
}

/** The record of a call that ended with `response` after `durationMs`. */
export function endedRecord(record: CallRecord, response: ClientToolInvokeResponse, status: CallRecordStatus, durationMs: number): CallRecord {
  return {
    ...record,
    status,
    durationMs,
    ...(response.errorCode !== undefined ? { errorCode: response.errorCode } : {}),
    ...(response.errorMessage !== undefined ? { errorMessage: response.errorMessage } : {}),
    ...(response.success ? { content: response.content } : {}),
  };
}

/** The record of a call refused before it ran: failed, `refused`, nothing run, no time spent. */
export function refusedRecord(record: Omit<CallRecord, 'status'>, response: ClientToolInvokeResponse): CallRecord {
  return {
    ...record,
    status: 'failed',
    refused: true,
    durationMs: 0,
    ...(response.errorCode !== undefined ? { errorCode: response.errorCode } : {}),
    ...(response.errorMessage !== undefined ? { errorMessage: response.errorMessage } : {}),
  };
}

export function withoutUndefined<T extends object>(change: T): Partial<T> {
  return Object.fromEntries(Object.entries(change).filter(([, v]) => v !== undefined)) as Partial<T>;
}

/** How a call ended, as the dispatcher logs it. */
export type CallOutcome = 'succeeded' | 'failed' | 'denied' | 'skipped' | 'cancelled' | 'timedOut' | 'refused';

/** How each outcome shows in the call's record. */
export const RECORD_STATUS: Record<CallOutcome, CallRecordStatus> = {
  succeeded: 'succeeded',
  failed: 'failed',
  refused: 'failed',
  timedOut: 'failed',
  denied: 'denied',
  skipped: 'denied',
  cancelled: 'cancelled',
};
