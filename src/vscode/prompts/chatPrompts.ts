/**
 * Permission prompts answered in the chat (`clientTools.permissions.promptStyle: chat`, the
 * default): the chat's card shows the gate's texts whole with Allow, the scoped Allow choices and
 * Deny with an optional reason; nothing takes the keyboard from the editor.
 *
 * Unlike a modal, the prompt can be taken back: a cancelled call (Stop, the backend's cancel, the
 * prompt timeout) removes it from the chat at once, and a late click on it is ignored. An answer
 * counts only for the prompt shown, by its id and the digest of its card's text
 * (src/core/consent/shownPrompt.ts). While the chat is hidden, a notification (once per prompt) and
 * the status bar lead to it.
 */
import * as vscode from 'vscode';
import type { ConsentSurface } from '../../core/consent/consentText';
import type { PermissionPrompt, PermissionReply, PromptPresenter } from '../../core/consent/presenter';
import { chatApprovalOf, ShownPrompt } from '../../core/consent/shownPrompt';
import { safe, uiText } from '../../core/uiText';
import type { ChatViewProvider } from '../chat/chatView';
import { Views } from '../ids';
import * as ui from '../ui';

const OPEN_CHAT = safe`Open Chat`;

export class ChatPromptPresenter implements PromptPresenter, vscode.Disposable {
  private readonly shown = new ShownPrompt();
  /** The prompt a "waits in the chat" notification was shown for. */
  private notified: string | undefined;
  private readonly disposables: vscode.Disposable[];

  constructor(
    private readonly chat: ChatViewProvider,
    private readonly log: Pick<vscode.LogOutputChannel, 'warn'>,
  ) {
    this.disposables = [
      chat.onDidAnswerApproval((m) => {
        const verdict = this.shown.answer(m.promptId, m.digest, m.answer, m.reason, m.edited);
        // A click on a prompt withdrawn meanwhile, a card restored from an old state, a button it never had.
        if (verdict !== 'accepted') this.log.warn(`Chat: ignored an answer (${m.answer}) to a permission prompt: ${verdict}`);
      }),
      chat.onDidChangeVisibility((visible) => {
        if (!visible) this.notifyHidden();
      }),
    ];
    const changes = this.shown.onDidChange(() => {
      const current = this.shown.current;
      this.chat.setApproval(current ? chatApprovalOf(current) : null);
    });
    this.disposables.push({ dispose: () => changes.dispose() });
  }

  /** Whether a prompt waits for an answer in the chat. */
  get isOpen(): boolean {
    return this.shown.isOpen;
  }

  consentSurface(): ConsentSurface {
    return 'chat';
  }

  /** Shows `prompt` on the chat's card and resolves with the user's answer, or undefined once `signal` aborts. */
  confirm(prompt: PermissionPrompt, signal: AbortSignal): Promise<PermissionReply | undefined> {
    const answered = this.shown.show(prompt, signal);
    this.notifyHidden();
    return answered;
  }

  /**
   * The chat is hidden while a prompt waits: say so once per prompt, in a notification that does
   * not take the keyboard, with a button that opens the chat.
   */
  private notifyHidden(): void {
    const prompt = this.shown.current;
    if (this.chat.visible || !prompt || this.notified === prompt.promptId) return;
    this.notified = prompt.promptId;
    void ui.showWarning(safe`Client Tools: ${uiText(prompt.toolName)} waits for your permission in the chat: ${uiText(prompt.message)}`, OPEN_CHAT).then((choice) => {
      if (choice === OPEN_CHAT) void vscode.commands.executeCommand(`${Views.chat}.focus`);
    });
  }

  /** Withdraws the prompt shown (as dismissed: deny). */
  dispose(): void {
    this.shown.dispose();
    for (const d of this.disposables) d.dispose();
  }
}
