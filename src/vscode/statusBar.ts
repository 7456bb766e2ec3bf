import * as vscode from 'vscode';
import { Commands } from './ids';

export type StatusState =
  | { kind: 'idle' }
  | { kind: 'connecting'; target: string }
  | { kind: 'connected'; target: string; model: string; offline: boolean }
  | { kind: 'reconnecting'; target: string; attempt: number; reason?: string }
  | { kind: 'stopped'; reason: string };

/** One status bar item: connection state, plus "awaiting permission" while a prompt is open. */
export class StatusBar implements vscode.Disposable {
  private readonly item = vscode.window.createStatusBarItem('clientTools.status', vscode.StatusBarAlignment.Right, 100);
  private state: StatusState = { kind: 'idle' };
  private awaitingPermission = 0;

  constructor() {
    this.item.name = 'Client Tools';
    this.item.command = Commands.statusBarActions;
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
    this.item.backgroundColor = undefined;
    if (this.awaitingPermission > 0) {
      this.item.text = '$(shield) Client Tools: awaiting permission';
      this.item.tooltip = 'An agent asks to run a tool. Answer the prompt in the editor.';
      this.item.backgroundColor = new vscode.ThemeColor('statusBarItem.warningBackground');
      return;
    }
    switch (s.kind) {
      case 'idle':
        this.item.text = '$(plug) Client Tools';
        this.item.tooltip = 'Not connected. Click for actions.';
        break;
      case 'connecting':
        this.item.text = '$(sync~spin) Client Tools: connecting';
        this.item.tooltip = `Connecting to ${s.target}`;
        break;
      case 'connected':
        this.item.text = s.offline ? '$(check) Client Tools: offline demo' : '$(check) Client Tools';
        this.item.tooltip = s.offline
          ? `Connected to ${s.target} with the offline demo model. Set a model in settings (clientTools.model.*) to use a real one.`
          : `Connected to ${s.target} (model ${s.model})`;
        break;
      case 'reconnecting':
        this.item.text = '$(sync~spin) Client Tools: reconnecting';
        this.item.tooltip = `Lost ${s.target}${s.reason ? ` (${s.reason})` : ''}; attempt ${s.attempt}`;
        this.item.backgroundColor = new vscode.ThemeColor('statusBarItem.warningBackground');
        break;
      case 'stopped':
        this.item.text = '$(debug-disconnect) Client Tools: disconnected';
        this.item.tooltip = `${s.reason} Click to retry.`;
        this.item.backgroundColor = new vscode.ThemeColor('statusBarItem.errorBackground');
        break;
    }
  }

  dispose(): void {
    this.item.dispose();
  }
}
