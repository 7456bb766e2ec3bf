/**
 * What core code logs through. `src/vscode` adapts a `LogOutputChannel` to it.
 *
 * Fields carry tool names, request ids, outcomes, codes and durations. Never put a token, a file's
 * contents, tool arguments or result bodies in a message or a field.
 */
export type LogFields = Record<string, string | number | boolean | undefined>;

export interface Logger {
  info(message: string, fields?: LogFields): void;
  warn(message: string, fields?: LogFields): void;
  error(message: string, fields?: LogFields): void;
}

export const silentLogger: Logger = {
  info() {},
  warn() {},
  error() {},
};
