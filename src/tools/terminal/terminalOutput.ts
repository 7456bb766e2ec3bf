/** Terminal output for the model: escape sequences removed, and capped by keeping its start and end. */
import type { RunCommandResult } from '../../core/host';

/**
 * Keeps the first and the last part of a stream once it grows past `maxChars` (a quarter from the
 * start, the rest from the end, where errors and summaries usually are). Memory stays bounded
 * however much is appended.
 */
export class OutputCapture {
  private head = '';
  private tail = '';
  private dropped = 0;
  private readonly headMax: number;
  private readonly tailMax: number;

  constructor(readonly maxChars: number) {
    this.headMax = Math.floor(maxChars / 4);
    this.tailMax = maxChars - this.headMax;
  }

  append(chunk: string): void {
    if (this.head.length < this.headMax) {
      const take = chunk.slice(0, this.headMax - this.head.length);
      this.head += take;
      chunk = chunk.slice(take.length);
    }
    if (chunk === '') return;
    this.tail += chunk;
    if (this.tail.length > this.tailMax) {
      const cut = this.tail.length - this.tailMax;
      this.dropped += cut;
      this.tail = this.tail.slice(cut);
    }
  }

  get truncated(): boolean {
    return this.dropped > 0;
  }

  text(): string {
    return this.dropped > 0 ? `${this.head}\n[… ${this.dropped} characters of output omitted …]\n${this.tail}` : this.head + this.tail;
  }
}

/**
 * What a finished command tells the model, as RunInTerminal and RunTask return it: the exit code
 * (null when it was stopped or killed), whether the time limit ended it, and its output as plain
 * text, start and end kept past `maxChars`.
 */
export function commandOutcome(result: RunCommandResult, maxChars: number): { exitCode: number | null; timedOut: boolean; output: string; outputTruncated?: true } {
  const output = capMiddle(terminalText(result.output).replace(/\n+$/, ''), maxChars);
  return {
    exitCode: result.exitCode ?? null,
    timedOut: result.timedOut,
    output: output.text,
    ...(output.truncated || result.truncated ? { outputTruncated: true as const } : {}),
  };
}

/** `capMiddle` in one call: at most `maxChars` of `text`, start and end kept. */
export function capMiddle(text: string, maxChars: number): { text: string; truncated: boolean } {
  if (text.length <= maxChars) return { text, truncated: false };
  const capture = new OutputCapture(maxChars);
  capture.append(text);
  return { text: capture.text(), truncated: true };
}

/**
 * Plain text from raw terminal output: removes OSC (shell integration marks, titles), CSI (colours,
 * cursor moves) and other escape sequences, turns CRLF into LF, keeps only what a carriage return
 * left visible on a line (progress bars), and drops other control characters.
 */
export function terminalText(raw: string): string {
  const withoutEscapes = raw
    .replace(/\u001b\][^\u0007\u001b]*(?:\u0007|\u001b\\)?/g, '')
    .replace(/\u001b\[[0-?]*[ -/]*[@-~]/g, '')
    .replace(/\u001b[P^_][^\u001b]*(?:\u001b\\)?/g, '')
    .replace(/\u001b[@-Z\\-_]|\u001b[()][0-9A-Za-z]/g, '')
    .replace(/\r\n/g, '\n');
  return withoutEscapes
    .split('\n')
    .map((line) => {
      const segments = line.split('\r');
      let visible = segments[0];
      for (const s of segments.slice(1)) visible = s + visible.slice(s.length);
      return visible;
    })
    .join('\n')
    .replace(/[\u0000-\u0008\u000b-\u001f\u007f]/g, '');
}
