import type * as vscode from 'vscode';
import type { LogFields, Logger } from '../core/logger';

/** Adapts the extension's `LogOutputChannel` to core's `Logger`, fields as `key=value`. */
export function channelLogger(channel: vscode.LogOutputChannel): Logger {
  const fmt = (message: string, fields?: LogFields) => {
    if (!fields) return message;
    const parts = Object.entries(fields)
      .filter(([, v]) => v !== undefined)
      .map(([k, v]) => `${k}=${typeof v === 'string' && /\s/.test(v) ? JSON.stringify(v) : String(v)}`);
    return parts.length ? `${message} ${parts.join(' ')}` : message;
  };
  return {
    info: (m, f) => channel.info(fmt(m, f)),
    warn: (m, f) => channel.warn(fmt(m, f)),
    error: (m, f) => channel.error(fmt(m, f)),
  };
}
