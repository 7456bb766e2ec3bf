export type LogLevel = 'debug' | 'info' | 'warn' | 'error';

/** Where the backend writes its diagnostics. Tokens and API keys never reach it. */
export type Logger = (level: LogLevel, message: string) => void;

export const silentLogger: Logger = () => undefined;

/** A logger for a terminal: one line per entry on stderr (stdout is reserved for the ready line). */
export function stderrLogger(minimum: LogLevel = 'info'): Logger {
  const order: LogLevel[] = ['debug', 'info', 'warn', 'error'];
  const floor = order.indexOf(minimum);
  return (level, message) => {
    if (order.indexOf(level) >= floor) process.stderr.write(`[${new Date().toISOString()}] ${level.toUpperCase()} ${message}\n`);
  };
}
