/**
 * The backend's side of the project's one `Logger` (src/base/logger.ts). Embedding programs may still
 * pass the shape the backend took before, a `(level, message)` function; `toLogger` adapts it.
 *
 * Log lines carry text peers chose (an endpoint's error message, a tool's failure, a thread id), so
 * every line the backend writes is cut to LOG_LINE_CHARS characters, and every field value too.
 */
import { lineLogger, type LogFields, type Logger, type LogLevel } from '../base/logger';

export type { LogFields, Logger, LogLevel } from '../base/logger';
export { silentLogger, stderrLogger } from '../base/logger';

/** The earlier logger shape: one function taking the level and the line (fields already appended). */
export type LogFunction = (level: LogLevel, message: string) => void;

/** The longest message or field value the backend logs; the rest is cut with a note of its length. */
export const LOG_LINE_CHARS = 4_000;

/** A `Logger` either way it was given. */
export function toLogger(log: Logger | LogFunction): Logger {
  return typeof log === 'function' ? lineLogger(log) : log;
}

/** `log` with every message and string field cut to LOG_LINE_CHARS. */
export function boundedLogger(log: Logger): Logger {
  const at = (write: ((message: string, fields?: LogFields) => void) | undefined) =>
    write && ((message: string, fields?: LogFields) => write.call(log, cut(message), fields && cutFields(fields)));
  const debug = at(log.debug);
  return { ...(debug ? { debug } : {}), info: at(log.info)!, warn: at(log.warn)!, error: at(log.error)! };
}

function cut(text: string): string {
  return text.length <= LOG_LINE_CHARS ? text : `${text.slice(0, LOG_LINE_CHARS)}… (${text.length - LOG_LINE_CHARS} more characters)`;
}

function cutFields(fields: LogFields): LogFields {
  const out: LogFields = {};
  for (const [key, value] of Object.entries(fields)) out[key.slice(0, 100)] = typeof value === 'string' ? cut(value) : value;
  return out;
}
