/**
 * Entry point of the chat webview (bundled to media/chat.js). Wires the VS Code webview API to the
 * reducer and the renderer: host messages are parsed before they reach the reducer, the state is
 * saved with `setState` so the view comes back after it was hidden or the window reloaded, and
 * `ready` tells the host it may start posting.
 */
import './jitless'; // Must stay first: configures zod before any schema is built.
import { MAX_USER_TEXT, receiveFromHost, type WebviewToHost } from '../protocol/webview';
import { leftoverText, newSteerId } from './steers';
import { ChatView } from './render';
import { RunChangeListView } from './runChangeList';
import { runIdsFrom } from './rewind';
import { initialState, reduce, type ChatAction } from './state';
import { stateJson } from './stateJson';
import { TranscriptSync } from './transcriptSync';

interface VsCodeApi {
  postMessage(message: unknown): void;
  getState(): unknown;
  setState(state: unknown): void;
}
declare function acquireVsCodeApi(): VsCodeApi;

const SAVE_DELAY_MS = 200;
/**
 * While a run streams, the state is saved less often: VS Code writes it out whole as JSON on every
 * `setState` (1.3 MB for a thread of 500 turns, 10 to 30 ms of this page's main thread), and the end
 * of the run, a prompt, hiding the view and leaving the page save it at once anyway.
 */
const SAVE_WHILE_RUNNING_DELAY_MS = 2000;
/** The host's copy of the transcript (to show the thread again later) is sent less often. */
const SAVE_TRANSCRIPT_DELAY_MS = 1000;

const api = acquireVsCodeApi();
const post = (message: WebviewToHost): void => api.postMessage(message);

let state = reduce(initialState(), { type: 'restore', saved: api.getState() });
let renderScheduled = false;
let saveTimer: ReturnType<typeof setTimeout> | undefined;
let transcriptTimer: ReturnType<typeof setTimeout> | undefined;
/** What the host was last sent of the transcript: it is sent what changed since (a status change alone sends nothing). */
const transcript = new TranscriptSync(post);

/** Once the run is over, what it did not take of the messages typed during it goes as the next message. */
function sendLeftoverSteers(): void {
  if (state.run || state.steers.length === 0 || state.connection.connection !== 'connected') return;
  const text = leftoverText(state.steers, MAX_USER_TEXT);
  dispatch({ type: 'leftoverSteersSent' });
  if (text !== undefined) post({ type: 'send', text });
}

function dispatch(action: ChatAction): void {
  const next = reduce(state, action);
  if (next === state) return;
  state = next;
  scheduleRender();
  scheduleSave();
  if (transcript.pending(state)) transcriptTimer ??= setTimeout(saveTranscriptNow, SAVE_TRANSCRIPT_DELAY_MS);
}

/** Sends the transcript of the thread shown now to the host; called before leaving the thread too. */
function saveTranscriptNow(): void {
  if (transcriptTimer !== undefined) clearTimeout(transcriptTimer);
  transcriptTimer = undefined;
  transcript.save(state, Date.now());
}

// Deltas arrive faster than frames; render at most once per frame. Chromium runs no animation
// frames in a webview frame it throttles (hidden, or not yet laid out after a window reload), so a
// timer renders too if no frame came: without it the page kept showing the restored state while
// the host's messages piled up unseen (a reload brought back an old transcript and an old list).
const RENDER_FALLBACK_MS = 100;

function scheduleRender(): void {
  if (renderScheduled) return;
  renderScheduled = true;
  const render = (): void => {
    if (!renderScheduled) return;
    renderScheduled = false;
    view.update(state);
  };
  requestAnimationFrame(render);
  setTimeout(render, RENDER_FALLBACK_MS);
}

function scheduleSave(): void {
  saveTimer ??= setTimeout(saveNow, state.run ? SAVE_WHILE_RUNNING_DELAY_MS : SAVE_DELAY_MS);
}

function saveNow(): void {
  if (saveTimer !== undefined) clearTimeout(saveTimer);
  saveTimer = undefined;
  // Never a live prompt: restoring one could show its text for another (src/webview/state.ts restoreState).
  // As JSON text built item by item (src/webview/stateJson.ts); VS Code keeps it as it is given.
  api.setState(stateJson({ ...state, approval: null, savedAt: Date.now() }));
}

