/**
 * The chat view's state and its reducer: (state, action) → state, with no DOM and no I/O, so it runs
 * in the webview and in plain Node tests alike. The state is plain JSON: the webview saves it with
 * `setState` and restores it after the view was hidden or the window reloaded.
 *
 * Changed items are replaced, unchanged items keep their identity; the renderer relies on that to
 * touch only what changed (while streaming, only the active answer).
 */
import { z } from 'zod';
import { applySteerUpdate, MAX_PENDING_STEERS, PendingSteer } from './steers';
import { assertNever, assertNeverOr } from '../protocol/assertNever';
import { cutWithNote } from '../protocol/textCut';
import { foldInto, markExpansionCard } from './expansionFold';
import { clipText } from '../protocol/clipText';
import { ChatApproval, ChatAttachment, ChatReview, ChatStatus, ChatThreadSummary, isInlineImageType, MAX_ANSWER_CHARS, MAX_TRANSCRIPT_CHARS } from '../protocol/webview';
import type { ChatCallRecord, ChatContentItem, ChatRunEvent, HostToWebview } from '../protocol/webview';

/** Transcript items kept; older ones are dropped. */
export const MAX_ITEMS = 200;
/** Base64 characters of images kept across the transcript; older images lose their bytes first. */
export const MAX_KEPT_IMAGE_CHARS = 3_000_000;
export { MAX_ANSWER_CHARS };
/** Characters kept per result part and for the pretty-printed arguments. */
export const MAX_DETAIL_CHARS = 20_000;
/** Run ids remembered as finished, so late events for them are ignored. */
const MAX_CLOSED_RUNS = 20;
/** Client tool calls the backend announced that the extension has not recorded (yet). */
const MAX_ANNOUNCED = 50;
/** Characters of an announced call's arguments kept for a card the backend's events may have to make (notSentCard). */
const MAX_ANNOUNCED_ARGS_CHARS = 2_000;
const SUMMARY_CHARS = 80;

export const CardStatus = z.enum([
  'pending', 'awaiting-permission', 'running', 'succeeded', 'failed', 'denied', 'skipped', 'cancelled',
]);
export type CardStatus = z.infer<typeof CardStatus>;
const TERMINAL: ReadonlySet<CardStatus> = new Set(['succeeded', 'failed', 'denied', 'skipped', 'cancelled']);
export function isTerminal(status: CardStatus): boolean {
  return TERMINAL.has(status);
}

const ResultPart = z.discriminatedUnion('kind', [
  z.object({ kind: z.literal('text'), text: z.string() }),
  /** Pretty-printed JSON. */
  z.object({ kind: z.literal('json'), text: z.string() }),
  /** An inline raster image; `data` (base64) is null once dropped to stay within MAX_KEPT_IMAGE_CHARS. */
  z.object({
    kind: z.literal('image'),
    mimeType: z.string(),
    byteLength: z.number(),
    filename: z.string().optional(),
    data: z.string().nullable(),
  }),
  z.object({ kind: z.literal('binary'), mimeType: z.string(), byteLength: z.number(), filename: z.string().optional() }),
]);
export type ResultPart = z.infer<typeof ResultPart>;

