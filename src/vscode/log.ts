import type * as vscode from 'vscode';
import { lineLogger, type Logger } from '../base/logger';

/** Adapts the extension's `LogOutputChannel` to the project's `Logger`, fields as `key=value`. */
export function channelLogger(channel: vscode.LogOutputChannel): Logger {
  return lineLogger((level, line) => channel[level](line));
}
