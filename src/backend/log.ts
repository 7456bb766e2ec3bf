/**
 * The backend's side of the project's one `Logger` (src/base/logger.ts). Embedding programs may still
 * pass the shape the backend took before, a `(level, message)` function; `toLogger` adapts it.
 */
import { lineLogger, type Logger, type LogLevel } from '../base/logger';

export type { LogFields, Logger, LogLevel } from '../base/logger';
export { silentLogger, stderrLogger } from '../base/logger';

/** The earlier logger shape: one function taking the level and the line (fields already appended). */
export type LogFunction = (level: LogLevel, message: string) => void;

/** A `Logger` either way it was given. */
export function toLogger(log: Logger | LogFunction): Logger {
  return typeof log === 'function' ? lineLogger(log) : log;
}
