/**
 * The chat view's state and its reducer: (state, action) → state, with no DOM and no I/O, so it runs
 * in the webview and in plain Node tests alike. The state is plain JSON: the webview saves it with
 * `setState` and restores it after the view was hidden or the window reloaded.
 *
 * Changed items are replaced, unchanged items keep their identity; the renderer relies on that to
 * touch only what changed (while streaming, only the active answer). The state's shape is in
 * src/webview/stateSchema.ts, its items in src/webview/stateItems.ts, tool cards in src/webview/toolCards.ts.
 */
import { applySteerUpdate, MAX_PENDING_STEERS } from './steers';
import { assertNever, assertNeverOr } from '../protocol/assertNever';
import { markExpansionCard } from './expansionFold';
import { clipText } from '../protocol/clipText';
import { MAX_ANSWER_CHARS, MAX_TRANSCRIPT_CHARS, type ChatRunEvent } from '../protocol/webview';
import { append, appendCard, bound, clip, endStreaming, mapItem, remember, summarizeArguments, toResultPart, withOptional } from './stateItems';
import { ChatState, initialState, isTerminal, MAX_DETAIL_CHARS, type CardStatus, type ChatAction, type TokenCounts } from './stateSchema';
import { transcriptJson } from './stateJson';
import { closeStaleCalls, findCard, onCallRecord, onReview, updateCard } from './toolCards';
import { rewoundTo, stampUserMessage } from './rewind';

// What the rest of the view imports from here: the state's types and the texts it shows.
export * from './stateSchema';
export { bound, clip, summarizeArguments } from './stateItems';
export { describeEdit, describePermission } from './toolCards';
export { MAX_ANSWER_CHARS };

/** Saved state from `getState()` (any version, possibly absent or corrupt) → a valid, bounded state. */
export function restoreState(saved: unknown): ChatState {
  // The view saves its state as JSON text (src/webview/stateJson.ts); an older view saved the object.
  const parsed = ChatState.safeParse(typeof saved === 'string' ? parseOrUndefined(saved) : saved);
  // A saved prompt is one the host may have closed since: its card would show old text while an
  // answer went to whatever is open now. The host sends the prompt that is open after `ready`.
  // Nor is a saved "connected" known to be true now (after a window reload the backend is still
  // starting): the view says connecting until the host's status, which it replays after `ready`.
  if (!parsed.success) return initialState();
  const { connection } = parsed.data;
  return bound({ ...parsed.data, approval: null, connection: connection.connection === 'connected' ? { ...connection, connection: 'connecting' } : connection });
}

function parseOrUndefined(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
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
      return bound(append({ ...state, lastUserText: action.text, lastUserContext: action.context ?? null }, { kind: 'user', text: action.text, ...(action.attachment ? { attachment: action.attachment } : {}) }));
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
    case 'threads':
      return { ...state, threads: action.threads };
    case 'notice':
      return bound(append(state, { kind: 'notice', text: action.text }));
    case 'showThread':
      return showThread(state, action.threadId, action.transcript);
    case 'showHistory':
      // Opening the list is the renderer's business; the state does not change.
      return state;
    case 'rewound':
      return rewoundTo(state, action.threadId, action.runId);
    case 'diffReview':
      return onReview(state, action.review);
    case 'focusInput':
    case 'runChanges':
    case 'agents':
      // The agent picker is the renderer's (src/webview/agentPicker.ts), not the transcript's.
      return state;
    case 'transcriptResync':
      // About the host's copy of the transcript (src/webview/transcriptSync.ts), not the view's state.
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
  return transcriptJson(state, maxChars);
}

function onRunEvent(state: ChatState, ev: ChatRunEvent): ChatState {
  if (ev.type === 'runFinished' && ev.usage && endedByItsError(state, ev.runId)) return withUsage(state, ev.runId, ev.usage);
  if (state.closedRunIds.includes(ev.runId)) return state;
  if (ev.type === 'runStarted') {
    if (state.run?.runId === ev.runId) return state;
    const base = state.run ? closeRun(state, 'interrupted') : state;
    return stampUserMessage({ ...base, run: { runId: ev.runId, threadId: ev.threadId, model: ev.model, stopRequested: false } }, ev.runId);
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
      // A client call's card is the extension's record alone (src/vscode/chat/cardStream.ts keeps its events from the view).
      if (ev.executor === 'client') return state;
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

/** The transcript's one line about a compaction (contextCompacted). */
export function describeCompaction(ev: { mode: 'summarized' | 'elided'; messages: number; tokensBefore: number; tokensAfter: number }): string {
  const how = ev.mode === 'summarized' ? 'summarised by the model' : 'elided (the model no longer sees them)';
  return `To fit the model's context window, ${ev.messages} earlier message${ev.messages === 1 ? ' was' : 's were'} ${how}: ${ev.tokensBefore.toLocaleString('en')} → ${ev.tokensAfter.toLocaleString('en')} tokens.`;
}
