/**
 * Rewind to here, the transcript's side: each user message learns the run it started (at that run's
 * `runStarted`), so it can be named; the runs from one message on are what a rewind drops; and once
 * the extension has rewound, the message and everything after it leave the transcript.
 */
import { MAX_REWIND_RUNS } from '../protocol/webview';
import type { ChatState } from './stateSchema';

/** The newest item is the user's message that a run has not claimed yet: it is this run's. */
export function stampUserMessage(state: ChatState, runId: string): ChatState {
  const last = state.items[state.items.length - 1];
  if (last?.kind !== 'user' || last.runId !== undefined) return state;
  return { ...state, items: [...state.items.slice(0, -1), { ...last, runId }] };
}

/** The run `runId`'s message and every later message's run, in order; empty when the transcript has no such message. */
export function runIdsFrom(state: ChatState, runId: string): string[] {
  const at = state.items.findIndex((it) => it.kind === 'user' && it.runId === runId);
  if (at < 0) return [];
  const ids: string[] = [];
  for (const it of state.items.slice(at)) {
    const id = it.kind === 'user' ? it.runId : 'runId' in it ? it.runId : undefined;
    if (id !== undefined && !ids.includes(id)) ids.push(id);
  }
  return ids.slice(0, MAX_REWIND_RUNS);
}

/**
 * The transcript without run `runId`'s message and what followed it (another thread's rewind changes
 * nothing). Retry forgets what it would send: the last message is one the rewind took away.
 */
export function rewoundTo(state: ChatState, threadId: string, runId: string): ChatState {
  if (state.threadId !== threadId) return state;
  const at = state.items.findIndex((it) => it.kind === 'user' && it.runId === runId);
  if (at < 0) return state;
  return { ...state, items: state.items.slice(0, at), lastUserText: null, lastUserContext: null };
}
