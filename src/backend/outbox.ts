/**
 * What a detached session keeps for its client until it resumes: at most MAX_MESSAGES messages and
 * about MAX_BYTES of them, the oldest dropped first. Runs go on while the client is away, and a
 * model endpoint chooses how much text each chunk carries: counting messages alone let a few
 * thousand huge text chunks pile up gigabytes.
 */
import type { ServerToClient } from '../protocol';

const MAX_MESSAGES = 10_000;
const MAX_BYTES = 16 * 1024 * 1024;
/** What a message without large fields is counted as (ids, names, codes). */
const BASE_BYTES = 256;

export class Outbox {
  private messages: { message: ServerToClient; bytes: number }[] = [];
  private bytes = 0;
  /** Messages dropped since the last `take()`. */
  dropped = 0;

  push(message: ServerToClient): void {
    const bytes = approximateSize(message);
    this.messages.push({ message, bytes });
    this.bytes += bytes;
    while (this.messages.length > 1 && (this.messages.length > MAX_MESSAGES || this.bytes > MAX_BYTES)) {
      this.bytes -= this.messages.shift()!.bytes;
      this.dropped++;
    }
  }

  /** Everything kept, oldest first, and empties the box (the dropped count stays until read). */
  take(): ServerToClient[] {
    const out = this.messages.map((m) => m.message);
    this.messages = [];
    this.bytes = 0;
    return out;
  }

  clear(): void {
    this.messages = [];
    this.bytes = 0;
  }
}

/** A message's size for the cap: its texts and binary content, without printing it. */
function approximateSize(m: ServerToClient): number {
  let n = BASE_BYTES;
  const fields = m as Record<string, unknown>;
  for (const key of ['text', 'message', 'errorMessage', 'details'] as const) {
    const v = fields[key];
    if (typeof v === 'string') n += v.length;
  }
  const content = fields.content;
  if (Array.isArray(content)) {
    for (const c of content as { type?: string; text?: string; bytes?: Uint8Array }[]) {
      n += c.type === 'text' ? (c.text?.length ?? 0) : c.type === 'binary' ? (c.bytes?.byteLength ?? 0) : 1024;
    }
  }
  return n;
}
