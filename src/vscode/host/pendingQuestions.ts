/**
 * ShowMessage questions (a notification with buttons) that wait for the user. VS Code hides a
 * toast after a while and cannot take one back, so the chat shows the same question with its
 * buttons and Give up (src/webview/questionBanner.ts); whichever answer comes first ends the wait,
 * and a cancelled call ends it too. A later click on the toast then changes nothing.
 */
import type { QuestionCall } from '../../core/host';

interface Waiting {
  readonly buttons: readonly string[];
  settle(answer: string | undefined): void;
}

export class PendingQuestions {
  private readonly waiting = new Map<string, Waiting>();

  /** Waits for the notification's answer, the chat's, or the call's end, whichever comes first. */
  ask(call: QuestionCall, buttons: readonly string[], notification: PromiseLike<string | undefined>): Promise<string | undefined> {
    if (call.signal.aborted) return Promise.resolve(undefined);
    return new Promise((resolve) => {
      const settle = (answer: string | undefined): void => {
        if (this.waiting.get(call.recordId)?.settle !== settle) return;
        this.waiting.delete(call.recordId);
        call.signal.removeEventListener('abort', onAbort);
        resolve(answer);
      };
      const onAbort = (): void => settle(undefined);
      this.waiting.set(call.recordId, { buttons, settle });
      call.signal.addEventListener('abort', onAbort);
      notification.then(settle, () => settle(undefined));
    });
  }

  /**
   * The chat's answer: the button at `index` (the order the tool gave them), or null for Give up.
   * A record id that is not waiting (answered already, cancelled) or an index out of range changes nothing.
   */
  answer(recordId: string, index: number | null): boolean {
    const waiting = this.waiting.get(recordId);
    if (!waiting) return false;
    if (index === null) waiting.settle(undefined);
    else if (index >= 0 && index < waiting.buttons.length) waiting.settle(waiting.buttons[index]);
    else return false;
    return true;
  }
}
