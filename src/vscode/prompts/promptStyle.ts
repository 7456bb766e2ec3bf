/**
 * The presenter the extension wires into the consent module: the chat's card or the modal, as
 * `clientTools.permissions.promptStyle` says when each prompt is measured. A prompt measured for the
 * chat is never shown in the smaller modal instead. It also says when a prompt is on screen (the
 * status bar's "awaiting permission").
 */
import * as vscode from 'vscode';
import type { ConsentSurface } from '../../core/consent/consentText';
import type { PermissionAnswer, PermissionPrompt, PermissionReply, PromptPresenter } from '../../core/consent/presenter';

export class PromptStyleSwitch implements PromptPresenter, vscode.Disposable {
  private readonly promptEmitter = new vscode.EventEmitter<{ open: boolean; prompt: PermissionPrompt }>();
  /** Fires when a prompt opens and when it closes (answered, dismissed or cancelled). */
  readonly onDidChangePrompt = this.promptEmitter.event;

  constructor(
    private readonly presenters: Readonly<Record<ConsentSurface, PromptPresenter>>,
    private readonly style: () => ConsentSurface,
  ) {}

  consentSurface(): ConsentSurface {
    return this.style();
  }

  confirm(prompt: PermissionPrompt, signal: AbortSignal): Promise<PermissionAnswer | PermissionReply | undefined> {
    if (signal.aborted) return Promise.resolve(undefined);
    this.promptEmitter.fire({ open: true, prompt });
    return this.presenters[prompt.surface].confirm(prompt, signal).finally(() => this.promptEmitter.fire({ open: false, prompt }));
  }

  dispose(): void {
    this.promptEmitter.dispose();
  }
}
