/**
 * Encoding and decoding of protocol messages.
 *
 * Text frames carry one JSON message. A message with binary content travels as one binary message
 * (one frame, or fragments of one message: where the fragments split it carries no meaning):
 *
 *   [u32 big-endian N][N bytes of UTF-8 JSON][attachment 0][attachment 1]…
 *
 * Inside the JSON each binary item says `{"type":"binary","byteLength":L,"attachment":i,…}`; the
 * attachments follow in index order, each exactly `byteLength` bytes, with nothing left over. Peers
 * may also send small binary items inline as base64 (`data`) in a text frame; both decode to
 * `bytes: Uint8Array`. Decoding never throws: it returns a typed message or a coded error.
 */
import type { z } from 'zod';
import { DEFAULT_LIMITS, MAX_CONTENT_ITEMS, PROTOCOL } from './constants';
import { ErrorCode } from './errors';
import { parseAcrossTurns } from './jsonPieces';
import { jsonStructureProblem } from './jsonStructure';
import { CLIENT_TO_SERVER_TYPES, Messages, SERVER_TO_CLIENT_TYPES } from './schemas';
import type { AnyMessage, ClientToServer, ContentItem, ServerToClient } from './types';

export interface DecodeError {
  code: ErrorCode;
  message: string;
  /** The request id of the offending message when one could be read, so the peer can fail that call. */
  relatedId?: string;
  /** The `type` field when one could be read. */
  messageType?: string;
  /**
   * A request's `callId` and `toolName` when they could be read as strings, so the receiver can
   * show which call it refused (PROTOCOL.md "Refused calls").
   */
  call?: { callId?: string; toolName?: string };
}

export type DecodeResult<T> = { ok: true; message: T } | { ok: false; error: DecodeError };

export interface EncodedFrame {
  data: string | Buffer;
  binary: boolean;
}

export type Direction = 'toServer' | 'toClient';

const TYPES: Record<Direction, ReadonlySet<string>> = {
  toServer: new Set(CLIENT_TO_SERVER_TYPES),
  toClient: new Set(SERVER_TO_CLIENT_TYPES),
};
const UNION = { toServer: Messages.ClientToServer, toClient: Messages.ServerToClient };
/** Rejects invalid UTF-8 instead of replacing it with U+FFFD; keeps a BOM so JSON.parse refuses it as before. */
const UTF8 = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true });
const HEADER_BYTES = 4;

export interface DecodeOptions {
  maxMessageBytes?: number;
  /**
   * Largest JSON text (a text frame, or a binary frame's JSON part), checked before it is decoded:
   * decoding and parsing it is one stretch of the receiver's event loop. Default: `maxMessageBytes`.
   */
  maxJsonBytes?: number;
  /**
   * Called with the parsed message (its type known) before the schema checks it, to drop parts
   * the receiver would refuse anyway, so that the validation's work follows what can be kept, not
   * what a peer sent (a backend drops the tool groups of a `hello` past a session's capacity).
   */
  beforeValidation?: (type: string, message: Record<string, unknown>) => void;
}

/**
 * What a message arrives as: a text frame's string, a frame's bytes, or the payloads of a fragmented
 * message's frames in order (ws with `binaryType: 'fragments'`), which saves joining them.
 */
export type FrameData = string | Buffer | readonly Buffer[];

export function decodeFromClient(data: FrameData, isBinary: boolean, options?: DecodeOptions): DecodeResult<ClientToServer> {
  return decode('toServer', data, isBinary, options) as DecodeResult<ClientToServer>;
}

export function decodeFromServer(data: FrameData, isBinary: boolean, options?: DecodeOptions): DecodeResult<ServerToClient> {
  return decode('toClient', data, isBinary, options) as DecodeResult<ServerToClient>;
}

export function decode(direction: Direction, data: FrameData, isBinary: boolean, options: DecodeOptions = {}): DecodeResult<AnyMessage> {
  const text = jsonOf(data, isBinary, options);
  if (!text.ok) return text;
  let raw: unknown;
  try {
    raw = JSON.parse(text.json);
  } catch (e) {
    return fail(ErrorCode.ParseError, `malformed JSON: ${(e as Error).message}`);
  }
  return decodeParsed(direction, raw, text.attachments, options);
}

/**
 * `decode` with the JSON of a message longer than PIECES_FROM characters parsed across turns of the
 * event loop (jsonPieces.ts), for a receiver that can wait for it (the backend's first message, a
 * `hello` of any size, holds the connection's other messages until it is decoded).
 */
