/**
 * Run events as the backend sends them, validated against the protocol schemas and converted the
 * way ChatViewProvider converts them, so the reducer tests start from real wire shapes.
 */
import { Messages } from '../../../src/protocol/schemas';
import type { ContentItem, RunEvent } from '../../../src/protocol/types';
import type { CallRecord } from '../../../src/core/callRecord';
import { HostToWebview } from '../../../src/protocol/webview';
import { toChatCallRecord, toChatRunEvent } from '../../../src/vscode/chat/chatBridge';
import type { ChatAction } from '../../../src/webview/state';

export const THREAD = 'thread-1';
export const RUN = 'run-1';

const toBase64 = (b: Uint8Array): string => Buffer.from(b).toString('base64');

/** A protocol run event → the host → webview message carrying it, parsed like the view parses it. */
export function hostEvent(event: RunEvent): ChatAction {
  const wire = Messages.ServerToClient.parse(event) as RunEvent;
  return HostToWebview.parse({ type: 'runEvent', event: toChatRunEvent(wire, toBase64) });
}

const ref = (runId: string) => ({ threadId: THREAD, runId });

/** The extension's record of a call (as the dispatcher emits it) → the host → webview message, parsed like the view parses it. */
export function record(requestId: string, toolName: string, change: Partial<CallRecord> = {}): ChatAction {
  const full: CallRecord = {
    // One call per request id here; test/unit/webview/state.record.test.ts reuses an id with another record id.
    recordId: `rec-${requestId}`,
    requestId,
    callId: `call-${requestId}`,
    threadId: THREAD,
    toolName,
    toolKey: toolName,
    groupName: 'IDE',
    arguments: {},
    background: false,
    status: 'pending',
    ...change,
  };
  return HostToWebview.parse({ type: 'callRecord', record: toChatCallRecord(full, toBase64) });
}

export const ev = {
  started: (runId = RUN) => hostEvent({ type: 'runStarted', ...ref(runId), model: 'offline-demo' }),
  text: (text: string, runId = RUN) => hostEvent({ type: 'textDelta', ...ref(runId), text }),
  toolStarted: (callId: string, toolName: string, args: Record<string, unknown>, opts: { executor?: 'client' | 'server'; group?: string; runId?: string } = {}) =>
    hostEvent({
      type: 'toolCallStarted',
      ...ref(opts.runId ?? RUN),
      callId,
      toolName,
      arguments: args,
      // Cards for client tools come from the extension's record (`record` below); display events
      // build cards only for backend-executed tools, so that is the default here.
      executor: opts.executor ?? 'server',
      ...(opts.group ? { group: opts.group } : {}),
    }),
  toolUpdated: (callId: string, status: 'awaiting-permission' | 'running' | 'progress', details?: string, runId = RUN) =>
    hostEvent({ type: 'toolCallUpdated', ...ref(runId), callId, status, ...(details ? { details } : {}) }),
  toolEnded: (
    callId: string,
    outcome: 'succeeded' | 'failed' | 'denied' | 'skipped' | 'cancelled' | 'timedOut',
    durationMs: number,
    content: ContentItem[] = [],
    errorMessage?: string,
    runId = RUN,
  ) => hostEvent({ type: 'toolCallEnded', ...ref(runId), callId, outcome, content, durationMs, ...(errorMessage ? { errorMessage } : {}) }),
  expanded: (group: string, tools: string[], skill?: string) =>
    hostEvent({ type: 'groupExpanded', ...ref(RUN), group, tools, ...(skill ? { skill } : {}) }),
  finished: (reason: 'completed' | 'cancelled' | 'error' | 'maxTurns' = 'completed', runId = RUN) =>
    hostEvent({ type: 'runFinished', ...ref(runId), reason }),
  error: (code: string, message: string, retryable = true, runId = RUN) =>
    hostEvent({ type: 'runError', ...ref(runId), code, message, retryable }),
};

/** A 1×1 transparent PNG. */
export const PNG_1X1 = Uint8Array.from(Buffer.from(
  'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg==',
  'base64',
));
