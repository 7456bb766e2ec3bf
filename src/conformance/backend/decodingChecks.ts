/**
 * Messages a backend cannot decode: each gets an `error` with the documented code (and the
 * offending request id where one could be read), and the connection goes on serving.
 */
import { ErrorCode } from '../../protocol';
import type { BackendPeer } from '../backendPeer';
import { describeMessage } from '../backendPeer';
import type { Check } from '../check';
import { verify } from '../check';
import type { BackendContext } from './context';
import { nextError, uniqueId } from './context';

interface BadInput {
  id: string;
  title: string;
  code: string;
  /** The request id the error must name in `relatedId`, when the input carries one. */
  relatedId?: string;
  send(peer: BackendPeer): void;
}

/** A binary frame: the length of `json`, `json` (text, or bytes as they are), then `trailing`. */
function frame(json: string | Buffer, trailing: Buffer = Buffer.alloc(0)): Buffer {
  const body = Buffer.from(json);
  const header = Buffer.alloc(4);
  header.writeUInt32BE(body.length, 0);
  return Buffer.concat([header, body, trailing]);
}

const badRequestId = uniqueId('conformance-bad');

const BAD_INPUTS: BadInput[] = [
  { id: 'decode.parse-error', title: 'Malformed JSON', code: ErrorCode.ParseError, send: (p) => p.sendRaw('{"type": "cancel",', false) },
  { id: 'decode.unknown-type', title: 'An unknown message type', code: ErrorCode.UnknownType, send: (p) => p.sendRaw(JSON.stringify({ type: 'conformanceNoSuchType' }), false) },
  {
    id: 'decode.invalid-message',
    title: 'A field of the wrong type',
    code: ErrorCode.InvalidMessage,
    relatedId: `${badRequestId}-1`,
    send: (p) => p.sendRaw(JSON.stringify({ type: 'clientToolInvokeResponse', requestId: `${badRequestId}-1`, success: 'yes', content: [] }), false),
  },
  {
    id: 'decode.bad-base64',
    title: 'Inline binary data that is not canonical base64',
    code: ErrorCode.BadBase64,
    relatedId: `${badRequestId}-2`,
    send: (p) =>
      p.sendRaw(JSON.stringify({ type: 'clientToolInvokeResponse', requestId: `${badRequestId}-2`, success: true, content: [{ type: 'binary', mimeType: 'image/png', byteLength: 3, data: 'not base64!' }] }), false),
  },
  { id: 'decode.short-binary-frame', title: 'A binary frame shorter than its 4-byte header', code: ErrorCode.BadBinaryFrame, send: (p) => p.sendRaw(Buffer.from([0, 0]), true) },
  {
    id: 'decode.binary-utf8',
    title: 'A binary frame whose JSON is not valid UTF-8',
    code: ErrorCode.ParseError,
    // {"type":"cancel","threadId":"<0xC3 0x28>"} as the JSON part.
    send: (p) => p.sendRaw(frame(Buffer.concat([Buffer.from('{"type":"cancel","threadId":"'), Buffer.from([0xc3, 0x28]), Buffer.from('"}')])), true),
  },
  {
    id: 'decode.attachment-not-integer',
    title: 'A binary item whose attachment is not an integer',
    code: ErrorCode.BadBinaryFrame,
    relatedId: `${badRequestId}-4`,
    send: (p) =>
      p.sendRaw(frame(JSON.stringify({ type: 'clientToolInvokeResponse', requestId: `${badRequestId}-4`, success: true, content: [{ type: 'binary', mimeType: 'image/png', byteLength: 1, attachment: 0.5 }] }), Buffer.alloc(1)), true),
  },
  {
    id: 'decode.binary-frame-lengths',
    title: 'A binary frame whose attachment runs past its end',
    code: ErrorCode.BadBinaryFrame,
    relatedId: `${badRequestId}-3`,
    send: (p) =>
      p.sendRaw(frame(JSON.stringify({ type: 'clientToolInvokeResponse', requestId: `${badRequestId}-3`, success: true, content: [{ type: 'binary', mimeType: 'image/png', byteLength: 64, attachment: 0 }] }), Buffer.alloc(8)), true),
  },
];

function decodingCheck(input: BadInput): Check<BackendContext> {
  return {
    id: input.id,
    title: `${input.title} is answered with ${input.code}`,
    expected: `error ${input.code}${input.relatedId ? ` with relatedId ${input.relatedId}` : ''}, and the connection stays open`,
    async run(context) {
      const { peer } = await context.session();
      const since = peer.mark();
      input.send(peer);
      const error = await nextError(context, peer, since);
      verify(error.code === input.code, describeMessage(error));
      if (input.relatedId) verify(error.relatedId === input.relatedId, `relatedId is ${error.relatedId ?? 'absent'}`);
      verify(await peer.alive(context.target.waitMs), 'the connection was closed or stopped answering pings');
      return describeMessage(error);
    },
  };
}

export const DECODING_CHECKS: Check<BackendContext>[] = [
  ...BAD_INPUTS.map(decodingCheck),
  {
    id: 'decode.invalid-utf8',
    title: 'A text frame that is not valid UTF-8 fails the connection with 1007 (RFC 6455 §8.1)',
    expected: 'the connection closed with close code 1007',
    async run(context) {
      const { peer } = await context.session();
      // {"type":"cancel","threadId":"<0xC3 0x28>"}: one byte sequence no UTF-8 decoder accepts.
      peer.sendRaw(Buffer.concat([Buffer.from('{"type":"cancel","threadId":"'), Buffer.from([0xc3, 0x28]), Buffer.from('"}')]), false);
      const closed = await peer.closeCode(context.target.waitMs);
      verify(closed?.code === 1007, closed ? `closed with ${closed.code}` : `the connection stayed open (last: ${peer.messages().map((m) => m.type).at(-1) ?? 'nothing'})`);
      return 'closed with 1007';
    },
  },
  {
    id: 'decode.unknown-request',
    title: 'A response for a request the backend never sent is answered with UNKNOWN_REQUEST',
    expected: `error ${ErrorCode.UnknownRequest}`,
    async run(context) {
      const { peer } = await context.session();
      const since = peer.mark();
      const requestId = uniqueId('conformance-never-sent');
      peer.send({ type: 'clientToolInvokeResponse', requestId, success: true, content: [{ type: 'text', text: 'unasked' }] });
      const error = await nextError(context, peer, since);
      verify(error.code === ErrorCode.UnknownRequest, describeMessage(error));
      return describeMessage(error);
    },
  },
];
