import * as vscode from 'vscode';
import { safe, uiText } from '../core/uiText';
import { Commands } from './ids';
import * as ui from './ui';

export type StatusState =
  | { kind: 'idle' }
  | { kind: 'connecting'; target: string }
  | { kind: 'connected'; target: string; model: string; offline: boolean; /** Why the model endpoint cannot be used (the chat header says the same). */ modelUnreachable?: string }
  | { kind: 'reconnecting'; target: string; attempt: number; reason?: string }
  | { kind: 'stopped'; reason: string };

/**
 * One status bar item: connection state, plus "awaiting permission" while a prompt is open. The
 * model name, endpoint and disconnect reason come from the backend or settings: through the door.
 */
export class StatusBar implements vscode.Disposable {
  private readonly item = ui.statusBarItem('clientTools.status', 'Client Tools', Commands.statusBarActions, 100);
  private state: StatusState = { kind: 'idle' };
  private awaitingPermission = 0;

  constructor() {
    this.render();
    this.item.show();
  }

  get current(): StatusState {
    return this.state;
  }

  /** The text shown right now; the extension-host tests read it. */
  get text(): string {
    return this.item.text;
  }

  set(state: StatusState): void {
    this.state = state;
    this.render();
  }

  permissionPromptOpened(): void {
    this.awaitingPermission++;
    this.render();
  }

  permissionPromptClosed(): void {
    this.awaitingPermission = Math.max(0, this.awaitingPermission - 1);
    this.render();
  }

  private render(): void {
    const s = this.state;
    const warning = new vscode.ThemeColor('statusBarItem.warningBackground');
    if (this.awaitingPermission > 0) {
      this.item.set(safe`$(shield) Client Tools: awaiting permission`, safe`An agent asks to run a tool. Click to answer it in the chat (or in the dialog, with promptStyle "modal").`, warning);
      return;
    }
    switch (s.kind) {
      case 'idle':
        this.item.set(safe`$(plug) Client Tools`, safe`Not connected. Click for actions.`);
        break;
      case 'connecting':
        this.item.set(safe`$(sync~spin) Client Tools: connecting`, safe`Connecting to ${uiText(s.target)}`);
        break;
      case 'connected':
        if (s.modelUnreachable !== undefined && !s.offline) {
          this.item.set(safe`$(warning) Client Tools: model unreachable`, safe`Model ${uiText(s.model)}: ${uiText(s.modelUnreachable)}. Click for actions (Select Model).`, warning);
          break;
        }
        this.item.set(
          s.offline ? safe`$(check) Client Tools: offline demo` : safe`$(check) Client Tools`,
          s.offline
            ? safe`Connected to ${uiText(s.target)} with the offline demo model. Set a model in settings (clientTools.model.*) to use a real one.`
            : safe`Connected to ${uiText(s.target)} (model ${uiText(s.model)})`,
        );
        break;
      case 'reconnecting':
        this.item.set(
          safe`$(sync~spin) Client Tools: reconnecting`,
          s.reason ? safe`Lost ${uiText(s.target)} (${uiText(s.reason)}); attempt ${s.attempt}` : safe`Lost ${uiText(s.target)}; attempt ${s.attempt}`,
          warning,
        );
        break;
      case 'stopped':
        this.item.set(safe`$(debug-disconnect) Client Tools: disconnected`, safe`${uiText(s.reason)} Click to retry.`, new vscode.ThemeColor('statusBarItem.errorBackground'));
        break;
    }
  }

  dispose(): void {
    this.item.dispose();
  }
}