const UserItem = z.object({
  kind: z.literal('user'),
  id: z.string(),
  text: z.string(),
  /** The editor text sent with it (Ask About Selection), by its label; kept in the thread's history. */
  attachment: z.string().max(300).optional(),
});
const AnswerItem = z.object({
  kind: z.literal('answer'),
  id: z.string(),
  runId: z.string(),
  text: z.string(),
  /** True while deltas may still be appended to this answer. */
  streaming: z.boolean(),
  truncated: z.boolean(),
});
const ToolItem = z.object({
  kind: z.literal('tool'),
  id: z.string(),
  runId: z.string(),
  callId: z.string(),
  toolName: z.string(),
  group: z.string().optional(),
  executor: z.enum(['ide', 'backend']),
  /** One line, at most SUMMARY_CHARS characters. */
  argsSummary: z.string(),
  /** The full arguments, pretty-printed (clipped at MAX_DETAIL_CHARS). */
  argsJson: z.string(),
  status: CardStatus,
  /** Progress details, or why the call failed, was denied or was cancelled. */
  details: z.string().optional(),
  durationMs: z.number().optional(),
  result: z.array(ResultPart),
  expanded: z.boolean(),
  /**
   * Set on cards built from the extension's own record of a call it executed (every client tool
   * card): only such a card says the call ran in the editor.
   */
  requestId: z.string().optional(),
  /**
   * The extension's id of that call (`ChatCallRecord.recordId`): records, reviews and questions find
   * their card by it, never by the request id, which a new session may use again for another call.
   */
  recordId: z.string().optional(),
  /** Outside any run the user started. */
  background: z.boolean().optional(),
  /** Who asked, when not the backend ("MCP: <client>"). */
  caller: z.string().optional(),
  /** The ACP agent whose own tool call this card shows (named instead of "Backend"). */
  agent: z.string().optional(),
  /** What the call acted on, as the extension resolved it. */
  target: z.string().optional(),
  /** How permission was decided, in words ("Allowed by your earlier choice: …"). */
  permissionNote: z.string().optional(),
  /** The tool the backend's display event named for this call, when it is not the one that ran. */
  announcedAs: z.string().optional(),
  /** Your editor refused the call before running it (from its own record: unknown tool, invalid arguments, …). */
  refused: z.boolean().optional(),
  /**
   * A call of an editor tool the backend announced and ended without ever sending it to the editor
   * (it refused the call itself, or the run ended first): shown from the backend's events, nothing ran.
   */
  notSent: z.boolean().optional(),
  /** An OpenDiff review of this call, as the extension last described it (src/webview/reviewCard.ts). */
  review: ChatReview.optional(),
  /** The backend's card for a group or skill expansion itself (src/webview/expansionFold.ts). */
  expansionStep: z.boolean().optional(),
  /** The expansion folded into this card, in words ("Loaded the IDE group: …"). */
  expansionNote: z.string().optional(),
});
/** A client tool call as the backend announced it, kept until the extension's record of it comes (or its end, if none does). */
const Announcement = z.object({
  callId: z.string(),
  toolName: z.string(),
  group: z.string().optional(),
  argsSummary: z.string().default(''),
  argsJson: z.string().default(''),
});
type Announcement = z.infer<typeof Announcement>;

const ExpansionItem = z.object({
  kind: z.literal('expansion'),
  id: z.string(),
  group: z.string(),
  skill: z.string().optional(),
  tools: z.array(z.string()),
  /** The run it happened in; absent in transcripts saved before expansions were folded. */
  runId: z.string().optional(),
  /** A later tool card carries its note. */
  foldedInto: z.boolean().optional(),
});
const ErrorItem = z.object({
  kind: z.literal('error'),
  id: z.string(),
  message: z.string(),
  code: z.string(),
  retryable: z.boolean(),
  /** The model that was connected when it came (stamped at the next status). */
  model: z.string().optional(),
  /** A model's error from before the model was switched: its actions (Retry, Select Model) are gone. */
  stale: z.boolean().optional(),
});
const NoticeItem = z.object({ kind: z.literal('notice'), id: z.string(), text: z.string() });
const TokenCounts = z.object({ inputTokens: z.number(), outputTokens: z.number(), cachedInputTokens: z.number().optional() });
export type TokenCounts = z.infer<typeof TokenCounts>;
/** The tokens a finished run used (its runFinished's usage), shown under its answer. */
const UsageItem = TokenCounts.extend({ kind: z.literal('usage'), id: z.string(), runId: z.string(), thread: TokenCounts });
export type UsageItem = z.infer<typeof UsageItem>;

export const ChatItem = z.discriminatedUnion('kind', [UserItem, AnswerItem, ToolItem, ExpansionItem, ErrorItem, NoticeItem, UsageItem]);
export type ChatItem = z.infer<typeof ChatItem>;
export type ToolItem = z.infer<typeof ToolItem>;
export type AnswerItem = z.infer<typeof AnswerItem>;

