/**
 * Permission prompts answered in the chat (`clientTools.permissions.promptStyle: chat`, the
 * default) instead of a modal: the chat shows the prompt's texts whole with Allow, the scoped
 * Allow choices and Deny with an optional reason; nothing takes the keyboard from the editor.
 *
 * Unlike a modal, the prompt can be taken back: a cancelled call (Stop, the backend's cancel, the
 * prompt timeout) removes it from the chat at once, and a late click on it is ignored. While the
 * chat is hidden, a notification (once per prompt) and the status bar lead to it.
 */
import * as vscode from 'vscode';
import type { PermissionAnswer, PermissionPrompt, PermissionReply } from '../core/host';
import { safe, uiText } from '../core/uiText';
import type { ChatApproval } from '../protocol/webview';
import type { ChatViewProvider } from './chatView';
import { Views } from './ids';
import * as ui from './ui';

const OPEN_CHAT = safe`Open Chat`;

interface OpenPrompt {
  approval: ChatApproval;
  /** The answers this prompt offered: anything else from the view is ignored. */
  offered: ReadonlySet<PermissionAnswer>;
  resolve: (reply: PermissionReply | undefined) => void;
  notified: boolean;
}

export class ChatPrompts implements vscode.Disposable {
  /** Open prompts by request id, oldest first; the chat shows the oldest (the gate asks one at a time). */
  private readonly open = new Map<string, OpenPrompt>();
  private readonly disposables: vscode.Disposable[];

  constructor(
    private readonly chat: ChatViewProvider,
    private readonly log: Pick<vscode.LogOutputChannel, 'warn'>,
  ) {
    this.disposables = [
      chat.onDidAnswerApproval((m) => this.answer(m.requestId, m.answer, m.reason)),
      chat.onDidChangeVisibility((visible) => {
        if (!visible) this.notifyHidden();
      }),
    ];
  }

  /** Whether a prompt waits for an answer in the chat. */
  get isOpen(): boolean {
    return this.open.size > 0;
  }

  /**
   * Shows `prompt` in the chat with the gate's texts, measured for the chat (src/core/consentText.ts),
   * and resolves with the user's answer, or undefined once `signal` aborts.
   */
  ask(prompt: PermissionPrompt, signal: AbortSignal): Promise<PermissionReply | undefined> {
    if (signal.aborted) return Promise.resolve(undefined);
    const approval: ChatApproval = {
      requestId: prompt.requestId,
      toolName: prompt.toolName,
      groupName: prompt.groupName,
      message: prompt.message,
      detail: prompt.detail,
      choices: prompt.choices.map((c) => ({ answer: c.answer, label: uiText(c.label, { maxLength: 1000 }) })),
    };
    const offered = new Set<PermissionAnswer>(['allow', 'deny', ...prompt.choices.map((c) => c.answer)]);
    return new Promise((resolve) => {
      const onAbort = () => this.close(prompt.requestId, undefined);
      signal.addEventListener('abort', onAbort, { once: true });
      this.open.set(prompt.requestId, {
        approval,
        offered,
        notified: false,
        resolve: (reply) => {
          signal.removeEventListener('abort', onAbort);
          resolve(reply);
        },
      });
      this.show();
      this.notifyHidden();
    });
  }

  private answer(requestId: string, answer: PermissionAnswer, reason: string | undefined): void {
    const prompt = this.open.get(requestId);
    if (!prompt || !prompt.offered.has(answer)) {
      // A click on a prompt that was withdrawn in the meantime, or a button it never had.
      this.log.warn(`Chat: ignored an answer (${answer}) to a permission prompt that is not open or did not offer it`);
      return;
    }
    this.close(requestId, answer === 'deny' && reason?.trim() ? { answer, reason } : { answer });
  }

  private close(requestId: string, reply: PermissionReply | undefined): void {
    const prompt = this.open.get(requestId);
    if (!prompt) return;
    this.open.delete(requestId);
    this.show();
    prompt.resolve(reply);
  }

  private show(): void {
    const first = this.open.values().next();
    this.chat.setApproval(first.done ? null : first.value.approval);
  }

  /**
   * The chat is hidden while a prompt waits: say so once per prompt, in a notification that does
   * not take the keyboard, with a button that opens the chat.
   */
  private notifyHidden(): void {
    if (this.chat.visible) return;
    for (const prompt of this.open.values()) {
      if (prompt.notified) continue;
      prompt.notified = true;
      const { toolName, message } = prompt.approval;
      void ui.showWarning(safe`Client Tools: ${uiText(toolName)} waits for your permission in the chat: ${uiText(message)}`, OPEN_CHAT).then((choice) => {
        if (choice === OPEN_CHAT) void vscode.commands.executeCommand(`${Views.chat}.focus`);
      });
    }
  }

  /** Withdraws every open prompt (as dismissed: deny). */
  dispose(): void {
    for (const id of [...this.open.keys()]) this.close(id, undefined);
    for (const d of this.disposables) d.dispose();
  }
}
