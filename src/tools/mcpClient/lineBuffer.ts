/**
 * The stdio transport's read buffer, in linear time, with a structure check before each message is
 * parsed. The SDK's own (`ReadBuffer`) joins every chunk onto all it holds and searches the whole
 * again from its start, so one 32 MiB line arriving in 64 KiB chunks was some 8 GiB of copying and
 * searching on the extension host's thread. Here chunks are kept as they come, only the new chunk
 * is searched for the end of the line, and a line is joined once. A line past the structure limits
 * (jsonStructure.ts) is dropped unparsed, as the SDK drops a line that is not JSON-RPC: the
 * transport reports it as an error and reads on.
 */
import type { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { deserializeMessage } from '@modelcontextprotocol/sdk/shared/stdio.js';
import type { JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';
import { jsonStructureProblem, MCP_STRUCTURE_LIMITS, type JsonStructureLimits } from '../../protocol';

const NEWLINE = 0x0a;

export class LineBuffer {
  private chunks: Buffer[] = [];
  private held = 0;
  /** Bytes at the start of what is held known to hold no newline. */
  private searched = 0;

  constructor(private readonly maxBytes: number, private readonly limits: JsonStructureLimits = MCP_STRUCTURE_LIMITS) {}

  append(chunk: Buffer): void {
    if (this.held + chunk.length > this.maxBytes) {
      this.clear();
      throw new Error(`ReadBuffer exceeded maximum size of ${this.maxBytes} bytes`);
    }
    this.chunks.push(chunk);
    this.held += chunk.length;
  }

  /** The next message, or null when no whole line is held. Throws for a line that is not a JSON-RPC message; the line is gone then. */
  readMessage(): JSONRPCMessage | null {
    const end = this.newline();
    if (end < 0) return null;
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

/** Puts a LineBuffer in the SDK transport's place for its own (a private field; test/unit/tools/mcpServers/lineBuffer.test.ts fails if the SDK renames it). */
export function useLineBuffer(transport: StdioClientTransport, maxBytes: number): void {
  (transport as unknown as { _readBuffer: unknown })._readBuffer = new LineBuffer(maxBytes);
}