export const ChatState = z.object({
  version: z.literal(1),
  items: z.array(ChatItem),
  connection: ChatStatus,
  run: z.object({ runId: z.string(), threadId: z.string(), model: z.string(), stopRequested: z.boolean() }).nullable(),
  /** A permission prompt is open in the editor. */
  awaitingInput: z.boolean(),
  /**
   * The permission prompt shown in the chat (promptStyle `chat`); the window's, not the thread's.
   * Live only: never restored from a saved state (the host sends the open one on `ready`).
   */
  approval: ChatApproval.nullable().default(null),
  /** What Retry re-sends. */
  lastUserText: z.string().nullable(),
  nextId: z.number().int().nonnegative(),
  closedRunIds: z.array(z.string()),
  /** Client tool calls the backend announced (toolCallStarted) before the extension recorded them. */
  announced: z.array(Announcement).max(MAX_ANNOUNCED).default([]),
  /** The conversation's token totals as its last finished run reported them; null until one did. */
  threadUsage: TokenCounts.nullable().default(null),
  /**
   * The thread this transcript belongs to; null until the host says (`showThread`), and after New
   * Chat cleared the view, so nothing is saved under a thread the view no longer shows.
   */
  threadId: z.string().nullable().default(null),
  /** The history list, as the host last sent it. */
  threads: z.array(ChatThreadSummary).default([]),
  /** When the view last saved this state (its own clock); the host compares it with its copy's. */
  savedAt: z.number().nonnegative().default(0),
  /** Editor text attached to the next message (Ask About Selection), shown as a removable chip. */
  attachment: ChatAttachment.nullable().default(null),
  /** `clientTools.chat.showExpansionSteps`: the window's, as the host last sent it. */
  showExpansionSteps: z.boolean().default(false),
  /** Messages typed while the run works, waiting for its next tool boundary (src/webview/steers.ts). */
  steers: z.array(PendingSteer).max(MAX_PENDING_STEERS).default([]),
  /** The conversation's context use as the backend last said it (`contextUsage`); null until it did. */
  contextUse: z.object({ tokens: z.number().int().nonnegative(), contextWindow: z.number().int().positive(), estimated: z.boolean() }).nullable().default(null),
});
export type ChatState = z.infer<typeof ChatState>;

/** Actions that start in the view itself rather than in a host message. */
export type LocalAction =
  | { type: 'restore'; saved: unknown }
  | { type: 'toggleCard'; id: string; open: boolean }
  | { type: 'stopRequested' }
  | { type: 'newChatRequested' }
  | { type: 'removeAttachment' }
  /** A message typed during the run, sent as a steer; `withdrawn` (Cancel or Edit) drops one, `leftoverSteersSent` (they went as a new message after the run) all. */
  | { type: 'steerQueued'; steerId: string; text: string }
  | { type: 'steerWithdrawn'; steerId: string }
  | { type: 'leftoverSteersSent' };

export type ChatAction = HostToWebview | LocalAction;

export function initialState(): ChatState {
  return {
    version: 1,
    items: [],
    connection: { connection: 'disconnected' },
    run: null,
    awaitingInput: false,
    approval: null,
    lastUserText: null,
    nextId: 1,
    closedRunIds: [],
    announced: [],
    threadUsage: null,
    threadId: null,
    threads: [],
    savedAt: 0,
    attachment: null,
    showExpansionSteps: false,
    steers: [],
    contextUse: null,
  };
}

/** Saved state from `getState()` (any version, possibly absent or corrupt) → a valid, bounded state. */
export function restoreState(saved: unknown): ChatState {
  const parsed = ChatState.safeParse(saved);
  // A saved prompt is one the host may have closed since: its card would show old text while an
  // answer went to whatever is open now. The host sends the prompt that is open after `ready`.
  return parsed.success ? bound({ ...parsed.data, approval: null }) : initialState();
}

export function reduce(state: ChatState, action: ChatAction): ChatState {
  switch (action.type) {
    case 'runEvent':
      return onRunEvent(state, action.event);
    case 'callRecord':
      return onCallRecord(state, action.record);
    case 'status':
      return withStaleModelErrors({ ...state, connection: action.status }, state.connection.model);
    case 'userMessage':
      return bound(append({ ...state, lastUserText: action.text }, { kind: 'user', text: action.text, ...(action.attachment ? { attachment: action.attachment } : {}) }));
    case 'awaitingInput':
      return state.awaitingInput === action.open ? state : { ...state, awaitingInput: action.open };
    case 'approval':
      return { ...state, approval: action.prompt };
    case 'error':
      return bound(append(state, { kind: 'error', message: action.message, code: action.code, retryable: action.retryable }));
    case 'reset':
    case 'newChatRequested':
      return {
        ...initialState(),
        connection: state.connection,
        awaitingInput: state.awaitingInput,
        approval: state.approval,
        nextId: state.nextId,
        closedRunIds: state.run ? remember(state.closedRunIds, state.run.runId) : state.closedRunIds,
        threadId: action.type === 'reset' ? state.threadId : null,
        threads: state.threads,
        attachment: state.attachment,
        showExpansionSteps: state.showExpansionSteps,
      };
    case 'threads': {
      const next = { ...state, threads: action.threads };
      return action.notice ? bound(append(next, { kind: 'notice', text: action.notice })) : next;
    }
    case 'showThread':
      return showThread(state, action.threadId, action.transcript);
    case 'showHistory':
      // Opening the list is the renderer's business; the state does not change.
      return state;
    case 'diffReview':
      return onReview(state, action.review);
    case 'focusInput':
    case 'runChanges':
    case 'agents':
      // The agent picker is the renderer's (src/webview/agentPicker.ts), not the transcript's.
      return state;
    case 'displaySettings':
      return state.showExpansionSteps === action.showExpansionSteps ? state : { ...state, showExpansionSteps: action.showExpansionSteps };
    case 'attachSelection':
      return { ...state, attachment: action.attachment };
    case 'removeAttachment':
      return state.attachment === null ? state : { ...state, attachment: null };
    case 'sync':
      return closeStaleCalls(onSync(state, action.activeRunId), action.openCallIds);
    case 'restore':
      return restoreState(action.saved);
    case 'toggleCard':
      return mapItem(state, (it) => it.id === action.id && it.kind === 'tool' && it.expanded !== action.open
        ? { ...it, expanded: action.open }
        : it);
    case 'stopRequested':
      return state.run && !state.run.stopRequested ? { ...state, run: { ...state.run, stopRequested: true } } : state;
    case 'steerQueued':
      return state.steers.length >= MAX_PENDING_STEERS ? state : { ...state, steers: [...state.steers, { steerId: action.steerId, text: action.text, state: 'pending' }] };
    case 'steerWithdrawn':
      return { ...state, steers: state.steers.filter((s) => s.steerId !== action.steerId) };
    case 'leftoverSteersSent':
      return state.steers.length === 0 ? state : { ...state, steers: [] };
    default:
      // A message type this build does not know (a saved or foreign action): ignore it rather than break the view.
      return assertNeverOr(action, state);
  }
}

