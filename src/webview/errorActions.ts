/**
 * The actions an error in the chat offers (errorCard.ts draws them): Retry when retrying may help,
 * Connect when the backend is gone, and for a model's failure Select Model, the offline demo and
 * the log as well. No DOM, so it is tested in Node.
 */
import type { ChatAction } from '../protocol/webview';

/** The failures that are the model endpoint's, not the editor's or the backend's. */
const MODEL_CODES = new Set(['MODEL_TIMEOUT', 'MODEL_ERROR', 'MODEL_AUTH', 'MODEL_RATE_LIMITED']);

export interface ErrorFields {
  message: string;
  code: string;
  retryable: boolean;
  /** The model was switched since: no actions, a note instead. */
  stale?: boolean;
}

export type ErrorAction = { label: string; action: ChatAction; title: string } | { label: 'Retry'; action: 'retry'; title: string };

/** The buttons an error offers, in order. */
export function errorActions(item: ErrorFields): ErrorAction[] {
  const out: ErrorAction[] = [];
  if (item.stale) return out;
  if (item.code === 'DISCONNECTED') out.push({ label: 'Connect', action: 'connect', title: 'Connect to the agent backend again' });
  if (item.retryable) out.push({ label: 'Retry', action: 'retry', title: 'Send the last message again' });
  if (MODEL_CODES.has(item.code)) {
    out.push({ label: 'Select Model', action: 'selectModel', title: 'Choose another model endpoint and test it (Client Tools: Select Model)' });
    out.push({ label: 'Use the offline demo', action: 'useOfflineDemo', title: 'Switch to the offline demo model: no endpoint, no key' });
  }
  if (MODEL_CODES.has(item.code)) out.push({ label: 'Show Log', action: 'showLog', title: 'Open the Client Tools log (Client Tools: Show Log)' });
  return out;
}

