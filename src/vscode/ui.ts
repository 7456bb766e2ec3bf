/**
 * The door for text into VS Code's UI, VS Code half. The ONLY module that may call
 * `window.show{Information,Warning,Error}Message`, `withProgress`, `showQuickPick`,
 * `createQuickPick`, `showInputBox`, `createTerminal`, `createStatusBarItem` or `new TreeItem`
 * (eslint.config.mjs forbids them elsewhere; test/unit/core/uiCallSites.test.ts scans src/ for them).
 * Every text parameter here is `SafeText` (src/core/uiText.ts), which only the sanitiser makes:
 *
 *   import { safe, uiText } from '../core/uiText';
 *   import * as ui from './ui';
 *   void ui.showError(safe`Client Tools: disconnected: ${uiText(reason)}`, safe`Retry`);
 *   ui.withNotificationProgress(safe`Reviewing ${uiText(path)}`, true, async (token) => { … });
 *
 * Text of our own goes through the `safe` tag; anything a backend, a file name or another extension
 * can influence goes through `uiText(…)` inside it. To route a new call: replace
 * `vscode.window.showWarningMessage(msg, …buttons)` with `ui.showWarning(<SafeText>, …<SafeText buttons>)`;
 * the chosen button comes back as the SafeText passed in, so compare against the same constants.
 * A modal shows only consent text measured to fit it whole (`FittedConsent`, src/core/consent/consentText.ts).
 */
import * as vscode from 'vscode';
import type { FittedConsent } from '../core/consent/consentText';
import type { SafeText } from '../core/uiText';

export type Severity = 'info' | 'warning' | 'error';

/** A notification toast. Resolves with the button clicked, or undefined when dismissed. */
export function notify(severity: Severity, message: SafeText, ...buttons: SafeText[]): Thenable<SafeText | undefined> {
  const show = severity === 'error' ? vscode.window.showErrorMessage : severity === 'warning' ? vscode.window.showWarningMessage : vscode.window.showInformationMessage;
  return show<SafeText>(message, ...buttons);
}

export const showInfo = (message: SafeText, ...buttons: SafeText[]) => notify('info', message, ...buttons);
export const showWarning = (message: SafeText, ...buttons: SafeText[]) => notify('warning', message, ...buttons);
export const showError = (message: SafeText, ...buttons: SafeText[]) => notify('error', message, ...buttons);

/** A modal button that carries its meaning, so two titles that read alike cannot be confused. */
export interface SafeModalItem<T> extends vscode.MessageItem {
  title: SafeText;
  value: T;
}

/**
 * A modal warning dialog whose buttons are items, showing consent text measured for the modal (the
 * dialog renders plain text: no link, no icon syntax). Resolves with the item clicked, or undefined
 * (Cancel, Escape).
 */
export function showModalItems<T>(text: FittedConsent, items: readonly SafeModalItem<T>[]): Thenable<SafeModalItem<T> | undefined> {
  if (text.surface !== 'modal') throw new Error(`consent text measured for the ${text.surface}, not the modal`);
  return vscode.window.showWarningMessage(text.message, { modal: true, detail: text.detail }, ...items);
}

/** A progress notification whose title is the message; `task` gets the cancellation token. */
export function withNotificationProgress<R>(title: SafeText, cancellable: boolean, task: (token: vscode.CancellationToken) => Thenable<R>): Thenable<R> {
  return vscode.window.withProgress({ location: vscode.ProgressLocation.Notification, title, cancellable }, (_progress, token) => task(token));
}

/** A quick pick item whose shown texts are safe; other fields (a command id, a URL) ride along. */
export interface SafeQuickPickItem extends vscode.QuickPickItem {
  label: SafeText;
  description?: SafeText;
  detail?: SafeText;
}

export function pickOne<T extends SafeQuickPickItem>(items: readonly T[], options: { title: SafeText; placeHolder?: SafeText }): Thenable<T | undefined> {
  return vscode.window.showQuickPick(items, { title: options.title, placeHolder: options.placeHolder });
}

/** A quick pick where several items can be chosen; resolves with them (empty or undefined when dismissed). */
export function pickMany<T extends SafeQuickPickItem>(items: readonly T[], options: { title: SafeText; placeHolder?: SafeText }): Thenable<T[] | undefined> {
  return vscode.window.showQuickPick(items, { title: options.title, placeHolder: options.placeHolder, canPickMany: true });
}

export interface SafeInputBoxOptions {
  title: SafeText;
  prompt?: SafeText;
  placeHolder?: SafeText;
  /** Prefilled editable value: shown in an input field, never rendered as a link or an icon. */
  value?: string;
  password?: boolean;
  ignoreFocusOut?: boolean;
}

export function askForText(options: SafeInputBoxOptions): Thenable<string | undefined> {
  return vscode.window.showInputBox({ ...options });
}

export type SafeTerminalOptions = Omit<vscode.ExtensionTerminalOptions, 'name'> & { name: SafeText };

export function openTerminal(options: SafeTerminalOptions): vscode.Terminal {
  return vscode.window.createTerminal(options);
}

/** A status bar item whose text and tooltip can only be set to safe text. */
export interface SafeStatusBarItem extends vscode.Disposable {
  /** The text shown right now. */
  readonly text: string;
  set(text: SafeText, tooltip: SafeText, background?: vscode.ThemeColor): void;
  show(): void;
}

export function statusBarItem(id: string, name: string, command: string, priority: number): SafeStatusBarItem {
  const item = vscode.window.createStatusBarItem(id, vscode.StatusBarAlignment.Right, priority);
  item.name = name;
  item.command = command;
  return {
    get text() {
      return item.text;
    },
    set(text, tooltip, background) {
      item.text = text;
      item.tooltip = tooltip;
      item.backgroundColor = background;
    },
    show: () => item.show(),
    dispose: () => item.dispose(),
  };
}

export interface SafeTreeItemParts {
  description?: SafeText;
  tooltip?: SafeText;
  id?: string;
  iconPath?: vscode.ThemeIcon;
  contextValue?: string;
}

/** A tree item whose label, description and tooltip are safe (tree labels come from other extensions' tool names). */
export function treeItem(label: SafeText, collapsible: vscode.TreeItemCollapsibleState, parts: SafeTreeItemParts = {}): vscode.TreeItem {
  const item = new vscode.TreeItem(label, collapsible);
  Object.assign(item, parts);
  return item;
}
