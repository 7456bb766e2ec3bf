/**
 * The chat's error item: what failed, then the actions that can fix it. A model that did not answer
 * or refused offers Select Model, the offline demo and the log beside Retry, so the user is never
 * left with Retry alone against an endpoint that is down. The message goes in as text.
 */
import { errorActions, type ErrorFields } from './errorActions';

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
  if (item.stale) {
    const note = document.createElement('span');
    note.className = 'error-stale';
    note.textContent = 'The model was switched since.';
    footer.append(note);
  }
  root.append(text, footer);
  return root;
}
