/**
 * Tool cards in the chat state: a client call's card from the extension's record alone (created,
 * updated, closed after a reload when the extension no longer runs it), an OpenDiff review on its
 * card, and the lookups of cards by record id and by run and call id.
 */
import type { ChatCallRecord, ChatReview } from '../protocol/webview';
import { appendCard, bound, clip, mapItem, summarizeArguments, toResultPart, withOptional } from './stateItems';
import { isTerminal, MAX_DETAIL_CHARS, type ChatState, type ToolItem } from './stateSchema';

/**
 * The extension's record of a call it executed: creates the call's card, or brings it up to date.
 * The card names the tool and arguments that ran, whatever the backend announced for the call.
 */
export function onCallRecord(state: ChatState, record: ChatCallRecord): ChatState {
  const i = findRecordCard(state, record.recordId);
  if (i >= 0) {
    const card = state.items[i] as ToolItem;
    const items = state.items.slice();
    items[i] = fromRecord(record, card);
    return bound({ ...state, items });
  }
  const runId = !record.background && state.run ? state.run.runId : '';
  const card = fromRecord(record, {
    kind: 'tool',
    id: '',
    runId,
    callId: record.callId,
    toolName: record.toolName,
    executor: 'ide',
    argsSummary: '',
    argsJson: '',
    status: 'pending',
    result: [],
    expanded: false,
  });
  const { id: _id, ...item } = card;
  return bound(appendCard(state, item));
}

function fromRecord(record: ChatCallRecord, card: ToolItem): ToolItem {
  const timedOut = record.errorCode === 'TIMEOUT';
  const ended = record.status === 'failed' || record.status === 'denied' || record.status === 'cancelled' || record.status === 'skipped';
  const details = !ended ? undefined
    : record.notSent ? notSentDetails(record)
      : (timedOut ? `Timed out${record.errorMessage ? `: ${record.errorMessage}` : ''}` : record.errorMessage);
  let next: ToolItem = {
    ...card,
    ...(record.requestId !== undefined ? { requestId: record.requestId } : {}),
    recordId: record.recordId,
    toolName: record.toolName,
    group: record.groupName,
    executor: record.notSent ? 'backend' : 'ide',
    background: record.background,
    argsSummary: summarizeArguments(record.arguments),
    argsJson: clip(JSON.stringify(record.arguments, null, 2), MAX_DETAIL_CHARS),
    status: record.status,
    ...(record.durationMs !== undefined ? { durationMs: record.durationMs } : {}),
    ...(record.content !== undefined ? { result: record.content.map(toResultPart) } : {}),
  };
  next = withOptional(next, 'details', details);
  next = withOptional(next, 'target', record.target ?? card.target);
  next = withOptional(next, 'caller', record.caller);
  next = withOptional(next, 'permissionNote', record.permission ? describePermission(record.permission) + describeEdit(record.edited) : card.permissionNote);
  next = withOptional(next, 'announcedAs', record.announcedAs);
  if (record.refused) next = { ...next, refused: true };
  if (record.notSent) next = { ...next, notSent: true };
  return next;
}

/** Why a call that never reached the editor ended, in the backend's words: `CODE: reason`. */
function notSentDetails(record: ChatCallRecord): string | undefined {
  if (record.errorMessage === undefined && record.errorCode === undefined) return undefined;
  return `${record.errorCode !== undefined ? `${record.errorCode}: ` : ''}${record.errorMessage ?? ''}`;
}

/** An OpenDiff review opened or changed: its call's card shows it, opened the first time so the choices are in sight. */
export function onReview(state: ChatState, review: ChatReview): ChatState {
  return mapItem(state, (it) => it.kind === 'tool' && it.recordId === review.recordId
    ? { ...it, review, expanded: it.review === undefined ? true : it.expanded }
    : it);
}

/** An edit the user made before allowing, both values whole on the card (they are plain text nodes). */
export function describeEdit(edited: ChatCallRecord['edited']): string {
  if (!edited) return '';
  return `. You edited the ${edited.argument}: the agent proposed “${edited.proposed}”; yours: “${edited.ran}”`;
}

/** The permission decision in the user's words. */
export function describePermission(p: NonNullable<ChatCallRecord['permission']>): string {
  if (p.decision === 'allowed') {
    if (p.via === 'remembered') return p.grantLabel ? `Allowed by your earlier choice: ${p.grantLabel}` : 'Allowed by your earlier choice';
    if (p.via === 'policy') return 'Allowed by your tool policy (Tool Groups view)';
    return 'Allowed by you';
  }
  switch (p.via) {
    case 'user': return 'Denied by you';
    case 'policy': return 'Denied by your tool policy (Tool Groups view)';
    case 'dismissed': return 'Denied: the prompt was dismissed';
    case 'timeout': return 'Denied: the prompt was not answered in time';
    case 'backgroundCalls': return 'Refused: background calls are off (clientTools.permissions.backgroundCalls)';
    case 'rateLimited': return 'Refused without asking: too many prompts, or you chose Deny All for this backend';
    case 'promptTooLarge': return 'Refused without asking: the prompt would not fit in full (PROMPT_TOO_LARGE)';
    default: return 'Denied';
  }
}

export function findRecordCard(state: ChatState, recordId: string): number {
  for (let i = state.items.length - 1; i >= 0; i--) {
    const it = state.items[i];
    if (it.kind === 'tool' && it.recordId === recordId) return i;
  }
  return -1;
}

/** Record cards still open in the view whose call the extension no longer runs (the window reloaded). */
export function closeStaleCalls(state: ChatState, openCallIds: string[] | undefined): ChatState {
  if (openCallIds === undefined) return state;
  const open = new Set(openCallIds);
  return mapItem(state, (it) => it.kind === 'tool' && it.requestId !== undefined && !isTerminal(it.status) && (it.recordId === undefined || !open.has(it.recordId))
    ? { ...it, status: 'cancelled', details: 'The editor no longer runs this call (the window was reloaded before it finished).' }
    : it);
}

export function findCard(state: ChatState, runId: string, callId: string): number {
  for (let i = state.items.length - 1; i >= 0; i--) {
    const it = state.items[i];
    if (it.kind === 'tool' && it.runId === runId && it.callId === callId) return i;
  }
  return -1;
}

export function updateCard(state: ChatState, runId: string, callId: string, f: (card: ToolItem) => ToolItem): ChatState {
  const i = findCard(state, runId, callId);
  if (i < 0) return state;
  const card = state.items[i] as ToolItem;
  const next = f(card);
  if (next === card) return state;
  const items = state.items.slice();
  items[i] = next;
  return { ...state, items };
}
