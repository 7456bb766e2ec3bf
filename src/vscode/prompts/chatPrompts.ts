/**
 * Permission prompts answered in the chat (`clientTools.permissions.promptStyle: chat`, the
 * default) instead of a modal: the chat shows the prompt's texts whole with Allow, the scoped
 * Allow choices and Deny with an optional reason; nothing takes the keyboard from the editor.
 *
 * Unlike a modal, the prompt can be taken back: a cancelled call (Stop, the backend's cancel, the
 * prompt timeout) removes it from the chat at once, and a late click on it is ignored. An answer
 * counts only for the prompt that is open, by the id the permission gate minted for it and the
 * digest of the text its card showed (src/core/consent/shownPrompt.ts). While the chat is hidden, a
 * notification (once per prompt) and the status bar lead to it.
 */
import * as vscode from 'vscode';
import type { PermissionPrompt, PermissionReply } from '../../core/host';
import { chatApprovalOf, OpenPrompts } from '../../core/consent/shownPrompt';
import { safe, uiText } from '../../core/uiText';
import type { ChatViewProvider } from '../chat/chatView';
import { Views } from '../ids';
import * as ui from '../ui';

const OPEN_CHAT = safe`Open Chat`;

export class ChatPrompts implements vscode.Disposable {
  private readonly open = new OpenPrompts();
  /** Prompts a "waits in the chat" notification was shown for. */
  private readonly notified = new Set<string>();
  private readonly disposables: vscode.Disposable[];

  constructor(
    private readonly chat: ChatViewProvider,
    private readonly log: Pick<vscode.LogOutputChannel, 'warn'>,
  ) {
    this.disposables = [
      chat.onDidAnswerApproval((m) => {
        const verdict = this.open.answer(m.promptId, m.digest, m.answer, m.reason);
        // A click on a prompt withdrawn meanwhile, a card restored from an old state, a button it never had.
        if (verdict !== 'accepted') this.log.warn(`Chat: ignored an answer (${m.answer}) to a permission prompt: ${verdict}`);
      }),
      chat.onDidChangeVisibility((visible) => {
        if (!visible) this.notifyHidden();
      }),
    ];
    const changes = this.open.onDidChange(() => this.show());
    this.disposables.push({ dispose: () => changes.dispose() });
  }

  /** Whether a prompt waits for an answer in the chat. */
  get isOpen(): boolean {
    return this.open.size > 0;
  }

  /**
   * Shows `prompt` in the chat with the gate's texts, measured for the chat (src/core/consent/consentText.ts),
   * and resolves with the user's answer, or undefined once `signal` aborts.
   */
  ask(prompt: PermissionPrompt, signal: AbortSignal): Promise<PermissionReply | undefined> {
    const answered = this.open.add(prompt, signal);
    this.notifyHidden();
    return answered.finally(() => this.notified.delete(prompt.promptId));
  }

  private show(): void {
    const first = this.open.first();
    this.chat.setApproval(first ? chatApprovalOf(first) : null);
  }

  /**
   * The chat is hidden while a prompt waits: say so once per prompt, in a notification that does
   * not take the keyboard, with a button that opens the chat.
   */
  private notifyHidden(): void {
    if (this.chat.visible) return;
    for (const prompt of this.open.prompts()) {
      if (this.notified.has(prompt.promptId)) continue;
      this.notified.add(prompt.promptId);
      void ui.showWarning(safe`Client Tools: ${uiText(prompt.toolName)} waits for your permission in the chat: ${uiText(prompt.message)}`, OPEN_CHAT).then((choice) => {
        if (choice === OPEN_CHAT) void vscode.commands.executeCommand(`${Views.chat}.focus`);
      });
    }
  }

  /** Withdraws every open prompt (as dismissed: deny). */
  dispose(): void {
    this.open.dispose();
    for (const d of this.disposables) d.dispose();
  }
}

