import { strict as assert } from 'node:assert';
import { DEFAULT_LIMITS, PROTOCOL } from '../../../src/protocol/constants';
import { decode, decodeFromClient, decodeFromServer, encode, encodeInline, encodeParts, type DecodeResult, type Direction } from '../../../src/protocol/codec';
import { ErrorCode } from '../../../src/protocol/errors';
import { CLIENT_TO_SERVER_TYPES, SERVER_TO_CLIENT_TYPES } from '../../../src/protocol/schemas';
import type { AnyMessage, ClientToolInvokeResponse } from '../../../src/protocol/types';
import { ALL_FIXTURES, CLIENT_FIXTURES, PNG_BYTES, SERVER_FIXTURES } from './fixtures';

/** Replaces byte arrays (Buffer or Uint8Array, views or not) by their hex so deepEqual compares content. */
function comparable(value: unknown): unknown {
  if (value instanceof Uint8Array) return { hex: Buffer.from(value.buffer, value.byteOffset, value.byteLength).toString('hex') };
  if (Array.isArray(value)) return value.map(comparable);
  if (value && typeof value === 'object') return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, comparable(v)]));
  return value;
}

function roundTrip(direction: Direction, frame: { data: string | Buffer | Buffer[]; binary: boolean }): AnyMessage {
  const result = decode(direction, frame.data, frame.binary);
  assert.ok(result.ok, `decode failed: ${JSON.stringify(!result.ok && result.error)}`);
  return result.message;
}

function expectError<T>(result: DecodeResult<T>, code: string, messagePart?: string | RegExp): { message: string; relatedId?: string; messageType?: string } {
  assert.equal(result.ok, false, `expected ${code}, decoded fine`);
  if (result.ok) throw new Error('unreachable');
  assert.equal(result.error.code, code, `expected ${code}, got ${result.error.code}: ${result.error.message}`);
  if (typeof messagePart === 'string') assert.ok(result.error.message.includes(messagePart), `"${result.error.message}" should mention ${messagePart}`);
  else if (messagePart) assert.match(result.error.message, messagePart);
  return result.error;
}

/** Builds `[u32 BE N][N bytes JSON][attachments…]` by hand, so tests can break it on purpose. */
function binaryFrame(json: unknown, ...attachments: Uint8Array[]): Buffer {
  const body = Buffer.from(typeof json === 'string' ? json : JSON.stringify(json), 'utf8');
  const header = Buffer.alloc(4);
  header.writeUInt32BE(body.length, 0);
  return Buffer.concat([header, body, ...attachments]);
}

function response(content: unknown[], extra: Record<string, unknown> = {}): Record<string, unknown> {
  return { type: 'clientToolInvokeResponse', requestId: 'req-9', success: true, content, ...extra };
}

/** mulberry32: a tiny seeded PRNG so the fuzz run is the same every time. */
function prng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

