/**
 * The chat's error item: what failed, then the actions that can fix it. A model that did not answer
 * or refused offers Select Model, the offline demo and the log beside Retry, so the user is never
 * left with Retry alone against an endpoint that is down. The message goes in as text.
 */
import type { ChatAction } from '../protocol/webview';

/** The failures that are the model endpoint's, not the editor's or the backend's. */
const MODEL_CODES = new Set(['MODEL_TIMEOUT', 'MODEL_ERROR', 'MODEL_AUTH', 'MODEL_RATE_LIMITED']);

export interface ErrorFields {
  message: string;
  code: string;
  retryable: boolean;
}

type ErrorAction = { label: string; action: ChatAction; title: string } | { label: 'Retry'; action: 'retry'; title: string };

/** The buttons an error offers, in order. */
export function errorActions(item: ErrorFields): ErrorAction[] {
  const out: ErrorAction[] = [];
  if (item.code === 'DISCONNECTED') out.push({ label: 'Connect', action: 'connect', title: 'Connect to the agent backend again' });
  if (item.retryable) out.push({ label: 'Retry', action: 'retry', title: 'Send the last message again' });
  if (MODEL_CODES.has(item.code)) {
    out.push({ label: 'Select Model', action: 'selectModel', title: 'Choose another model endpoint and test it (Client Tools: Select Model)' });
    out.push({ label: 'Use the offline demo', action: 'useOfflineDemo', title: 'Switch to the offline demo model: no endpoint, no key' });
  }
  if (MODEL_CODES.has(item.code)) out.push({ label: 'Show Log', action: 'showLog', title: 'Open the Client Tools log (Client Tools: Show Log)' });
  return out;
}

/** Retry keeps its class (the transcript's click handler sends the last message again); the others carry `data-action`. */
export function renderError(item: ErrorFields): HTMLElement {
  const root = document.createElement('div');
  root.className = 'msg error-item';
  const text = document.createElement('div');
  text.className = 'error-text';
  const title = document.createElement('span');
  title.className = 'error-title';
  title.textContent = 'Error: ';
  text.append(title, item.message);
  const footer = document.createElement('div');
  footer.className = 'error-footer';
  const code = document.createElement('code');
  code.className = 'error-code';
  code.textContent = item.code;
  const actions = document.createElement('div');
  actions.className = 'error-actions';
  for (const a of errorActions(item)) {
    const button = document.createElement('button');
    button.type = 'button';
    button.textContent = a.label;
    button.title = a.title;
    if (a.action === 'retry') button.className = 'retry secondary';
    else if (a.action === 'connect') button.className = 'connect-backend';
    else {
      button.className = 'error-action secondary';
      button.dataset.action = a.action;
    }
    actions.append(button);
  }
  footer.append(code, actions);
  root.append(text, footer);
  return root;
}