const root = document.getElementById('app');
if (!root) throw new Error('chat view: #app is missing');
const view = new ChatView(root, {
  send: (text) => {
    post({ type: 'send', text, ...(state.attachment ? { context: state.attachment.context } : {}) });
    dispatch({ type: 'removeAttachment' });
  },
  stop: () => {
    dispatch({ type: 'stopRequested' });
    post({ type: 'stop' });
  },
  newChat: () => {
    saveTranscriptNow();
    dispatch({ type: 'newChatRequested' });
    post({ type: 'newChat' });
  },
  switchThread: (threadId) => {
    saveTranscriptNow();
    post({ type: 'switchThread', threadId });
  },
  renameThread: (threadId, title) => post({ type: 'renameThread', threadId, title }),
  deleteThread: (threadId) => {
    saveTranscriptNow();
    post({ type: 'deleteThread', threadId });
  },
  retry: () => {
    if (state.lastUserText) post({ type: 'retry', text: state.lastUserText, ...(state.lastUserContext ? { context: state.lastUserContext } : {}) });
  },
  copy: (text) => post({ type: 'copy', text }),
  decideReview: (reviewId, accept, reason) => post({ type: 'decideReview', reviewId, accept, ...(reason !== undefined ? { reason } : {}) }),
  reviewHunk: (reviewId, hunk, keep) => post({ type: 'reviewHunk', reviewId, hunk, keep }),
  keptChange: (reviewId, action) => post({ type: 'keptChange', reviewId, action }),
  runAction: (action) => post({ type: 'action', action }),
  answerQuestion: (recordId, index) => post({ type: 'answerQuestion', recordId, index }),
  toggleCard: (id, open) => dispatch({ type: 'toggleCard', id, open }),
  removeAttachment: () => dispatch({ type: 'removeAttachment' }),
  openPath: (path, line) => post({ type: 'openPath', path, ...(line !== undefined ? { line } : {}) }),
  answerApproval: (promptId, digest, answer, reason, edited) => post({ type: 'approvalAnswer', promptId, digest, answer, ...(reason !== undefined ? { reason } : {}), ...(edited !== undefined ? { edited } : {}) }),
  pickAgent: (name) => post({ type: 'pickAgent', name }),
  steer: (text) => {
    const steerId = newSteerId();
    dispatch({ type: 'steerQueued', steerId, text });
    post({ type: 'steer', steerId, text });
  },
  compact: () => post({ type: 'compact' }),
  rewind: (runId) => {
    const runIds = runIdsFrom(state, runId);
    if (state.threadId !== null && runIds.length > 0) post({ type: 'rewind', threadId: state.threadId, runId, runIds });
  },
  withdrawSteer: (steerId) => {
    dispatch({ type: 'steerWithdrawn', steerId });
    post({ type: 'withdrawSteer', steerId });
  },
});
view.update(state);
const runChanges = new RunChangeListView({
  runChange: (threadId, runId, file, hunk, action) => post({ type: 'runChange', threadId, runId, action, ...(file !== undefined ? { file } : {}), ...(hunk !== undefined ? { hunk } : {}) }),
});
root.querySelector('.items')?.after(runChanges.root);
runChanges.setThread(state.threadId);

window.addEventListener('message', (event: MessageEvent<unknown>) => {
  const received = receiveFromHost(event.data);
  if (!received.ok) {
    // Dropped whole; the host logs why (the view's console is out of the user's sight).
    post({ type: 'refusedMessage', ...received.error });
    return;
  }
  const message = received.message;
  if (message.type === 'showHistory') view.openHistory();
  if (message.type === 'agents') view.setAgents(message.agents, message.current);
  if (message.type === 'focusInput' || message.type === 'attachSelection') view.focusInput();
  // The transcript being left is the host's to keep before another one replaces it.
  if (message.type === 'showThread') saveTranscriptNow();
  if (message.type === 'transcriptResync') {
    transcript.resync(message.threadId);
    saveTranscriptNow();
  }
  if (message.type === 'runChanges') runChanges.setRuns(message.runs);
  dispatch(message);
  runChanges.setThread(state.threadId);
  sendLeftoverSteers();
  // A finished turn is kept at once, not after the usual delay: a window reload right after the
  // answer would otherwise bring back the transcript without it (the page may not get to run its
  // pagehide handler, and a message it posts then may not reach the host).
  // So is the moment something starts waiting on the user (a permission prompt, a question): the
  // user may well switch away from the chat then, and a hidden view's page is thrown away at once.
  const finished = (message.type === 'runEvent' && (message.event.type === 'runFinished' || message.event.type === 'runError')) || message.type === 'rewound';
  const waiting = (message.type === 'approval' && message.prompt !== null) || (message.type === 'awaitingInput' && message.open);
  if (finished || waiting) {
    saveNow();
    saveTranscriptNow();
  }
});
// The document may be thrown away as soon as it is hidden; save what is pending first.
document.addEventListener('visibilitychange', () => {
  if (document.visibilityState === 'hidden') {
    saveNow();
    saveTranscriptNow();
  }
});
window.addEventListener('pagehide', () => {
  saveNow();
  saveTranscriptNow();
});

post({ type: 'ready', ...(state.threadId !== null ? { threadId: state.threadId, savedAt: state.savedAt } : {}) });