/**
 * Replaces the transcript with thread `threadId`'s saved one (parsed like any saved state; absent
 * or invalid means empty). What belongs to the window, not the thread, stays: connection, the
 * awaiting-input flag, the list, and item ids keep counting up so the renderer never reuses one.
 */
function showThread(state: ChatState, threadId: string, saved: unknown): ChatState {
  // A view with no thread yet that already shows something (a transcript saved before threads
  // existed, or messages the host queued before the view first opened) keeps it for this thread.
  if ((saved === undefined || saved === null) && state.threadId === null && state.items.length > 0) return { ...state, threadId };
  const loaded = saved === undefined || saved === null ? initialState() : restoreState(saved);
  return {
    ...loaded,
    connection: state.connection,
    awaitingInput: state.awaitingInput,
    approval: state.approval,
    run: null,
    nextId: Math.max(loaded.nextId, state.nextId),
    closedRunIds: state.run ? remember(loaded.closedRunIds, state.run.runId) : loaded.closedRunIds,
    threadId,
    threads: state.threads,
    attachment: state.attachment,
    showExpansionSteps: state.showExpansionSteps,
  };
}

/**
 * The transcript of the state as JSON text for the host to keep: without the list, the run or image
 * bytes (the card says the image is no longer kept), and without the oldest items while it is over
 * `maxChars`.
 */
export function transcriptOf(state: ChatState, maxChars = MAX_TRANSCRIPT_CHARS): string {
  let items = state.items.map((it) => it.kind === 'tool' && it.result.some((p) => p.kind === 'image' && p.data !== null)
    ? { ...it, result: it.result.map((p) => (p.kind === 'image' ? { ...p, data: null } : p)) }
    : it);
  for (;;) {
    const text = JSON.stringify({ ...state, items, threads: [], run: null, awaitingInput: false, approval: null, announced: [] } satisfies ChatState);
    if (text.length <= maxChars || items.length === 0) return text;
    items = items.slice(Math.max(1, Math.ceil(items.length / 10)));
  }
}

type WithoutId<T> = T extends unknown ? Omit<T, 'id'> : never;
type NewItem = WithoutId<ChatItem>;

function append(state: ChatState, item: NewItem): ChatState {
  const items = endStreaming(state.items);
  items.push({ ...item, id: `i${state.nextId}` } as ChatItem);
  return { ...state, items, nextId: state.nextId + 1 };
}

/** A copy of `items` where the last answer no longer streams (a tool card or notice follows it). */
function endStreaming(items: ChatItem[]): ChatItem[] {
  const out = items.slice();
  const last = out[out.length - 1];
  if (last?.kind === 'answer' && last.streaming) out[out.length - 1] = { ...last, streaming: false };
  return out;
}

function mapItem(state: ChatState, f: (item: ChatItem) => ChatItem): ChatState {
  let changed = false;
  const items = state.items.map((it) => {
    const next = f(it);
    if (next !== it) changed = true;
    return next;
  });
  return changed ? { ...state, items } : state;
}

