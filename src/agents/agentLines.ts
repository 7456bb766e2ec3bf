/**
 * The agent's stdout as the ACP SDK reads it: split into lines here (each bounded in bytes), each
 * line's JSON structure checked before the SDK parses it, and handed on one line at a time with a
 * turn of the event loop whenever a slice of time has passed. The SDK parses, checks against ACP's
 * schema and dispatches every message it has read in microtasks without yielding, and its schema
 * check of an object of 100,000 members takes seconds: both would hold the loop (in the editor, the
 * extension host every extension shares). A line over the structure limits never reaches the SDK:
 * a request of the agent's is answered with an error (MESSAGE_TOO_LARGE), an answer to a request of
 * ours becomes an error answer that fails that request with the same code, anything else is dropped
 * (logged once per connection).
 */
import * as acp from '@agentclientprotocol/sdk';
import { ErrorCode, jsonStructureProblem, topLevelValues, type JsonStructureLimits } from '../protocol';
import { nextTurn } from '../base/nextTurn';
import type { Logger } from '../base/logger';

/** What one message of the agent's may hold: 100,000 values (a plan of 25,000 entries; ACP's SDK parses and schema-checks a message without yielding, some 0.3-0.5 ms per 1,000 values here, so a line of 700,000 values held the loop 200-370 ms), 10,000 members in one object. */
export const AGENT_STRUCTURE_LIMITS: JsonStructureLimits = { maxValues: 100_000, maxMembers: 10_000 };
/** Work on the agent's messages between turns of the event loop. */
export const READ_SLICE_MS = 10;
/** JSON-RPC's code for an invalid request, with the editor's code in `data.code`. */
const INVALID_REQUEST = -32600;
const NEWLINE = 0x0a;
const encoder = new TextEncoder();
const EMPTY = new Uint8Array(0);

export interface AgentLinesOptions {
  agentName: string;
  maxMessageBytes: number;
  logger: Logger;
  /** Writes one whole line to the agent (an answer to a refused request). */
  send(line: Uint8Array): void;
  /** Marks the error answers made here (in `data.refused`), so the connection knows them from the agent's own. */
  refusalMark: string;
  structure?: JsonStructureLimits;
  sliceMs?: number;
}

/** The lines of `source` the SDK may read, paced (see the header). */
export function agentLines(source: ReadableStream<Uint8Array>, options: AgentLinesOptions): ReadableStream<Uint8Array> {
  const reader = source.getReader();
  const splitter = new LineSplitter(options.maxMessageBytes);
  const decoder = new TextDecoder();
  let ready: Uint8Array[] = [];
  let next = 0;
  let ended = false;
  let refusals = 0;
  let turned = performance.now();
  const sliceMs = options.sliceMs ?? READ_SLICE_MS;

  /** The line to hand on for `line`, or undefined when it is dropped. */
  const check = (line: Uint8Array): Uint8Array | undefined => {
    const text = decoder.decode(line);
    const problem = jsonStructureProblem(text, options.structure ?? AGENT_STRUCTURE_LIMITS);
    if (!problem) return line;
    if (refusals++ === 0) options.logger.warn('agent message refused', { agent: options.agentName, reason: problem });
    const [id, method] = topLevelValues(text, ['id', 'method']);
    const validId = typeof id === 'string' || typeof id === 'number';
    if (validId && typeof method === 'string') {
      // Without the mark: the agent must not learn it (it could then pass its own errors off as refusals made here).
      options.send(errorLine(id, `${method.slice(0, 100)} refused: ${problem}`));
      return undefined;
    }
    if (validId && method === undefined) return errorLine(id, problem, options.refusalMark);
    return undefined;
  };

  return new ReadableStream<Uint8Array>({
    async pull(controller) {
      // Until one line is handed on (a pull that enqueues nothing is not called again) or the end.
      for (;;) {
        if (performance.now() - turned >= sliceMs) {
          await nextTurn();
          turned = performance.now();
        }
        while (next === ready.length && !ended) {
          ready = [];
          next = 0;
          const { value, done } = await reader.read();
          if (done) {
            ended = true;
            const last = splitter.flush();
            if (last) ready.push(last);
          } else {
            // Throws (the SDK's MessageTooLargeError, which ends the connection) for a line over the byte limit.
            ready = splitter.push(value);
          }
        }
        if (next === ready.length) break;
        const raw = ready[next];
        // Not kept past its turn: a refused line can be megabytes, and the array lives until the next read.
        ready[next++] = EMPTY;
        const line = check(raw);
        if (line) {
          controller.enqueue(line);
          return;
        }
      }
      if (ended) controller.close();
    },
    cancel: (reason) => reader.cancel(reason),
  }, { highWaterMark: 0 });
}

/** A JSON-RPC error answer to `id`, as a line; `refusalMark` only on one the connection reads itself. */
function errorLine(id: string | number, message: string, refusalMark?: string): Uint8Array {
  const error = { code: INVALID_REQUEST, message, data: { code: ErrorCode.MessageTooLarge, ...(refusalMark !== undefined ? { refused: refusalMark } : {}) } };
  return encoder.encode(`${JSON.stringify({ jsonrpc: '2.0', id, error })}\n`);
}

/** Whether `e` is an error answer made here for a refused answer. */
export function isRefusal(e: unknown, refusalMark: string): e is acp.RequestError {
  return e instanceof acp.RequestError && (e.data as { refused?: unknown } | undefined)?.refused === refusalMark;
}

/** Lines of a byte stream, each with its newline, none longer than `maxBytes` and its CRLF (the SDK's error past that; the SDK checks the exact limit again). */
class LineSplitter {
  private pending: Uint8Array[] = [];
  private pendingBytes = 0;

  constructor(private readonly maxBytes: number) {}

  push(chunk: Uint8Array): Uint8Array[] {
    const lines: Uint8Array[] = [];
    let start = 0;
    for (let nl = chunk.indexOf(NEWLINE); nl !== -1; nl = chunk.indexOf(NEWLINE, start)) {
      lines.push(this.take(chunk.subarray(start, nl + 1)));
      start = nl + 1;
    }
    if (start < chunk.length) this.keep(chunk.subarray(start));
    return lines;
  }

  flush(): Uint8Array | undefined {
    return this.pendingBytes > 0 ? this.take(new Uint8Array(0)) : undefined;
  }

  private keep(part: Uint8Array): void {
    this.pendingBytes += part.length;
    if (this.pendingBytes > this.maxBytes + 2) {
      this.pending = [];
      this.pendingBytes = 0;
      throw new acp.MessageTooLargeError(this.maxBytes);
    }
    this.pending.push(part);
  }

  private take(tail: Uint8Array): Uint8Array {
    if (this.pendingBytes === 0) {
      if (tail.length > this.maxBytes + 2) throw new acp.MessageTooLargeError(this.maxBytes);
      return tail;
    }
    this.keep(tail);
    const line = new Uint8Array(this.pendingBytes);
    let at = 0;
    for (const part of this.pending) {
      line.set(part, at);
      at += part.length;
    }
    this.pending = [];
    this.pendingBytes = 0;
    return line;
  }
}
