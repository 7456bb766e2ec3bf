/**
 * An MCP server's stderr for the log: split into lines, each line cut at MAX_LINE_CHARS, at most
 * MAX_LINES_PER_MINUTE lines a minute (then one line saying how many were left out), and a partial
 * line held at most MAX_LINE_CHARS. A chatty or hostile server cannot flood the log or our memory.
 */
export const MAX_LINE_CHARS = 1000;
export const MAX_LINES_PER_MINUTE = 200;

export class StderrLines {
  private partial = '';
  private windowStart = 0;
  private inWindow = 0;
  private dropped = 0;

  constructor(
    private readonly write: (line: string) => void,
    private readonly now: () => number = Date.now,
  ) {}

  push(chunk: Buffer | string): void {
    const text = this.partial + (typeof chunk === 'string' ? chunk : chunk.toString('utf8'));
    const lines = text.split(/\r?\n/);
    this.partial = (lines.pop() ?? '').slice(0, MAX_LINE_CHARS);
    for (const line of lines) this.emit(line);
  }

  private emit(line: string): void {
    const now = this.now();
    if (now - this.windowStart >= 60_000) {
      if (this.dropped > 0) this.write(`(${this.dropped} more lines of stderr left out)`);
      this.windowStart = now;
      this.inWindow = 0;
      this.dropped = 0;
    }
    if (this.inWindow >= MAX_LINES_PER_MINUTE) {
      this.dropped++;
      return;
    }
    this.inWindow++;
    // Control characters other than tab shown as '?': escape sequences must not restyle the log.
    const clean = line.replace(/[\u0000-\u0008\u000b-\u001f\u007f]/g, '?');
    this.write(clean.length > MAX_LINE_CHARS ? `${clean.slice(0, MAX_LINE_CHARS)}…` : clean);
  }
}