function remember(list: string[], runId: string): string[] {
  return list.includes(runId) ? list : [...list, runId].slice(-MAX_CLOSED_RUNS);
}

function onRunEvent(state: ChatState, ev: ChatRunEvent): ChatState {
  if (ev.type === 'runFinished' && ev.usage && endedByItsError(state, ev.runId)) return withUsage(state, ev.runId, ev.usage);
  if (state.closedRunIds.includes(ev.runId)) return state;
  if (ev.type === 'runStarted') {
    if (state.run?.runId === ev.runId) return state;
    const base = state.run ? closeRun(state, 'interrupted') : state;
    return { ...base, run: { runId: ev.runId, threadId: ev.threadId, model: ev.model, stopRequested: false } };
  }
  if (state.run?.runId !== ev.runId) {
    // An error for a run this view never saw start (e.g. refused at once) is still worth showing.
    if (ev.type === 'runError' && !state.run) {
      return bound(append(state, { kind: 'error', message: ev.message, code: ev.code, retryable: ev.retryable }));
    }
    return state;
  }
  switch (ev.type) {
    case 'textDelta':
      return appendText(state, ev.runId, ev.text);
    case 'toolCallStarted': {
      // What runs in the editor is shown from the extension's own record, never from the backend's word.
      if (ev.executor === 'client') return noteAnnouncement(state, ev);
      if (findCard(state, ev.runId, ev.callId) >= 0) return state;
      return bound(appendCard(state, {
        kind: 'tool',
        runId: ev.runId,
        callId: ev.callId,
        toolName: ev.toolName,
        ...(ev.group !== undefined ? { group: ev.group } : {}),
        ...(ev.agent !== undefined ? { agent: ev.agent } : {}),
        executor: 'backend',
        argsSummary: summarizeArguments(ev.arguments),
        argsJson: clip(JSON.stringify(ev.arguments, null, 2), MAX_DETAIL_CHARS),
        status: 'pending',
        result: [],
        expanded: false,
      }));
    }
    case 'toolCallUpdated':
      return updateCard(state, ev.runId, ev.callId, (card) => {
        if (isTerminal(card.status) || card.requestId !== undefined) return card;
        const status: CardStatus = ev.status === 'awaiting-permission' ? 'awaiting-permission' : 'running';
        const details = ev.details ?? (status === card.status ? card.details : undefined);
        return withOptional({ ...card, status }, 'details', details);
      });
    case 'toolCallEnded':
      if (findCard(state, ev.runId, ev.callId) < 0 && ev.outcome !== 'succeeded') {
        const announcement = state.announced.find((a) => a.callId === ev.callId);
        if (announcement) return bound(notSentCard(state, announcement, ev));
      }
      return bound(updateCard(state, ev.runId, ev.callId, (card) => {
        if (card.requestId !== undefined) return card;
        const timedOut = ev.outcome === 'timedOut';
        const status: CardStatus = ev.outcome === 'timedOut' ? 'failed' : ev.outcome;
        const details = timedOut ? `Timed out${ev.errorMessage ? `: ${ev.errorMessage}` : ''}` : ev.errorMessage;
        return withOptional({ ...card, status, durationMs: ev.durationMs, result: ev.content.map(toResultPart) }, 'details', details);
      }));
    case 'groupExpanded':
      return bound(append({ ...state, items: markExpansionCard(state.items, ev) }, {
        kind: 'expansion',
        group: ev.group,
        ...(ev.skill !== undefined ? { skill: ev.skill } : {}),
        tools: ev.tools.slice(0, 200),
        runId: ev.runId,
      }));
    case 'contextCompacted':
      return bound(append(state, { kind: 'notice', text: ev.summary ? `${describeCompaction(ev)}\nWhat the model keeps of them: ${ev.summary}` : describeCompaction(ev) }));
    case 'contextUsage':
      return { ...state, contextUse: { tokens: ev.tokens, contextWindow: ev.contextWindow, estimated: ev.estimated } };
    case 'steerUpdated': {
      const { steers, delivered } = applySteerUpdate(state.steers, ev);
      return delivered !== undefined ? bound(append({ ...state, steers }, { kind: 'user', text: delivered })) : { ...state, steers };
    }
    case 'runFinished':
      return ev.usage ? withUsage(closeRun(state, ev.reason), ev.runId, ev.usage) : closeRun(state, ev.reason);
    case 'modelRetry':
      return bound(append(state, { kind: 'notice', text: `${ev.message} — retrying ${ev.attempt}/${ev.of} in ${Math.round(ev.delayMs / 1000)} s` }));
    case 'runError': {
      const closed = closeRun(state, 'error');
      return bound(append(closed, { kind: 'error', message: ev.message, code: ev.code, retryable: ev.retryable }));
    }
    default:
      return assertNever(ev, 'run event');
  }
}

