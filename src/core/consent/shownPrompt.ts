/**
 * The one permission prompt a presenter shows that takes its answer from elsewhere (the chat's
 * card): the gate's queue holds the others. An answer counts only for the prompt shown now, named by
 * the id the gate minted for it, with the digest of the text its card showed, and only with a button
 * that prompt offered. Anything else (a card restored from an old saved state, a prompt withdrawn
 * meanwhile, a request id a new session used again) is refused and changes nothing.
 */
import { Emitter, type Event } from '../../base/events';
import type { ChatApproval } from '../../protocol/webview';
import type { PermissionAnswer, PermissionPrompt, PermissionReply } from './presenter';

/** Why an answer was refused, or that it was taken. */
export type AnswerVerdict = 'accepted' | 'not-open' | 'digest-mismatch' | 'not-offered';

interface Shown {
  prompt: PermissionPrompt;
  offered: ReadonlySet<PermissionAnswer>;
  resolve: (reply: PermissionReply | undefined) => void;
}

/** The prompt as the chat's card shows it: the gate's texts and choices as they are, with its id and digest. */
export function chatApprovalOf(prompt: PermissionPrompt): ChatApproval {
  return {
    promptId: prompt.promptId,
    digest: prompt.digest,
    requestId: prompt.requestId,
    toolName: prompt.toolName,
    groupName: prompt.groupName,
    message: prompt.message,
    detail: prompt.detail,
    choices: prompt.choices.map((c) => ({ answer: c.answer, label: c.label })),
    ...(prompt.editable ? { editable: { argument: prompt.editable.argument, value: prompt.editable.value } } : {}),
  };
}

export class ShownPrompt {
  private shown: Shown | undefined;
  private readonly changes = new Emitter<void>();
  /** A prompt was shown or closed. */
  readonly onDidChange: Event<void> = this.changes.event;

  /** The prompt shown now, if any. */
  get current(): PermissionPrompt | undefined {
    return this.shown?.prompt;
  }

  get isOpen(): boolean {
    return this.shown !== undefined;
  }

  /**
   * Shows `prompt`; resolves with the user's reply, or undefined once `signal` aborts or it is
   * closed. The gate shows one at a time: a prompt still shown when another comes is closed first
   * (as dismissed), so the card always shows what is being asked now.
   */
  show(prompt: PermissionPrompt, signal: AbortSignal): Promise<PermissionReply | undefined> {
    if (signal.aborted) return Promise.resolve(undefined);
    this.close(undefined);
    const offered = new Set<PermissionAnswer>(['allow', 'deny', ...prompt.choices.map((c) => c.answer)]);
    return new Promise((resolve) => {
      const onAbort = () => this.close(undefined, prompt.promptId);
      signal.addEventListener('abort', onAbort, { once: true });
      this.shown = {
        prompt,
        offered,
        resolve: (reply) => {
          signal.removeEventListener('abort', onAbort);
          resolve(reply);
        },
      };
      this.changes.fire();
    });
  }

  /**
   * The chat's answer to the prompt `promptId`, whose card showed text with `digest`. `edited`: the
   * user's value for the editable argument, taken only with an `edit` the prompt offered.
   */
  answer(promptId: string, digest: string, answer: PermissionAnswer, reason?: string, edited?: string): AnswerVerdict {
    const shown = this.shown;
    if (!shown || shown.prompt.promptId !== promptId) return 'not-open';
    if (shown.prompt.digest !== digest) return 'digest-mismatch';
    if (!shown.offered.has(answer)) return 'not-offered';
    if ((answer === 'edit') !== (edited !== undefined)) return 'not-offered';
    this.close(answer === 'edit' ? { answer, edited } : answer === 'deny' && reason?.trim() ? { answer, reason } : { answer });
    return 'accepted';
  }

  /** Closes the prompt shown (`promptId`: only if it is that one) with `reply`; undefined is dismissed (deny). */
  close(reply: PermissionReply | undefined, promptId?: string): void {
    const shown = this.shown;
    if (!shown || (promptId !== undefined && shown.prompt.promptId !== promptId)) return;
    this.shown = undefined;
    this.changes.fire();
    shown.resolve(reply);
  }

  dispose(): void {
    this.close(undefined);
    this.changes.dispose();
  }
}
