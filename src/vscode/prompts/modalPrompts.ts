/**
 * Permission prompts in VS Code's modal dialog (`clientTools.permissions.promptStyle: modal`): the
 * tool, the exact target, Deny and Allow, then the gate's choices (grants whose text says exactly
 * what they cover, and after repeated denials "Deny All from This Backend for N Minutes" and
 * "Disconnect"). Dismissing it (Escape, Cancel) means deny.
 */
import type { ConsentSurface } from '../../core/consent/consentText';
import type { PermissionAnswer, PermissionPrompt, PromptPresenter } from '../../core/consent/presenter';
import { safe, uiText } from '../../core/uiText';
import * as ui from '../ui';

const ALLOW = safe`Allow`;
const DENY = safe`Deny`;

type PromptButton = ui.SafeModalItem<PermissionAnswer>;

export class ModalPromptPresenter implements PromptPresenter {
  consentSurface(): ConsentSurface {
    return 'modal';
  }

  /**
   * VS Code's API cannot close a modal dialog from code, so when the call is cancelled this resolves
   * at once and the dialog's later answer is ignored.
   */
  confirm(prompt: PermissionPrompt, signal: AbortSignal): Promise<PermissionAnswer | undefined> {
    if (signal.aborted) return Promise.resolve(undefined);
    // Deny comes first so it is the focused default: Enter on a prompt never runs the tool. Items,
    // not strings, so two labels that read alike can never be confused. Grant labels name paths the
    // backend chose: through the door like any text of the backend's.
    const buttons: PromptButton[] = [
      { title: DENY, value: 'deny' },
      { title: ALLOW, value: 'allow' },
      // Whole: the gate offers only labels that fit (MAX_CHOICE_LABEL_COLUMNS), so nothing is cut here.
      ...prompt.choices.map((c) => ({ title: uiText(c.label, { maxLength: 1000 }), value: c.answer })),
    ];
    return new Promise<PermissionAnswer | undefined>((resolve) => {
      let settled = false;
      const finish = (answer: PermissionAnswer | undefined) => {
        if (settled) return;
        settled = true;
        signal.removeEventListener('abort', onAbort);
        resolve(answer);
      };
      const onAbort = () => finish(undefined);
      signal.addEventListener('abort', onAbort);
      ui.showModalItems(prompt, buttons).then(
        (choice) => finish(choice?.value),
        () => finish(undefined),
      );
    });
  }
}