describe('protocol codec', () => {
  describe('fixtures', () => {
    it('has exactly one fixture for every message type of each direction', () => {
      assert.deepEqual(Object.keys(CLIENT_FIXTURES).sort(), [...CLIENT_TO_SERVER_TYPES].sort());
      assert.deepEqual(Object.keys(SERVER_FIXTURES).sort(), [...SERVER_TO_CLIENT_TYPES].sort());
      for (const [type, message] of Object.entries({ ...CLIENT_FIXTURES, ...SERVER_FIXTURES })) assert.equal(message.type, type);
    });

    it('no message type is listed in both directions', () => {
      const both = CLIENT_TO_SERVER_TYPES.filter((t) => (SERVER_TO_CLIENT_TYPES as readonly string[]).includes(t));
      assert.deepEqual(both, []);
    });
  });

  describe('round trips', () => {
    for (const { direction, message } of ALL_FIXTURES) {
      it(`${message.type} survives encode → decode (${direction})`, () => {
        const frame = encode(message);
        const hasBinary = 'content' in message && message.content.some((c) => c.type === 'binary');
        assert.equal(frame.binary, hasBinary, 'only messages with binary content become binary frames');
        assert.deepEqual(comparable(roundTrip(direction, frame)), comparable(message));
      });

      it(`${message.type} survives encodeInline → decode as a text frame (${direction})`, () => {
        const text = encodeInline(message);
        assert.equal(typeof text, 'string');
        assert.deepEqual(comparable(roundTrip(direction, { data: text, binary: false })), comparable(message));
        // ws hands text frames over as Buffers.
        assert.deepEqual(comparable(roundTrip(direction, { data: Buffer.from(text), binary: false })), comparable(message));
      });
    }

    it('decodeFromClient and decodeFromServer pick the right direction', () => {
      assert.ok(decodeFromClient(encodeInline(CLIENT_FIXTURES.hello), false).ok);
      assert.ok(decodeFromServer(encodeInline(SERVER_FIXTURES.welcome), false).ok);
    });
  });

  describe('binary content', () => {
    const items: ClientToolInvokeResponse['content'] = [
      { type: 'text', text: 'three attachments follow' },
      { type: 'binary', mimeType: 'image/png', filename: 'a.png', bytes: PNG_BYTES },
      { type: 'binary', mimeType: 'application/octet-stream', bytes: new Uint8Array(0) },
      { type: 'json', value: { between: true } },
      { type: 'binary', mimeType: 'text/plain', filename: 'ünïcødé.txt', bytes: new Uint8Array([0, 255, 1, 254, 2]) },
    ];
    const message: ClientToolInvokeResponse = { type: 'clientToolInvokeResponse', requestId: 'req-bin', success: true, content: items };

    it('several items, one of zero length, travel as attachments in order', () => {
      const frame = encode(message);
      assert.equal(frame.binary, true);
      const data = frame.data as Buffer;
      const n = data.readUInt32BE(0);
      const header = JSON.parse(data.toString('utf8', 4, 4 + n)) as { content: Record<string, unknown>[] };
      assert.deepEqual(header.content.filter((c) => c.type === 'binary').map((c) => [c.attachment, c.byteLength]), [[0, 16], [1, 0], [2, 5]]);
      assert.ok(header.content.every((c) => !('bytes' in c) && !('data' in c)), 'no bytes inside the JSON header');
      assert.equal(data.length, 4 + n + 16 + 0 + 5);
      assert.deepEqual(comparable(roundTrip('toServer', frame)), comparable(message));
    });

    it('as parts, the frame is the header with its JSON, then each attachment as a view of the content\'s own bytes', () => {
      const big = Buffer.alloc(64 * 1024, 7);
      const withBig: ClientToolInvokeResponse = { ...message, content: [...items, { type: 'binary', mimeType: 'application/octet-stream', bytes: big }] };
      const parts = encodeParts(withBig);
      assert.ok(parts.binary);
      assert.equal(parts.parts.length, 5, 'header and JSON, then four attachments');
      assert.equal(parts.parts[4].buffer, big.buffer, 'the large attachment is not copied');
      assert.equal(parts.parts[4].byteOffset, big.byteOffset);
      // Joined, the parts are exactly the single-frame encoding.
      assert.ok(Buffer.concat(parts.parts).equals(encode(withBig).data as Buffer));
    });

    it('decodes a binary message given as fragments split anywhere, and reads an attachment that is one whole fragment in place', () => {
      const whole = encode(message).data as Buffer;
      const expected = comparable(message);
      // Every split into two fragments, and some into three (through the header, the JSON, the attachments).
      for (let a = 0; a <= whole.length; a++) {
        assert.deepEqual(comparable(roundTrip('toServer', { data: [whole.subarray(0, a), whole.subarray(a)], binary: true })), expected, `split at ${a}`);
        for (const b of [a + 1, a + 7, whole.length - 3]) {
          if (b <= a || b > whole.length) continue;
          const three = [whole.subarray(0, a), whole.subarray(a, b), whole.subarray(b)];
          assert.deepEqual(comparable(roundTrip('toServer', { data: three, binary: true })), expected, `split at ${a} and ${b}`);
        }
      }
      // Empty fragments anywhere, and one fragment per byte.
      const empty = Buffer.alloc(0);
      for (const at of [0, 2, 4, 10, whole.length - 5, whole.length]) {
        const withEmpty = [empty, whole.subarray(0, at), empty, empty, whole.subarray(at), empty];
        assert.deepEqual(comparable(roundTrip('toServer', { data: withEmpty, binary: true })), expected, `empty fragments around ${at}`);
      }
      const bytewise = Array.from({ length: whole.length }, (_, i) => whole.subarray(i, i + 1));
      assert.deepEqual(comparable(roundTrip('toServer', { data: bytewise, binary: true })), expected, 'one fragment per byte');
      const parts = encodeParts(message);
      assert.ok(parts.binary);
      const decoded = decode('toServer', parts.parts, true);
      assert.ok(decoded.ok && decoded.message.type === 'clientToolInvokeResponse');
      const png = decoded.message.content[1];
      assert.ok(png.type === 'binary');
      assert.equal(png.bytes.buffer, parts.parts[1].buffer, 'an attachment that arrives as its own fragment is a view, not a copy');
    });

    it('refuses more than 1,000 content items before slicing any attachment', () => {
      const items = Array.from({ length: 1001 }, (_, i) => ({ type: 'binary', mimeType: 'application/octet-stream', byteLength: 1, attachment: i }));
      const frame = binaryFrame(response(items), Buffer.alloc(1001, 1));
      expectError(decodeFromClient(frame, true), ErrorCode.InvalidMessage, 'content: at most 1000 items, not 1001');
    });

    it('fragments are measured and checked like one frame: too large, too short, bytes left over', () => {
      const whole = encode(message).data as Buffer;
      expectError(decode('toServer', [whole.subarray(0, 10), whole.subarray(10)], true, { maxMessageBytes: whole.length - 1 }), ErrorCode.MessageTooLarge);
      expectError(decode('toServer', [Buffer.from([0, 0]), Buffer.from([0])], true), ErrorCode.BadBinaryFrame, /shorter than its 4-byte header/);
      expectError(decode('toServer', [whole, Buffer.from([1, 2])], true), ErrorCode.BadBinaryFrame, /2 bytes in the binary frame belong to no attachment/);
      expectError(decode('toServer', [whole.subarray(0, whole.length - 1)], true), ErrorCode.BadBinaryFrame, /runs past the end/);
    });

    it('several items, one of zero length, travel inline as base64', () => {
      const text = encodeInline(message);
      const wire = JSON.parse(text) as { content: Record<string, unknown>[] };
      assert.deepEqual(wire.content.filter((c) => c.type === 'binary').map((c) => [c.data, c.byteLength]), [
        [Buffer.from(PNG_BYTES).toString('base64'), 16],
        ['', 0],
        ['AP8B/gI=', 5],
      ]);
      assert.deepEqual(comparable(roundTrip('toServer', { data: text, binary: false })), comparable(message));
    });

    it('inline base64 and attachments can be mixed in one binary frame', () => {
      const frame = binaryFrame(
        response([
          { type: 'binary', mimeType: 'image/png', byteLength: 2, data: 'AAE=' },
          { type: 'binary', mimeType: 'image/png', byteLength: 3, attachment: 0 },
        ]),
        new Uint8Array([7, 8, 9]),
      );
      const decoded = roundTrip('toServer', { data: frame, binary: true }) as ClientToolInvokeResponse;
      assert.deepEqual(comparable(decoded.content), comparable([
        { type: 'binary', mimeType: 'image/png', bytes: new Uint8Array([0, 1]) },
        { type: 'binary', mimeType: 'image/png', bytes: new Uint8Array([7, 8, 9]) },
      ]));
    });

    it('binary content in a server message (toolCallEnded) round-trips too', () => {
      assert.equal(encode(SERVER_FIXTURES.toolCallEnded).binary, true);
      assert.deepEqual(comparable(roundTrip('toClient', encode(SERVER_FIXTURES.toolCallEnded))), comparable(SERVER_FIXTURES.toolCallEnded));
    });

    it('a binary frame without attachments carries a plain message', () => {
      assert.deepEqual(roundTrip('toServer', { data: binaryFrame(CLIENT_FIXTURES.resetThread), binary: true }), CLIENT_FIXTURES.resetThread);
    });

    it('multi-megabyte inline base64 decodes without throwing', () => {
      const bytes = Buffer.alloc(12 * 1024 * 1024, 0xa5);
      const text = JSON.stringify(response([{ type: 'binary', mimeType: 'image/png', byteLength: bytes.length, data: bytes.toString('base64') }]));
      const decoded = roundTrip('toServer', { data: text, binary: false }) as ClientToolInvokeResponse;
      const item = decoded.content[0];
      assert.ok(item.type === 'binary' && Buffer.from(item.bytes).equals(bytes));
    });
  });

  describe('error codes', () => {
    it('malformed JSON → PARSE_ERROR', () => {
      expectError(decodeFromClient('{"type":"cancel",', false), ErrorCode.ParseError);
      expectError(decodeFromClient('', false), ErrorCode.ParseError);
      expectError(decodeFromClient(Buffer.from('{"type": cancel}'), false), ErrorCode.ParseError);
      expectError(decodeFromClient(binaryFrame('{"type":'), true), ErrorCode.ParseError);
    });

    it('invalid UTF-8 → PARSE_ERROR, in a text frame and in a binary frame header', () => {
      const json = Buffer.concat([Buffer.from('{"type":"resetThread","threadId":"t'), Buffer.from([0xff, 0xfe]), Buffer.from('"}')]);
      expectError(decodeFromClient(json, false), ErrorCode.ParseError, 'UTF-8');
      const header = Buffer.alloc(4);
      header.writeUInt32BE(json.length, 0);
      expectError(decodeFromClient(Buffer.concat([header, json]), true), ErrorCode.ParseError, 'UTF-8');
    });

    it('JSON that is not an object → INVALID_MESSAGE', () => {
      for (const text of ['[]', '42', 'null', '"hello"', 'true']) expectError(decodeFromClient(text, false), ErrorCode.InvalidMessage, 'object');
    });

    it('unknown type → UNKNOWN_TYPE, with the type and the request id', () => {
      const error = expectError(decodeFromClient('{"type":"launchMissiles","requestId":"req-1"}', false), ErrorCode.UnknownType, 'launchMissiles');
      assert.equal(error.messageType, 'launchMissiles');
      assert.equal(error.relatedId, 'req-1');
      expectError(decodeFromServer('{"type":"Welcome"}', false), ErrorCode.UnknownType);
      expectError(decodeFromServer('{"type":"__proto__"}', false), ErrorCode.UnknownType);
    });

    it('a message for the other direction → UNKNOWN_TYPE', () => {
      expectError(decodeFromClient(encodeInline(SERVER_FIXTURES.welcome), false), ErrorCode.UnknownType, 'welcome');
      const error = expectError(decodeFromClient(encodeInline(SERVER_FIXTURES.clientToolInvokeRequest), false), ErrorCode.UnknownType);
      assert.equal(error.relatedId, 'req-000041');
      expectError(decodeFromServer(encodeInline(CLIENT_FIXTURES.hello), false), ErrorCode.UnknownType, 'hello');
      expectError(decodeFromServer(encode(CLIENT_FIXTURES.clientToolInvokeResponse).data, true), ErrorCode.UnknownType);
    });

    it('missing type → INVALID_MESSAGE naming "type"', () => {
      expectError(decodeFromClient('{"requestId":"req-2"}', false), ErrorCode.InvalidMessage, '"type"');
      expectError(decodeFromClient('{"type":7}', false), ErrorCode.InvalidMessage, '"type"');
    });

    it('missing fields → INVALID_MESSAGE naming the field', () => {
      const cases: [Direction, Record<string, unknown>, string][] = [
        ['toServer', { type: 'clientToolInvokeResponse', requestId: 'req-3', content: [] }, 'success'],
        ['toServer', { type: 'clientToolInvokeResponse', requestId: 'req-3', success: true }, 'content'],
        ['toServer', { type: 'clientToolProgress', requestId: 'req-3' }, 'status'],
        ['toServer', { type: 'resetThread' }, 'threadId'],
        ['toServer', { ...CLIENT_FIXTURES.hello, workspace: { folders: [] } }, 'workspace.trusted'],
        ['toServer', { ...CLIENT_FIXTURES.hello, toolGroups: [{ name: 'Editor', description: 'x' }] }, 'toolGroups.0.tools'],
        ['toClient', { type: 'clientToolInvokeRequest', requestId: 'req-3', callId: 'c', arguments: {} }, 'toolName'],
        ['toClient', { type: 'runFinished', threadId: 't', runId: 'r' }, 'reason'],
      ];
      for (const [direction, message, field] of cases) {
        const error = expectError(decode(direction, JSON.stringify(message), false), ErrorCode.InvalidMessage);
        assert.ok(error.message.startsWith(`${field}:`), `"${error.message}" should name ${field}`);
        assert.equal(error.messageType, message.type);
      }
    });

    it('wrong types → INVALID_MESSAGE naming the field', () => {
      const cases: [Direction, Record<string, unknown>, string][] = [
        ['toServer', { ...CLIENT_FIXTURES.clientToolInvokeResponse, content: [], success: 'yes' }, 'success'],
        ['toServer', { ...CLIENT_FIXTURES.clientToolProgress, status: 'sleeping' }, 'status'],
        ['toServer', { ...CLIENT_FIXTURES.userMessage, text: '' }, 'text'],
        ['toServer', { ...CLIENT_FIXTURES.userMessage, context: { selection: { startLine: -1, startCharacter: 0, endLine: 0, endCharacter: 0 } } }, 'context.selection.startLine'],
        ['toServer', { type: 'updateToolGroups', augmentation: { hideTools: ['rm -rf'] } }, 'augmentation.hideTools.0'],
        ['toServer', { type: 'clientToolInvokeResponse', requestId: 'req-4', success: true, content: [{ type: 'video', url: 'x' }] }, 'content.0.type'],
        ['toClient', { ...SERVER_FIXTURES.clientToolInvokeRequest, toolName: 'Read File' }, 'toolName'],
        ['toClient', { ...SERVER_FIXTURES.clientToolInvokeRequest, arguments: ['src/cart.ts'] }, 'arguments'],
        ['toClient', { ...SERVER_FIXTURES.clientToolInvokeRequest, timeoutMs: 0 }, 'timeoutMs'],
        ['toClient', { ...SERVER_FIXTURES.welcome, limits: { ...SERVER_FIXTURES.welcome.limits, maxInFlight: 1.5 } }, 'limits.maxInFlight'],
        ['toClient', { ...SERVER_FIXTURES.groupExpanded, group: 'bad\nname' }, 'group'],
      ];
      for (const [direction, message, field] of cases) {
        const error = expectError(decode(direction, JSON.stringify(message), false), ErrorCode.InvalidMessage);
        assert.ok(error.message.startsWith(`${field}:`), `"${error.message}" should name ${field}`);
      }
    });

    it('a requestId that is not a string is itself the invalid field', () => {
      const error = expectError(decodeFromClient('{"type":"clientToolProgress","requestId":42,"status":"running"}', false), ErrorCode.InvalidMessage, 'requestId');
      assert.equal(error.relatedId, undefined);
    });

    it('binary item without data or attachment, or with both → INVALID_MESSAGE', () => {
      expectError(decodeFromClient(JSON.stringify(response([{ type: 'binary', mimeType: 'image/png', byteLength: 0 }])), false), ErrorCode.InvalidMessage, 'content[0]');
      expectError(
        decodeFromClient(binaryFrame(response([{ type: 'binary', mimeType: 'image/png', byteLength: 1, data: 'AA==', attachment: 0 }]), new Uint8Array([0])), true),
        ErrorCode.InvalidMessage,
        'exactly one',
      );
      expectError(decodeFromClient(JSON.stringify(response([{ type: 'binary', mimeType: 'image/png', byteLength: -1, data: '' }])), false), ErrorCode.InvalidMessage, 'byteLength');
      expectError(decodeFromClient(JSON.stringify(response([{ type: 'binary', mimeType: 'image/png', data: '' }])), false), ErrorCode.InvalidMessage, 'byteLength');
      expectError(decodeFromClient(JSON.stringify(response([{ type: 'binary', mimeType: 'not a mime', byteLength: 0, data: '' }])), false), ErrorCode.InvalidMessage, 'content.0.mimeType');
    });

    it('a peer of another major version → PROTOCOL_MISMATCH', () => {
      const error = expectError(decodeFromClient(JSON.stringify({ type: 'hello', protocol: 'client-tools/2', everything: 'different' }), false), ErrorCode.ProtocolMismatch, 'client-tools/2');
      assert.equal(error.messageType, 'hello');
      expectError(decodeFromServer(JSON.stringify({ ...SERVER_FIXTURES.welcome, protocol: 'client-tools/0' }), false), ErrorCode.ProtocolMismatch);
      // A missing protocol is a missing field, not another version.
      const { protocol: _protocol, ...noProtocol } = CLIENT_FIXTURES.hello;
      expectError(decodeFromClient(JSON.stringify(noProtocol), false), ErrorCode.InvalidMessage, 'protocol');
      assert.equal(PROTOCOL, 'client-tools/1');
    });

    it('oversized payload → MESSAGE_TOO_LARGE, before parsing', () => {
      const text = encodeInline(CLIENT_FIXTURES.hello);
      const size = Buffer.byteLength(text);
      expectError(decodeFromClient(text, false, { maxMessageBytes: size - 1 }), ErrorCode.MessageTooLarge, String(size));
      assert.ok(decodeFromClient(text, false, { maxMessageBytes: size }).ok, 'a message of exactly the limit is accepted');
      expectError(decodeFromClient(encode(CLIENT_FIXTURES.clientToolInvokeResponse).data, true, { maxMessageBytes: 64 }), ErrorCode.MessageTooLarge);
      // Multi-byte characters count as bytes, not as string length.
      expectError(decodeFromClient(JSON.stringify({ type: 'resetThread', threadId: 'é'.repeat(60) }), false, { maxMessageBytes: 100 }), ErrorCode.MessageTooLarge);
      // The default limit applies without options; garbage that large is not even parsed.
      expectError(decodeFromClient(Buffer.alloc(DEFAULT_LIMITS.maxMessageBytes + 1, 0x20), false), ErrorCode.MessageTooLarge);
    });

    it('JSON text over maxJsonBytes → MESSAGE_TOO_LARGE before it is decoded: a text frame (string or bytes), or a binary frame\'s JSON part; attachments do not count', () => {
      const text = JSON.stringify({ type: 'textDelta', threadId: 't', runId: 'r', text: 'a'.repeat(1000) });
      const size = Buffer.byteLength(text);
      const limit = { maxJsonBytes: size - 1 };
      expectError(decodeFromServer(text, false, limit), ErrorCode.MessageTooLarge, `the JSON of the message is ${size} bytes, more than the limit of ${size - 1} bytes`);
      expectError(decodeFromServer(Buffer.from(text), false, limit), ErrorCode.MessageTooLarge, `is ${size} bytes`);
      assert.ok(decodeFromServer(Buffer.from(text), false, { maxJsonBytes: size }).ok, 'exactly the limit is accepted');
      // Invalid UTF-8 past the limit: refused for its size, so it was never decoded.
      expectError(decodeFromServer(Buffer.concat([Buffer.from(text), Buffer.from([0xff])]), false, { maxJsonBytes: size }), ErrorCode.MessageTooLarge);
      const binary = encode(SERVER_FIXTURES.toolCallEnded);
      assert.equal(binary.binary, true);
      const bytes = binary.data as Buffer;
      const jsonPart = bytes.readUInt32BE(0);
      assert.ok(jsonPart < bytes.length - 4, 'the fixture carries attachments');
      assert.ok(decodeFromServer(bytes, true, { maxJsonBytes: jsonPart }).ok, 'the attachments are not counted');
      expectError(decodeFromServer(bytes, true, { maxJsonBytes: jsonPart - 1 }), ErrorCode.MessageTooLarge, `is ${jsonPart} bytes`);
    });

    it('bad base64 → BAD_BASE64, with the request id', () => {
      const bad: [string, number][] = [
        ['not base64!', 8],
        ['QUJD\n', 3], // whitespace
        ['QQ', 1], // missing padding
        ['QR==', 1], // non-zero trailing bits: decodes like QQ== but is not canonical
        ['QUI=QUI=', 4], // padding in the middle
        ['-_8=', 2], // base64url alphabet
        ['QUJD', 2], // decodes to 3 bytes, byteLength says 2
        ['', 1],
      ];
      for (const [data, byteLength] of bad) {
        const error = expectError(
          decodeFromClient(JSON.stringify(response([{ type: 'binary', mimeType: 'image/png', byteLength, data }])), false),
          ErrorCode.BadBase64,
          'content[0].data',
        );
        assert.equal(error.relatedId, 'req-9', `relatedId for ${JSON.stringify(data)}`);
      }
    });

    describe('broken binary frames → BAD_BINARY_FRAME', () => {
      const attachment = (index: number, byteLength: number) => ({ type: 'binary', mimeType: 'image/png', byteLength, attachment: index });

      it('a frame shorter than its 4-byte header', () => {
        for (const length of [0, 1, 3]) expectError(decodeFromClient(Buffer.alloc(length), true), ErrorCode.BadBinaryFrame, 'header');
      });

      it('a header length past the end of the frame', () => {
        const frame = binaryFrame(CLIENT_FIXTURES.resetThread);
        frame.writeUInt32BE(frame.length - 3, 0);
        expectError(decodeFromClient(frame, true), ErrorCode.BadBinaryFrame, 'header says');
        const huge = Buffer.from([0xff, 0xff, 0xff, 0xff, 0x7b, 0x7d]);
        expectError(decodeFromClient(huge, true), ErrorCode.BadBinaryFrame);
      });

      it('attachment indexes out of order', () => {
        const error = expectError(
          decodeFromClient(binaryFrame(response([attachment(1, 1), attachment(0, 1)]), new Uint8Array([1, 2])), true),
          ErrorCode.BadBinaryFrame,
          'expected index 0',
        );
        assert.equal(error.relatedId, 'req-9');
        expectError(decodeFromClient(binaryFrame(response([attachment(0, 1), attachment(0, 1)]), new Uint8Array([1, 2])), true), ErrorCode.BadBinaryFrame, 'expected index 1');
      });

      it('an attachment index that is not an integer', () => {
        expectError(decodeFromClient(binaryFrame(response([attachment('0' as unknown as number, 1)]), new Uint8Array([1])), true), ErrorCode.BadBinaryFrame);
      });

      it('bytes left over after the last attachment', () => {
        expectError(decodeFromClient(binaryFrame(response([attachment(0, 1)]), new Uint8Array([1, 2, 3])), true), ErrorCode.BadBinaryFrame, '2 bytes');
        expectError(decodeFromClient(binaryFrame(response([{ type: 'text', text: 'no binary' }]), new Uint8Array([1])), true), ErrorCode.BadBinaryFrame);
        expectError(decodeFromClient(binaryFrame(CLIENT_FIXTURES.resetThread, new Uint8Array([1])), true), ErrorCode.BadBinaryFrame, 'no content');
      });

      it('an attachment running past the end of the frame', () => {
        const error = expectError(
          decodeFromClient(binaryFrame(response([attachment(0, 2), attachment(1, 4)]), new Uint8Array([1, 2, 3, 4, 5])), true),
          ErrorCode.BadBinaryFrame,
          'past the end',
        );
        assert.equal(error.relatedId, 'req-9');
      });

      it('an attachment referenced from a text frame', () => {
        expectError(decodeFromClient(JSON.stringify(response([attachment(0, 0)])), false), ErrorCode.BadBinaryFrame);
      });
    });

    it('relatedId carries the requestId of a bad message, and only then', () => {
      const withId = expectError(decodeFromClient('{"type":"clientToolInvokeResponse","requestId":"req-77","success":1,"content":[]}', false), ErrorCode.InvalidMessage);
      assert.equal(withId.relatedId, 'req-77');
      assert.equal(withId.messageType, 'clientToolInvokeResponse');
      const withoutId = expectError(decodeFromClient('{"type":"userMessage","threadId":"t"}', false), ErrorCode.InvalidMessage, 'text');
      assert.equal(withoutId.relatedId, undefined);
      const long = expectError(decodeFromClient(JSON.stringify({ type: 'nope', requestId: 'x'.repeat(5000) }), false), ErrorCode.UnknownType);
      assert.equal(long.relatedId?.length, 200, 'a long id is cut to the longest valid id');
    });
  });

  describe('fuzzing', () => {
    const codes = new Set<string>(Object.values(ErrorCode));
    const seeds = ALL_FIXTURES.map(({ direction, message }) => ({ direction, text: encodeInline(message), frame: encode(message) }));

    function checkResult(direction: Direction, data: string | Buffer, binary: boolean): void {
      let result: DecodeResult<AnyMessage>;
      try {
        result = decode(direction, data, binary);
      } catch (e) {
        assert.fail(`decode threw ${String(e)} on ${JSON.stringify(data.toString().slice(0, 200))}`);
      }
      assert.equal(typeof result.ok, 'boolean');
      if (result.ok) {
        const types: readonly string[] = direction === 'toServer' ? CLIENT_TO_SERVER_TYPES : SERVER_TO_CLIENT_TYPES;
        assert.ok(types.includes(result.message.type));
      } else {
        assert.ok(codes.has(result.error.code), `unknown code ${result.error.code}`);
        assert.equal(typeof result.error.message, 'string');
      }
    }

    it('never throws on random bytes (3000 inputs, fixed seed)', () => {
      const random = prng(0xc0ffee);
      for (let i = 0; i < 3000; i++) {
        const bytes = Buffer.alloc(Math.floor(random() * 64));
        for (let j = 0; j < bytes.length; j++) bytes[j] = Math.floor(random() * 256);
        // Some start with a plausible header so the JSON and attachment paths are reached too.
        if (bytes.length >= 4 && random() < 0.5) bytes.writeUInt32BE(Math.floor(random() * (bytes.length - 3)), 0);
        const direction: Direction = random() < 0.5 ? 'toServer' : 'toClient';
        checkResult(direction, bytes, true);
        checkResult(direction, bytes, false);
        checkResult(direction, bytes.toString('latin1'), false);
      }
    });

    it('never throws on mutated valid messages (4000 inputs, fixed seed)', () => {
      const random = prng(0x5eed);
      const pick = <T>(list: readonly T[]): T => list[Math.floor(random() * list.length)];
      const junk: unknown[] = [null, 0, -1, 1.5, 2 ** 53, '', 'x', '\u0000', true, [], {}, [null], { type: 'binary' }, 'AAAA', { __proto__: 1 }];
      let decodedOk = 0;
      for (let i = 0; i < 4000; i++) {
        const seed = pick(seeds);
        const kind = i % 4;
        if (kind === 0) {
          // Byte-level damage to the binary frame (or the text, for text-only messages).
          const bytes = Buffer.from(seed.frame.binary ? (seed.frame.data as Buffer) : Buffer.from(seed.text));
          for (let k = 0, n = 1 + Math.floor(random() * 4); k < n; k++) bytes[Math.floor(random() * bytes.length)] = Math.floor(random() * 256);
          checkResult(seed.direction, bytes, seed.frame.binary);
        } else if (kind === 1) {
          // Truncation and splicing.
          const text = seed.text;
          const cut = Math.floor(random() * text.length);
          checkResult(seed.direction, random() < 0.5 ? text.slice(0, cut) : text.slice(0, cut) + text.slice(Math.floor(random() * text.length)), false);
        } else {
          // Structural damage: replace, delete or retype a random field somewhere in the message.
          const value = JSON.parse(seed.text) as Record<string, unknown>;
          const containers: Record<string, unknown>[] = [];
          (function collect(v: unknown) {
            if (v && typeof v === 'object') {
              containers.push(v as Record<string, unknown>);
              for (const child of Object.values(v)) collect(child);
            }
          })(value);
          const target = pick(containers);
          const keys = Object.keys(target);
          const key = keys.length && random() < 0.8 ? pick(keys) : pick(['type', 'requestId', 'data', 'attachment', 'byteLength', 'content', '__proto__']);
          if (random() < 0.3) delete target[key];
          else target[key] = pick(junk);
          const text = JSON.stringify(value);
          checkResult(seed.direction, text, false);
          checkResult(seed.direction === 'toServer' ? 'toClient' : 'toServer', text, false);
          checkResult(seed.direction, binaryFrame(text, new Uint8Array(Math.floor(random() * 4))), true);
          if (decode(seed.direction, text, false).ok) decodedOk++;
        }
      }
      assert.ok(decodedOk > 0, 'some mutations (of optional or free-form fields) still decode');
    });

    it('never throws on deeply nested JSON', () => {
      checkResult('toServer', '['.repeat(100_000) + ']'.repeat(100_000), false);
      checkResult('toServer', '{"a":'.repeat(50_000) + '1' + '}'.repeat(50_000), false);
      const deep = '['.repeat(50_000) + ']'.repeat(50_000);
      checkResult('toServer', `{"type":"clientToolInvokeResponse","requestId":"r","success":true,"content":[{"type":"json","value":${deep}}]}`, false);
      checkResult('toClient', `{"type":"clientToolInvokeRequest","requestId":"r","toolName":"A","callId":"c","arguments":{"a":${deep}}}`, false);
    });
  });
});
