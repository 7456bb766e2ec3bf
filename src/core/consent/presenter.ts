/**
 * What a permission prompt shows and how it is put in front of the user. The permission gate builds
 * the prompt (its texts measured for the presenter's surface) and shows one at a time through one
 * `PromptPresenter`; which presenter (the chat's card, VS Code's modal) is chosen where the extension
 * is wired together (src/vscode/prompts/), never by the host or the gate.
 */
import type { ConsentSurface, FittedConsent } from './consentText';

/**
 * `allowSession` remembers this tool on this target, `allowFolder` on the target's folder (each as its
 * button said); `denyAll` denies every prompt from this backend for a while; `disconnect` also ends
 * the connection; `edit` sends the user's own value for the prompt's editable argument, which is
 * checked and asked about again before anything runs (src/core/editedCall.ts).
 */
export type PermissionAnswer = 'allow' | 'allowSession' | 'allowFolder' | 'deny' | 'denyAll' | 'disconnect' | 'edit';

/** Most characters of a user's reason for a Deny that reach the model. */
export const MAX_DENY_REASON_CHARS = 500;

/** An answer with the user's own words: a Deny's optional reason, which the model reads in the tool result. */
export interface PermissionReply {
  answer: PermissionAnswer;
  reason?: string;
  /** With `edit` only: the user's value for the prompt's `editable` argument. */
  edited?: string;
}

/** A button beyond Deny and Allow, with text written by the permission gate to say exactly what it does. */
export interface PermissionChoice {
  answer: Exclude<PermissionAnswer, 'allow' | 'deny'>;
  label: string;
}

/**
 * What a permission prompt shows. Built by the permission gate from the tool's local definition,
 * through src/core/consent/consentText.ts: `message` and `detail` are the texts exactly as shown (values on
 * one line, invisible characters spelled out), measured to fit `surface` in full.
 */
export interface PermissionPrompt extends FittedConsent {
  /** Minted by the gate for this prompt alone, never the backend's request id: an answer in the chat names it. */
  promptId: string;
  /** SHA-256 of what the prompt shows (`approvalDigestInput`): an answer in the chat carries the digest of the text its card showed. */
  digest: string;
  requestId: string;
  toolName: string;
  groupName: string;
  /** Whether to offer "Allow for this session"; false when the choice must not be remembered. */
  offerAllowSession: boolean;
  /**
   * The buttons after Deny and Allow, in order: the remembered grants on offer (their labels say the
   * tool, the target or folder, and where it is remembered), then, after repeated denials, "Deny All
   * from This Backend for N Minutes" and "Disconnect". Labels are whole and on one line, invisible
   * characters spelled out (a label too long to show is not offered); still plain text to sanitise.
   */
  choices: PermissionChoice[];
  /**
   * The one argument the user may change before allowing (RunInTerminal's command, a single-target
   * tool's path), with the value the agent proposed; offered only with an `edit` choice.
   */
  editable?: EditableArgument;
}

/** An argument a prompt lets the user edit: its name and the agent's proposed value, verbatim. */
export interface EditableArgument {
  argument: string;
  value: string;
}

/** Puts the gate's prompts in front of the user, one at a time (the gate keeps the only queue). */
export interface PromptPresenter {
  /** Where the next prompt will be shown; the gate measures its text for it. The modal when absent. */
  consentSurface?(): ConsentSurface;
  /**
   * Shows `prompt` and resolves with the user's answer, or undefined when it was dismissed. When
   * `signal` aborts (the call was cancelled, the prompt timed out) the presenter closes the prompt
   * and resolves undefined. A presenter that lets the user say why (the chat's card) resolves a
   * `PermissionReply`.
   */
  confirm(prompt: PermissionPrompt, signal: AbortSignal): Promise<PermissionAnswer | PermissionReply | undefined>;
}