export async function decodeAcrossTurns(direction: Direction, data: FrameData, isBinary: boolean, options: DecodeOptions = {}): Promise<DecodeResult<AnyMessage>> {
  const text = jsonOf(data, isBinary, options);
  if (!text.ok) return text;
  let raw: unknown;
  try {
    raw = text.json.length <= PIECES_FROM ? JSON.parse(text.json) : await parseAcrossTurns(text.json);
  } catch (e) {
    return fail(ErrorCode.ParseError, `malformed JSON: ${(e as Error).message}`);
  }
  return decodeParsed(direction, raw, text.attachments, options);
}

/** JSON text shorter than this is parsed in one go by `decodeAcrossTurns` too. */
const PIECES_FROM = 256 * 1024;

/** Decoding steps 1 to 4: the message's size, its binary frame, its JSON text as a string, the text's structure. */
function jsonOf(data: FrameData, isBinary: boolean, options: DecodeOptions): { ok: true; json: string; attachments: Attachments | undefined } | { ok: false; error: DecodeError } {
  const max = options.maxMessageBytes ?? DEFAULT_LIMITS.maxMessageBytes;
  const bytes = typeof data === 'string' ? undefined : new Fragments(Buffer.isBuffer(data) ? [data] : (data as readonly Buffer[]));
  const size = bytes ? bytes.length : Buffer.byteLength(data as string);
  if (size > max) return fail(ErrorCode.MessageTooLarge, `message of ${size} bytes exceeds the limit of ${max} bytes`);
  const maxJson = options.maxJsonBytes ?? max;
  const jsonTooLarge = (n: number) => fail(ErrorCode.MessageTooLarge, `the JSON of the message is ${n} bytes, more than the limit of ${maxJson} bytes`);

  let json: string;
  let attachments: Attachments | undefined;
  if (isBinary && bytes) {
    if (bytes.length < HEADER_BYTES) return fail(ErrorCode.BadBinaryFrame, 'binary frame shorter than its 4-byte header');
    const n = bytes.slice(0, HEADER_BYTES).readUInt32BE(0);
    if (n > bytes.length - HEADER_BYTES) return fail(ErrorCode.BadBinaryFrame, `binary frame header says ${n} bytes of JSON but only ${bytes.length - HEADER_BYTES} follow`);
    if (n > maxJson) return jsonTooLarge(n);
    const text = utf8(bytes.slice(HEADER_BYTES, HEADER_BYTES + n));
    if (text === undefined) return fail(ErrorCode.ParseError, 'the JSON of the binary frame is not valid UTF-8');
    json = text;
    attachments = { bytes, start: HEADER_BYTES + n };
  } else if (bytes) {
    if (size > maxJson) return jsonTooLarge(size);
    const text = utf8(bytes.slice(0, bytes.length));
    if (text === undefined) return fail(ErrorCode.ParseError, 'the message is not valid UTF-8');
    json = text;
  } else {
    if (size > maxJson) return jsonTooLarge(size);
    json = data as string;
  }

  // Before parsing: what parsing and the schema check cost grows with the values, not the bytes.
  const structure = jsonStructureProblem(json);
  if (structure) return fail(ErrorCode.MessageTooLarge, structure);
  return { ok: true, json, attachments };
}

/** Decoding steps 6 on, after the JSON was parsed: the message's shape, type, version, binary items and schema. */
function decodeParsed(direction: Direction, raw: unknown, attachments: Attachments | undefined, options: DecodeOptions): DecodeResult<AnyMessage> {
  if (typeof raw !== 'object' || raw === null || Array.isArray(raw)) return fail(ErrorCode.InvalidMessage, 'a message must be a JSON object');
  const obj = raw as Record<string, unknown>;
  const relatedId = typeof obj.requestId === 'string' ? obj.requestId.slice(0, 200) : undefined;
  const messageType = typeof obj.type === 'string' ? obj.type.slice(0, 64) : undefined;
  if (messageType === undefined) return fail(ErrorCode.InvalidMessage, 'missing field "type"', relatedId);
  const call = messageType === 'clientToolInvokeRequest' ? namedCall(obj) : undefined;
  if (!TYPES[direction].has(messageType)) return fail(ErrorCode.UnknownType, `unknown message type "${messageType}"`, relatedId, messageType);
  // A peer of another major version may change any field; report the version, not the first field that differs.
  if ((messageType === 'hello' || messageType === 'welcome') && typeof obj.protocol === 'string' && obj.protocol !== PROTOCOL) {
    return fail(ErrorCode.ProtocolMismatch, `peer speaks "${obj.protocol.slice(0, 64)}", this side speaks "${PROTOCOL}"`, relatedId, messageType);
  }

  if (Array.isArray(obj.content)) {
    // Before any attachment is sliced: the schema's own check comes after resolveBinary.
    if (obj.content.length > MAX_CONTENT_ITEMS) {
      return fail(ErrorCode.InvalidMessage, `content: at most ${MAX_CONTENT_ITEMS} items, not ${obj.content.length}`, relatedId, messageType, call);
    }
    const resolved = resolveBinary(obj.content, attachments);
    if ('code' in resolved) return fail(resolved.code, resolved.message, relatedId, messageType, call);
  } else if (attachments && attachments.bytes.length > attachments.start) {
    return fail(ErrorCode.BadBinaryFrame, 'binary frame carries attachments but the message has no content', relatedId, messageType, call);
  }

  options.beforeValidation?.(messageType, obj);
  const parsed = UNION[direction].safeParse(obj);
  if (!parsed.success) return fail(ErrorCode.InvalidMessage, describeIssue(parsed.error), relatedId, messageType, call);
  return { ok: true, message: parsed.data as AnyMessage };
}

