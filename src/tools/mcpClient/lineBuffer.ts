/**
 * The stdio transport's read buffer, in linear time, with a size and structure check before each
 * message is parsed. The SDK's own (`ReadBuffer`) joins every chunk onto all it holds and searches
 * the whole again from its start, so one 32 MiB line arriving in 64 KiB chunks was some 8 GiB of
 * copying and searching on the extension host's thread. Here chunks are kept as they come, only the
 * new chunk is searched for the end of the line, and a line is joined once.
 *
 * Joining, decoding, parsing and checking a line happen in one turn of the event loop (the SDK
 * hands the transport's consumer whole messages), so a line is at most `maxLineBytes`: a longer one
 * is not held but skipped as it arrives, up to its newline, keeping only its first and last bytes.
 * A skipped answer whose `id` those bytes show becomes a JSON-RPC error answer to that request
 * (LINE_TOO_LONG), so the call waiting for it fails at once; any other skipped line, and a line past
 * the structure limits (jsonStructure.ts), is dropped unparsed with an error, as the SDK drops a
 * line that is not JSON-RPC: the transport reports it and reads on.
 */
import type { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { deserializeMessage } from '@modelcontextprotocol/sdk/shared/stdio.js';
import type { JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';
import { jsonStructureProblem, MCP_STRUCTURE_LIMITS, type JsonStructureLimits } from '../../protocol';

/** The JSON-RPC error code of the answer that stands for a skipped one (in the implementation-defined range). */
export const LINE_TOO_LONG = -32_090;

const NEWLINE = 0x0a;
/** Bytes kept of each end of a skipped line: enough for a top-level `"id"` first or last. */
const KEPT_END_BYTES = 256;
/** A top-level id at the start of a line (`{"id":…` or `{"jsonrpc":"2.0","id":…`), or at its end (`…,"id":…}`). */
const ID_FIRST = /^\s*\{\s*(?:"jsonrpc"\s*:\s*"2\.0"\s*,\s*)?"id"\s*:\s*(-?\d{1,15}|"[^"\\]{0,200}")\s*,/;
const ID_LAST = /[,{]\s*"id"\s*:\s*(-?\d{1,15}|"[^"\\]{0,200}")\s*\}\s*$/;

/** A line being skipped: its length so far and its two ends. */
interface Skipped {
  bytes: number;
  head: Buffer;
  tail: Buffer;
}

export class LineBuffer {
  private chunks: Buffer[] = [];
  private held = 0;
  /** Bytes at the start of what is held known to hold no newline. */
  private searched = 0;
  /** The line being skipped, while its newline has not come. */
  private skipping: Skipped | undefined;
  /** Skipped lines whose newline came, to report in order before what follows them. */
  private readonly skipped: Skipped[] = [];

  constructor(private readonly maxLineBytes: number, private readonly limits: JsonStructureLimits = MCP_STRUCTURE_LIMITS) {}

  append(chunk: Buffer): void {
    if (this.skipping) {
      const end = chunk.indexOf(NEWLINE);
      this.skipMore(this.skipping, end < 0 ? chunk : chunk.subarray(0, end));
      if (end < 0) return;
      this.skipped.push(this.skipping);
      this.skipping = undefined;
      chunk = chunk.subarray(end + 1);
    }
    this.chunks.push(chunk);
    this.held += chunk.length;
    // The line under way (everything held, when no newline is) is already too long: skip it from here.
    if (this.held > this.maxLineBytes && this.newline() < 0) {
      const skipping: Skipped = { bytes: 0, head: Buffer.alloc(0), tail: Buffer.alloc(0) };
      for (const held of this.chunks) {
        if (skipping.head.length < KEPT_END_BYTES) skipping.head = Buffer.concat([skipping.head, held.subarray(0, KEPT_END_BYTES - skipping.head.length)]);
        this.skipMore(skipping, held);
      }
      this.skipping = skipping;
      this.chunks = [];
      this.held = 0;
      this.searched = 0;
    }
  }

  /**
   * The next message, or null when no whole line is held. Throws for a line that is not a JSON-RPC
   * message or was skipped without an id; the line is gone then.
   */
  readMessage(): JSONRPCMessage | null {
    const skipped = this.skipped.shift();
    if (skipped) return answerInstead(skipped, this.maxLineBytes);
    const end = this.newline();
    if (end < 0) return null;
    if (end > this.maxLineBytes) {
      const line = this.take(end);
      return answerInstead({ bytes: line.length, head: line.subarray(0, KEPT_END_BYTES), tail: line.subarray(-KEPT_END_BYTES) }, this.maxLineBytes);
    }
    const text = this.take(end).toString('utf8');
    const line = text.endsWith('\r') ? text.slice(0, -1) : text;
    const problem = jsonStructureProblem(line, this.limits);
    if (problem) throw new Error(`a message from the MCP server was dropped unread: ${problem}`);
    return deserializeMessage(line);
  }

  clear(): void {
    this.chunks = [];
    this.held = 0;
    this.searched = 0;
    this.skipping = undefined;
    this.skipped.length = 0;
  }

  private skipMore(s: Skipped, bytes: Buffer): void {
    s.bytes += bytes.length;
    s.tail = bytes.length >= KEPT_END_BYTES ? Buffer.from(bytes.subarray(-KEPT_END_BYTES)) : Buffer.concat([s.tail, bytes]).subarray(-KEPT_END_BYTES);
  }

  /** The offset of the first newline in what is held, searching only what was not searched before; -1 when none. */
  private newline(): number {
    let offset = 0;
    for (const chunk of this.chunks) {
      if (offset + chunk.length > this.searched) {
        const at = chunk.indexOf(NEWLINE, Math.max(0, this.searched - offset));
        if (at >= 0) return offset + at;
      }
      offset += chunk.length;
    }
    this.searched = this.held;
    return -1;
  }

  /** The first `end` bytes as one buffer, and the newline after them, taken out. */
  private take(end: number): Buffer {
    const line = this.chunks.length === 1 ? this.chunks[0].subarray(0, end) : Buffer.concat(this.chunks, end + 1).subarray(0, end);
    let skip = end + 1;
    while (skip > 0) {
      const first = this.chunks[0];
      if (first.length <= skip) {
        skip -= first.length;
        this.chunks.shift();
      } else {
        this.chunks[0] = first.subarray(skip);
        skip = 0;
      }
    }
    this.held -= end + 1;
    this.searched = 0;
    return line;
  }
}

/** The error answer that takes a skipped line's place; throws when its ends show no top-level id. */
function answerInstead(s: Skipped, maxLineBytes: number): JSONRPCMessage {
  const why = `a message from the MCP server was dropped unread: it is ${s.bytes} bytes, more than the ${maxLineBytes} bytes a message may have`;
  const found = ID_FIRST.exec(s.head.toString('utf8')) ?? ID_LAST.exec(s.tail.toString('utf8').replace(/\r$/, ''));
  if (!found) throw new Error(why);
  const id = JSON.parse(found[1]) as string | number;
  return { jsonrpc: '2.0', id, error: { code: LINE_TOO_LONG, message: why } };
}

/** Puts a LineBuffer in the SDK transport's place for its own (a private field; test/unit/tools/mcpClient/lineBuffer.test.ts fails if the SDK renames it). */
export function useLineBuffer(transport: StdioClientTransport, maxLineBytes: number): void {
  (transport as unknown as { _readBuffer: unknown })._readBuffer = new LineBuffer(maxLineBytes);
}
