/**
 * One stream per card: the chat builds a client tool call's card from the extension's record of
 * the call alone. The backend's display events for a client call (`executor: client`) never reach
 * the view; the two things they may add are folded into the record here, where the record is:
 * a tool name the backend announced that is not the one that ran (`announcedAs`), and a call the
 * backend announced and ended without success but never sent to the editor (a record marked
 * `notSent`: nothing ran). Events of the backend's own tools pass through unchanged.
 */
import { newRecordId } from '../../core/callRecord';
import { assertNever } from '../../protocol';
import type { ChatCallRecord, ChatRunEvent, HostToWebview } from '../../protocol/webview';

/** Client calls announced and not (yet) recorded, and records kept to match a later announcement. */
const MAX_TRACKED = 200;

type Started = Extract<ChatRunEvent, { type: 'toolCallStarted' }>;
type Ended = Extract<ChatRunEvent, { type: 'toolCallEnded' }>;

export class CardStream {
  /** Client calls the backend announced that the extension has not recorded, by call id. */
  private readonly announced = new Map<string, Started>();
  /** The last record posted for each call id (calls the extension executed). */
  private readonly recorded = new Map<string, ChatCallRecord>();

  /** What the view gets for a run event: a backend tool's event as it is; for a client call, at most its record. */
  runEvent(event: ChatRunEvent): HostToWebview[] {
    switch (event.type) {
      case 'toolCallStarted':
        return event.executor === 'client' ? this.announce(event) : [{ type: 'runEvent', event }];
      case 'toolCallUpdated':
        return this.isClientCall(event.callId) ? [] : [{ type: 'runEvent', event }];
      case 'toolCallEnded':
        return this.isClientCall(event.callId) ? this.ended(event) : [{ type: 'runEvent', event }];
      case 'runFinished':
      case 'runError':
        for (const [callId, started] of this.announced) if (started.runId === event.runId) this.announced.delete(callId);
        return [{ type: 'runEvent', event }];
      case 'runStarted':
      case 'textDelta':
      case 'groupExpanded':
      case 'contextCompacted':
      case 'steerUpdated':
      case 'contextUsage':
      case 'modelRetry':
        return [{ type: 'runEvent', event }];
      default:
        return assertNever(event, 'run event');
    }
  }

  /** A record of a call the extension executed, with the name the backend announced for it when that differs. */
  record(record: ChatCallRecord): HostToWebview[] {
    const started = this.announced.get(record.callId);
    this.announced.delete(record.callId);
    const announcedAs = started?.toolName ?? this.recorded.get(record.callId)?.announcedAs;
    const next = announcedAs !== undefined && announcedAs !== record.toolName ? { ...record, announcedAs } : record;
    remember(this.recorded, record.callId, next);
    return [{ type: 'callRecord', record: next }];
  }

  private isClientCall(callId: string): boolean {
    return this.announced.has(callId) || this.recorded.has(callId);
  }

  /** The backend announced a client call: kept until its record comes; a record already here learns the announced name. */
  private announce(event: Started): HostToWebview[] {
    const recorded = this.recorded.get(event.callId);
    if (!recorded) {
      remember(this.announced, event.callId, event);
      return [];
    }
    if (recorded.toolName === event.toolName || recorded.announcedAs !== undefined) return [];
    const next = { ...recorded, announcedAs: event.toolName };
    this.recorded.set(event.callId, next);
    return [{ type: 'callRecord', record: next }];
  }

  /**
   * The backend ended a client call. One the extension recorded ends when its record says so. One
   * it never recorded and the backend ended without success was refused by the backend or cut off
   * by the run's end before it was sent: its record says nothing ran. A "success" of an editor tool
   * that never reached the editor is the backend's word against the extension's and makes no card.
   */
  private ended(event: Ended): HostToWebview[] {
    const started = this.announced.get(event.callId);
    this.announced.delete(event.callId);
    if (!started || event.outcome === 'succeeded') return [];
    const record: ChatCallRecord = {
      recordId: newRecordId(),
      callId: event.callId,
      threadId: event.threadId,
      toolName: started.toolName,
      groupName: started.group ?? '',
      arguments: started.arguments,
      background: false,
      status: event.outcome === 'timedOut' ? 'failed' : event.outcome,
      durationMs: event.durationMs,
      notSent: true,
      ...(event.errorCode !== undefined ? { errorCode: event.errorCode } : {}),
      ...(event.errorMessage !== undefined ? { errorMessage: event.errorMessage } : {}),
    };
    // Its card is this record's: any later event for the call stays out of the view.
    remember(this.recorded, event.callId, record);
    return [{ type: 'callRecord', record }];
  }
}

function remember<T>(map: Map<string, T>, key: string, value: T): void {
  map.delete(key);
  map.set(key, value);
  if (map.size > MAX_TRACKED) map.delete(map.keys().next().value as string);
}
