/**
 * Entry point of the chat webview (bundled to media/chat.js). Wires the VS Code webview API to the
 * reducer and the renderer: host messages are parsed before they reach the reducer, the state is
 * saved with `setState` so the view comes back after it was hidden or the window reloaded, and
 * `ready` tells the host it may start posting.
 */
import './jitless'; // Must stay first: configures zod before any schema is built.
import { HostToWebview, type WebviewToHost } from '../protocol/webview';
import { ChatView } from './render';
import { initialState, reduce, type ChatAction } from './state';

interface VsCodeApi {
  postMessage(message: unknown): void;
  getState(): unknown;
  setState(state: unknown): void;
}
declare function acquireVsCodeApi(): VsCodeApi;

const SAVE_DELAY_MS = 200;

const api = acquireVsCodeApi();
const post = (message: WebviewToHost): void => api.postMessage(message);

let state = reduce(initialState(), { type: 'restore', saved: api.getState() });
let renderScheduled = false;
let saveTimer: ReturnType<typeof setTimeout> | undefined;

function dispatch(action: ChatAction): void {
  const next = reduce(state, action);
  if (next === state) return;
  state = next;
  scheduleRender();
  scheduleSave();
}

// Deltas arrive faster than frames; render at most once per frame.
function scheduleRender(): void {
  if (renderScheduled) return;
  renderScheduled = true;
  requestAnimationFrame(() => {
    renderScheduled = false;
    view.update(state);
  });
}

function scheduleSave(): void {
  saveTimer ??= setTimeout(saveNow, SAVE_DELAY_MS);
}

function saveNow(): void {
  if (saveTimer !== undefined) clearTimeout(saveTimer);
  saveTimer = undefined;
  api.setState(state);
}

const root = document.getElementById('app');
if (!root) throw new Error('chat view: #app is missing');
const view = new ChatView(root, {
  send: (text) => post({ type: 'send', text }),
  stop: () => {
    dispatch({ type: 'stopRequested' });
    post({ type: 'stop' });
  },
  newChat: () => {
    dispatch({ type: 'newChatRequested' });
    post({ type: 'newChat' });
  },
  retry: () => {
    if (state.lastUserText) post({ type: 'retry', text: state.lastUserText });
  },
  copy: (text) => post({ type: 'copy', text }),
  toggleCard: (id, open) => dispatch({ type: 'toggleCard', id, open }),
});
view.update(state);

window.addEventListener('message', (event: MessageEvent<unknown>) => {
  const parsed = HostToWebview.safeParse(event.data);
  if (!parsed.success) {
    console.warn('chat view: ignored an invalid message from the host', parsed.error.issues.slice(0, 3));
    return;
  }
  dispatch(parsed.data);
});
// The document may be thrown away as soon as it is hidden; save what is pending first.
document.addEventListener('visibilitychange', () => {
  if (document.visibilityState === 'hidden') saveNow();
});
window.addEventListener('pagehide', saveNow);

post({ type: 'ready' });
