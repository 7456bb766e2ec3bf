/**
 * A review's notification (Accept / Reject). VS Code lets no extension close one message, so a
 * review decided another way (the chat's card, the editor's title bar, the palette) left its toast
 * on screen. When that happens while the toast still shows, the toasts are hidden
 * (`notifications.hideToasts`): the message stays in the notification centre, where a late click on
 * it does nothing (the review's handler is bound to the ended review).
 */
import * as vscode from 'vscode';
import type { SafeText } from '../../core/uiText';
import * as ui from '../ui';

export interface ReviewToast {
  /** The review ended: hides the toast if it still shows. */
  ended(): void;
}

export function showReviewToast(message: SafeText, accept: SafeText, reject: SafeText, decided: (accepted: boolean) => void): ReviewToast {
  let showing = true;
  void ui.showInfo(message, accept, reject).then((choice) => {
    showing = false;
    if (choice === accept) decided(true);
    else if (choice === reject) decided(false);
  });
  return {
    ended: () => {
      if (!showing) return;
      showing = false;
      void vscode.commands.executeCommand('notifications.hideToasts');
    },
  };
}