/** A binary message's bytes across its fragments. */
class Fragments {
  readonly length: number;
  private readonly starts: number[] = [];

  constructor(private readonly parts: readonly Buffer[]) {
    let at = 0;
    for (const p of parts) {
      this.starts.push(at);
      at += p.length;
    }
    this.length = at;
  }

  /** Bytes [start, end): a view when they lie in one fragment (an attachment sent as its own frame), else a copy. */
  slice(start: number, end: number): Buffer {
    if (end <= start) return Buffer.alloc(0);
    // The last fragment that starts at or before `start` (binary search: a peer may send thousands).
    let lo = 0;
    let hi = this.parts.length - 1;
    while (lo < hi) {
      const mid = (lo + hi + 1) >> 1;
      if (this.starts[mid] <= start) lo = mid;
      else hi = mid - 1;
    }
    // Skip empty fragments that start at the same offset.
    let i = lo;
    while (this.parts[i].length === 0 && i < this.parts.length - 1) i++;
    const first = start - this.starts[i];
    if (end - this.starts[i] <= this.parts[i].length) return this.parts[i].subarray(first, end - this.starts[i]);
    const out = Buffer.allocUnsafe(end - start);
    let written = 0;
    for (let j = i; written < out.length; j++) {
      const from = j === i ? first : 0;
      const n = Math.min(this.parts[j].length - from, out.length - written);
      this.parts[j].copy(out, written, from, from + n);
      written += n;
    }
    return out;
  }
}

/** Where a binary frame's attachments start. */
interface Attachments {
  bytes: Fragments;
  start: number;
}

/** Replaces wire binary items (inline base64 or attachment index) with `bytes`, in place. */
function resolveBinary(content: unknown[], frame: Attachments | undefined): { ok: true } | DecodeError {
  const available = frame ? frame.bytes.length - frame.start : 0;
  let offset = 0;
  let nextIndex = 0;
  for (let i = 0; i < content.length; i++) {
    const item = content[i] as Record<string, unknown> | null;
    if (typeof item !== 'object' || item === null || item.type !== 'binary') continue;
    const byteLength = item.byteLength;
    if (typeof byteLength !== 'number' || !Number.isInteger(byteLength) || byteLength < 0) {
      return { code: ErrorCode.InvalidMessage, message: `content[${i}].byteLength: must be a non-negative integer` };
    }
    if (typeof item.data === 'string') {
      if (item.attachment !== undefined) return { code: ErrorCode.InvalidMessage, message: `content[${i}]: exactly one of data or attachment` };
      const bytes = Buffer.from(item.data, 'base64');
      // Re-encoding proves the text was canonical base64 (alphabet, padding, zero trailing bits). A regex
      // with a repeated group overflows V8's backtracking stack on a few megabytes and would throw.
      if (bytes.toString('base64') !== item.data) return { code: ErrorCode.BadBase64, message: `content[${i}].data: not valid base64` };
      if (bytes.length !== byteLength) return { code: ErrorCode.BadBase64, message: `content[${i}].data: decodes to ${bytes.length} bytes, byteLength says ${byteLength}` };
      content[i] = binaryItem(item, bytes);
    } else if (item.attachment !== undefined) {
      if (item.attachment !== nextIndex) return { code: ErrorCode.BadBinaryFrame, message: `content[${i}].attachment: expected index ${nextIndex}` };
      if (!frame || offset + byteLength > available) {
        return { code: ErrorCode.BadBinaryFrame, message: `content[${i}]: attachment ${nextIndex} runs past the end of the frame` };
      }
      content[i] = binaryItem(item, frame.bytes.slice(frame.start + offset, frame.start + offset + byteLength));
      offset += byteLength;
      nextIndex++;
    } else {
      return { code: ErrorCode.InvalidMessage, message: `content[${i}]: a binary item needs data or attachment` };
    }
  }
  const left = available - offset;
  if (left !== 0) return { code: ErrorCode.BadBinaryFrame, message: `${left} bytes in the binary frame belong to no attachment` };
  return { ok: true };
}

