/**
 * The one logging shape of the project: the extension's core logs through it (src/vscode adapts a
 * `LogOutputChannel` to it) and so does the backend (its CLI writes it to stderr). Adapters are
 * thin: each only decides where a line goes and how fields are written.
 *
 * Fields carry tool names, request ids, outcomes, codes and durations. Never put a token, a file's
 * contents, tool arguments or result bodies in a message or a field.
 */
export type LogLevel = 'debug' | 'info' | 'warn' | 'error';

export type LogFields = Record<string, string | number | boolean | undefined>;

export interface Logger {
  /** Optional: a logger without it drops debug lines (the extension's core writes none). */
  debug?(message: string, fields?: LogFields): void;
  info(message: string, fields?: LogFields): void;
  warn(message: string, fields?: LogFields): void;
  error(message: string, fields?: LogFields): void;
}

export const LOG_LEVELS: readonly LogLevel[] = ['debug', 'info', 'warn', 'error'];

export const silentLogger: Logger = {
  debug() {},
  info() {},
  warn() {},
  error() {},
};

/** Writes a line at `level`; a logger without `debug` drops debug lines. */
export function logAt(logger: Logger, level: LogLevel, message: string, fields?: LogFields): void {
  logger[level]?.(message, fields);
}

/** A message with its fields appended as `key=value` (values with spaces quoted); undefined fields are left out. */
export function formatLine(message: string, fields?: LogFields): string {
  if (!fields) return message;
  const parts = Object.entries(fields)
    .filter(([, v]) => v !== undefined)
    .map(([k, v]) => `${k}=${typeof v === 'string' && /\s/.test(v) ? JSON.stringify(v) : String(v)}`);
  return parts.length ? `${message} ${parts.join(' ')}` : message;
}

/** A logger that passes each line at or above `minimum` to `write(level, line)`, fields formatted. */
export function lineLogger(write: (level: LogLevel, line: string) => void, minimum: LogLevel = 'debug'): Logger {
  const floor = LOG_LEVELS.indexOf(minimum);
  const at = (level: LogLevel) => (message: string, fields?: LogFields) => {
    if (LOG_LEVELS.indexOf(level) >= floor) write(level, formatLine(message, fields));
  };
  return { debug: at('debug'), info: at('info'), warn: at('warn'), error: at('error') };
}

/** One line per entry on stderr, timestamped (a backend's stdout is reserved for its ready line). */
export function stderrLogger(minimum: LogLevel = 'info'): Logger {
  return lineLogger((level, line) => void process.stderr.write(`[${new Date().toISOString()}] ${level.toUpperCase()} ${line}\n`), minimum);
}
