/**
 * Structured logs (`--log-format json`): one JSON object per line on stderr, `time`, `level`, `msg`,
 * then the line's fields, so a log shipper indexes them without parsing text. The text format stays
 * the default.
 *
 * Messages already name sessions by their label (`session #3`), never by id. As a second guard, a
 * field whose name says it holds a secret or an id that is a handle on someone's session (token,
 * secret, key, password, authorization, cookie, sessionId) is dropped here, whoever logged it.
 */
import type { LogFields, Logger, LogLevel } from '../log';
import { LOG_LEVELS } from '../../base/logger';

const WITHHELD = /token|secret|password|passwd|authorization|cookie|api_?key|session_?id/i;
/** Names the three fixed keys take; a field may not overwrite them. */
const RESERVED = new Set(['time', 'level', 'msg']);

/** A logger writing each entry at or above `minimum` as one JSON line to `write` (stderr by default). */
export function jsonLogger(minimum: LogLevel = 'info', write: (line: string) => void = (line) => void process.stderr.write(line)): Logger {
  const floor = LOG_LEVELS.indexOf(minimum);
  const at = (level: LogLevel) => (message: string, fields?: LogFields) => {
    if (LOG_LEVELS.indexOf(level) < floor) return;
    write(`${JSON.stringify({ time: new Date().toISOString(), level, msg: message, ...kept(fields) })}\n`);
  };
  return { debug: at('debug'), info: at('info'), warn: at('warn'), error: at('error') };
}

function kept(fields: LogFields | undefined): LogFields {
  const out: LogFields = {};
  if (!fields) return out;
  for (const [key, value] of Object.entries(fields)) {
    if (value === undefined || RESERVED.has(key) || WITHHELD.test(key)) continue;
    out[key] = value;
  }
  return out;
}