function binaryItem(item: Record<string, unknown>, bytes: Uint8Array): Record<string, unknown> {
  const out: Record<string, unknown> = { type: 'binary', mimeType: item.mimeType, bytes };
  if (item.filename !== undefined) out.filename = item.filename;
  return out;
}

/** Encodes a message; one with binary content becomes a binary frame (see the module comment). */
export function encode(message: AnyMessage): EncodedFrame {
  const encoded = encodeParts(message);
  return encoded.binary ? { data: encoded.parts.length === 1 ? encoded.parts[0] : Buffer.concat(encoded.parts), binary: true } : encoded;
}

/**
 * A message as the pieces of its frame without joining them: a text frame, or a binary frame as
 * [header and JSON, attachment 0, attachment 1, …], the attachments being views of the content's
 * own bytes. Sent as one fragmented message (see `sendEncoded` in src/net/send.ts), a large
 * attachment is never copied into a frame buffer; the bytes on the wire are the same. So the
 * content's bytes must not change after the message is handed over until it has been written.
 */
export type EncodedParts = { data: string; binary: false } | { parts: Buffer[]; binary: true };

export function encodeParts(message: AnyMessage): EncodedParts {
  const content = (message as { content?: ContentItem[] }).content;
  if (!content || !content.some((c) => c.type === 'binary')) return { data: JSON.stringify(message), binary: false };

  const parts: Buffer[] = [];
  let index = 0;
  const wireContent = content.map((c) => {
    if (c.type !== 'binary') return c;
    parts.push(Buffer.isBuffer(c.bytes) ? c.bytes : Buffer.from(c.bytes.buffer, c.bytes.byteOffset, c.bytes.byteLength));
    const w: Record<string, unknown> = { type: 'binary', mimeType: c.mimeType, byteLength: c.bytes.byteLength, attachment: index++ };
    if (c.filename !== undefined) w.filename = c.filename;
    return w;
  });
  const json = JSON.stringify({ ...message, content: wireContent });
  const jsonBytes = Buffer.byteLength(json);
  const head = Buffer.allocUnsafe(HEADER_BYTES + jsonBytes);
  head.writeUInt32BE(jsonBytes, 0);
  head.write(json, HEADER_BYTES, 'utf8');
  return { parts: [head, ...parts], binary: true };
}

/** Encodes binary content inline as base64 in a text frame (for peers or tests that want plain JSON). */
export function encodeInline(message: AnyMessage): string {
  return JSON.stringify(message, (_key, value: unknown) => {
    if (value && typeof value === 'object' && (value as { type?: unknown }).type === 'binary' && (value as { bytes?: unknown }).bytes instanceof Uint8Array) {
      const { bytes, ...rest } = value as { bytes: Uint8Array };
      return { ...rest, byteLength: bytes.byteLength, data: Buffer.from(bytes).toString('base64') };
    }
    return value;
  });
}

function utf8(bytes: Uint8Array): string | undefined {
  try {
    return UTF8.decode(bytes);
  } catch {
    return undefined;
  }
}

function fail(code: ErrorCode, message: string, relatedId?: string, messageType?: string, call?: DecodeError['call']): { ok: false; error: DecodeError } {
  return { ok: false, error: { code, message, relatedId, messageType, ...(call ? { call } : {}) } };
}

/** A request's `callId` and `toolName`, those that are strings, cut to 200 characters. */
function namedCall(obj: Record<string, unknown>): DecodeError['call'] {
  return {
    ...(typeof obj.callId === 'string' ? { callId: obj.callId.slice(0, 200) } : {}),
    ...(typeof obj.toolName === 'string' ? { toolName: obj.toolName.slice(0, 200) } : {}),
  };
}

function describeIssue(error: z.ZodError): string {
  const issue = error.issues[0];
  if (!issue) return 'invalid message';
  const path = issue.path.length ? issue.path.map(String).join('.') : '(message)';
  return `${path}: ${issue.message}`;
}