/**
 * The extension's record of a call it executed: creates the call's card, or brings it up to date.
 * The card names the tool and arguments that ran, whatever the backend announced for the call.
 */
function onCallRecord(state: ChatState, record: ChatCallRecord): ChatState {
  const i = findRecordCard(state, record.recordId);
  if (i >= 0) {
    const card = state.items[i] as ToolItem;
    const items = state.items.slice();
    items[i] = fromRecord(record, card);
    return bound({ ...state, items });
  }
  const announcement = state.announced.find((a) => a.callId === record.callId);
  const announced = announcement ? state.announced.filter((a) => a !== announcement) : state.announced;
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
    ...(announcement && announcement.toolName !== record.toolName ? { announcedAs: announcement.toolName } : {}),
  });
  const { id: _id, ...item } = card;
  return bound(appendCard({ ...state, announced }, item));
}

/** Appends a new tool card, with the expansion that loaded its tool folded into it. */
function appendCard(state: ChatState, card: Omit<ToolItem, 'id'>): ChatState {
  const folded = foldInto(state.items, card);
  return append(folded.items === state.items ? state : { ...state, items: folded.items }, folded.card);
}

function fromRecord(record: ChatCallRecord, card: ToolItem): ToolItem {
  const timedOut = record.errorCode === 'TIMEOUT';
  const details = record.status === 'failed' || record.status === 'denied' || record.status === 'cancelled'
    ? (timedOut ? `Timed out${record.errorMessage ? `: ${record.errorMessage}` : ''}` : record.errorMessage)
    : undefined;
  let next: ToolItem = {
    ...card,
    requestId: record.requestId,
    recordId: record.recordId,
    toolName: record.toolName,
    group: record.groupName,
    executor: 'ide',
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
  if (record.refused) next = { ...next, refused: true };
  return next;
}

/** An OpenDiff review opened or changed: its call's card shows it, opened the first time so the choices are in sight. */
function onReview(state: ChatState, review: ChatReview): ChatState {
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

/**
 * The backend announced a client tool call. If the extension recorded it already, the card notes a
 * tool name that differs from what ran; otherwise the announcement waits for the record.
 */
function noteAnnouncement(state: ChatState, ev: Extract<ChatRunEvent, { type: 'toolCallStarted' }>): ChatState {
  const { callId, toolName } = ev;
  for (let i = state.items.length - 1; i >= 0; i--) {
    const it = state.items[i];
    if (it.kind === 'tool' && it.requestId !== undefined && it.callId === callId) {
      if (it.toolName === toolName || it.announcedAs === toolName) return state;
      const items = state.items.slice();
      items[i] = { ...it, announcedAs: toolName };
      return { ...state, items };
    }
  }
  const announcement: Announcement = {
    callId,
    toolName,
    ...(ev.group !== undefined ? { group: ev.group } : {}),
    argsSummary: summarizeArguments(ev.arguments),
    argsJson: clip(JSON.stringify(ev.arguments, null, 2), MAX_ANNOUNCED_ARGS_CHARS),
  };
  const announced = [...state.announced.filter((a) => a.callId !== callId), announcement].slice(-MAX_ANNOUNCED);
  return { ...state, announced };
}

/**
 * A client tool call the backend announced ended without success, and no request for it ever
 * reached the extension (no record came): the backend refused it itself or the run ended before it
 * was sent. Its card comes from the backend's events and says that nothing ran in the editor. A
 * "success" of an editor tool that never reached the editor is the backend's word against the
 * extension's record and makes no card, as before.
 */
function notSentCard(state: ChatState, announcement: Announcement, ev: Extract<ChatRunEvent, { type: 'toolCallEnded' }>): ChatState {
  const announced = state.announced.filter((a) => a !== announcement);
  const status: CardStatus = ev.outcome === 'timedOut' ? 'failed' : ev.outcome;
  const code = ev.errorCode !== undefined ? `${ev.errorCode}: ` : '';
  return appendCard({ ...state, announced }, {
    kind: 'tool',
    runId: ev.runId,
    callId: ev.callId,
    toolName: announcement.toolName,
    ...(announcement.group !== undefined ? { group: announcement.group } : {}),
    executor: 'backend',
    argsSummary: announcement.argsSummary,
    argsJson: announcement.argsJson,
    status,
    durationMs: ev.durationMs,
    result: [],
    expanded: false,
    notSent: true,
    ...(ev.errorMessage !== undefined || ev.errorCode !== undefined ? { details: `${code}${ev.errorMessage ?? ''}` } : {}),
  });
}

function findRecordCard(state: ChatState, recordId: string): number {
  for (let i = state.items.length - 1; i >= 0; i--) {
    const it = state.items[i];
    if (it.kind === 'tool' && it.recordId === recordId) return i;
  }
  return -1;
}

/** Record cards still open in the view whose call the extension no longer runs (the window reloaded). */
function closeStaleCalls(state: ChatState, openCallIds: string[] | undefined): ChatState {
  if (openCallIds === undefined) return state;
  const open = new Set(openCallIds);
  return mapItem(state, (it) => it.kind === 'tool' && it.requestId !== undefined && !isTerminal(it.status) && (it.recordId === undefined || !open.has(it.recordId))
    ? { ...it, status: 'cancelled', details: 'The editor no longer runs this call (the window was reloaded before it finished).' }
    : it);
}

function onSync(state: ChatState, activeRunId: string | null): ChatState {
  if (state.run && state.run.runId !== activeRunId) state = closeRun(state, 'interrupted');
  if (activeRunId && !state.run && !state.closedRunIds.includes(activeRunId)) {
    // The view missed the start (it was restored mid-run); adopt the run so its events show.
    state = { ...state, run: { runId: activeRunId, threadId: '', model: '', stopRequested: false } };
  }
  return state;
}

type CloseReason = 'completed' | 'cancelled' | 'maxTurns' | 'error' | 'interrupted';
const CLOSE_NOTICE: Partial<Record<CloseReason, string>> = {
  cancelled: 'Stopped.',
  maxTurns: 'Stopped: the agent reached its turn limit.',
  interrupted: 'The run was interrupted.',
};

/** Ends the current run: the answer stops streaming and calls still open become cancelled. */
function closeRun(state: ChatState, reason: CloseReason): ChatState {
  const run = state.run;
  if (!run) return state;
  // Cards from the extension's record end when the extension says so, not with the backend's run.
  const items = endStreaming(state.items).map((it) =>
    it.kind === 'tool' && it.runId === run.runId && !isTerminal(it.status) && it.requestId === undefined
      ? { ...it, status: 'cancelled' as const, details: 'The run ended before this call finished.' }
      : it);
  let next: ChatState = { ...state, items, run: null, closedRunIds: remember(state.closedRunIds, run.runId) };
  const notice = CLOSE_NOTICE[reason];
  if (notice) next = append(next, { kind: 'notice', text: notice });
  return bound(next);
}

/** A run's usage line goes after its answer; the conversation's totals follow the latest run. */
function withUsage(state: ChatState, runId: string, usage: TokenCounts & { thread: TokenCounts }): ChatState {
  const { thread, ...run } = usage;
  return bound(append({ ...state, threadUsage: thread }, { kind: 'usage', runId, ...run, thread }));
}

/** `runError` closed the run just before its `runFinished` (which still carries the run's usage). */
function endedByItsError(state: ChatState, runId: string): boolean {
  return state.closedRunIds[state.closedRunIds.length - 1] === runId && state.items[state.items.length - 1]?.kind === 'error';
}

function appendText(state: ChatState, runId: string, text: string): ChatState {
  if (text === '') return state;
  const last = state.items[state.items.length - 1];
  if (last?.kind === 'answer' && last.runId === runId && last.streaming) {
    if (last.truncated) return state;
    const joined = last.text + clipText(text, MAX_ANSWER_CHARS);
    const truncated = joined.length > MAX_ANSWER_CHARS;
    const items = state.items.slice();
    items[items.length - 1] = { ...last, text: clipText(joined, MAX_ANSWER_CHARS), truncated };
    return { ...state, items };
  }
  const truncated = text.length > MAX_ANSWER_CHARS;
  return bound(append(state, { kind: 'answer', runId, text: clipText(text, MAX_ANSWER_CHARS), streaming: true, truncated }));
}

function findCard(state: ChatState, runId: string, callId: string): number {
  for (let i = state.items.length - 1; i >= 0; i--) {
    const it = state.items[i];
    if (it.kind === 'tool' && it.runId === runId && it.callId === callId) return i;
  }
  return -1;
}

function updateCard(state: ChatState, runId: string, callId: string, f: (card: ToolItem) => ToolItem): ChatState {
  const i = findCard(state, runId, callId);
  if (i < 0) return state;
  const card = state.items[i] as ToolItem;
  const next = f(card);
  if (next === card) return state;
  const items = state.items.slice();
  items[i] = next;
  return { ...state, items };
}

/** Sets or removes an optional key without ever storing `undefined` (the state must survive JSON). */
function withOptional<T extends object>(obj: T, key: string, value: string | undefined): T {
  const copy: Record<string, unknown> = { ...(obj as Record<string, unknown>) };
  if (value === undefined) delete copy[key];
  else copy[key] = value;
  return copy as T;
}

function toResultPart(item: ChatContentItem): ResultPart {
  switch (item.type) {
    case 'text':
      return { kind: 'text', text: clip(item.text, MAX_DETAIL_CHARS) };
    case 'json':
      return { kind: 'json', text: clip(JSON.stringify(item.value, null, 2) ?? 'null', MAX_DETAIL_CHARS) };
    case 'binary': {
      const file = item.filename !== undefined ? { filename: item.filename } : {};
      if (isInlineImageType(item.mimeType) && item.data !== undefined) {
        return { kind: 'image', mimeType: item.mimeType.toLowerCase(), byteLength: item.byteLength, ...file, data: item.data };
      }
      return { kind: 'binary', mimeType: item.mimeType, byteLength: item.byteLength, ...file };
    }
  }
}

/** Keeps the last MAX_ITEMS items, and image bytes only for the newest MAX_KEPT_IMAGE_CHARS. */
export function bound(state: ChatState): ChatState {
  let items = state.items.length > MAX_ITEMS ? state.items.slice(-MAX_ITEMS) : state.items;
  let budget = MAX_KEPT_IMAGE_CHARS;
  let copied = items !== state.items;
  for (let i = items.length - 1; i >= 0; i--) {
    const it = items[i];
    if (it.kind !== 'tool' || !it.result.some((p) => p.kind === 'image' && p.data !== null)) continue;
    let changed = false;
    const result = it.result.map((p) => {
      if (p.kind !== 'image' || p.data === null) return p;
      if (p.data.length <= budget) {
        budget -= p.data.length;
        return p;
      }
      changed = true;
      return { ...p, data: null };
    });
    if (!changed) continue;
    if (!copied) {
      items = items.slice();
      copied = true;
    }
    items[i] = { ...it, result };
  }
  return items === state.items ? state : { ...state, items };
}

/**
 * The model changed (Select Model, Use the offline demo): the errors of the model before keep their
 * text but lose their actions, so Retry no longer offers to send to a model that is gone.
 */
function withStaleModelErrors(state: ChatState, before: string | undefined): ChatState {
  const now = state.connection.connection === 'connected' ? state.connection.model : undefined;
  return mapItem(state, (it) => {
    if (it.kind !== 'error' || !it.code.startsWith('MODEL_') || it.stale) return it;
    // An error is the model's that was connected when it came: the status before this one names it.
    const model = it.model ?? before;
    if (model === undefined) return it;
    if (now !== undefined && now !== model) return { ...it, model, stale: true };
    return it.model === model ? it : { ...it, model };
  });
}

export function clip(s: string, max: number): string {
  return cutWithNote(s, max);
}

/** `path: "src/a.ts", line: 3` — one line, at most `max` characters. */
export function summarizeArguments(args: Record<string, unknown>, max = SUMMARY_CHARS): string {
  const line = Object.entries(args).map(([k, v]) => `${k}: ${summarizeValue(v)}`).join(', ');
  return line.length <= max ? line : `${line.slice(0, max - 1)}…`;
}

function summarizeValue(v: unknown): string {
  if (typeof v === 'string') {
    // Only the start can show: fold the spaces of the first 200 characters, not of the whole value.
    const flat = v.slice(0, 200).replace(/\s+/g, ' ').trim();
    return JSON.stringify(flat.length <= 40 ? flat : `${flat.slice(0, 39)}…`);
  }
  if (Array.isArray(v)) return v.length === 0 ? '[]' : `[${v.length} item${v.length === 1 ? '' : 's'}]`;
  if (v !== null && typeof v === 'object') return '{…}';
  return String(v);
}

/** The transcript's one line about a compaction (contextCompacted). */
export function describeCompaction(ev: { mode: 'summarized' | 'elided'; messages: number; tokensBefore: number; tokensAfter: number }): string {
  const how = ev.mode === 'summarized' ? 'summarised by the model' : 'elided (the model no longer sees them)';
  return `To fit the model's context window, ${ev.messages} earlier message${ev.messages === 1 ? ' was' : 's were'} ${how}: ${ev.tokensBefore.toLocaleString('en')} → ${ev.tokensAfter.toLocaleString('en')} tokens.`;
}
