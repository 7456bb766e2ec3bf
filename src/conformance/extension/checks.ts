/**
 * Mode 2's checks: the kit plays a scripted backend and calls the extension's tools, good and bad,
 * then reads every message the extension sent against the schema.
 */
import type { BinaryContent, ClientToolInvokeResponse, Hello } from '../../protocol';
import { ErrorCode, MIN_PEER_MESSAGE_BYTES, PROTOCOL, SUBPROTOCOL } from '../../protocol';
import type { Check } from '../check';
import { CheckFailed, skip, verify } from '../check';
import type { ExtensionContext } from './context';
import { groupStateFor, hasRequired, welcomeFor } from './context';

function summary(r: ClientToolInvokeResponse): string {
  return r.success ? `success${r.errorCode ? ` (${r.errorCode})` : ''}` : `failure ${r.errorCode ?? '(no code)'}: ${(r.errorMessage ?? '').slice(0, 160)}`;
}

function failedWith(code: string, r: ClientToolInvokeResponse): string {
  verify(!r.success && r.errorCode === code, summary(r));
  return summary(r);
}

const BACKGROUND_NOTE = 'the kit calls tools outside any chat run: with clientTools.permissions.backgroundCalls at "ask" the editor asks you first (allow it), at "deny" these calls fail';

export const EXTENSION_CHECKS: Check<ExtensionContext>[] = [
  {
    id: 'ext.upgrade',
    title: `The extension connects offering ${SUBPROTOCOL}, with the token and without an Origin`,
    expected: `an upgrade that offers ${SUBPROTOCOL}, carries x-client-tools-token (checked when --token is given) and no Origin header`,
    async run(context) {
      let connection;
      try {
        connection = await context.server.nextConnection(context.target.connectMs);
      } catch (e) {
        throw new CheckFailed(`${(e as Error).message}; point the extension at ${context.server.url}`);
      }
      context.peer = connection.peer;
      context.upgrade = connection.upgrade;
      const { offered, origin, tokenSent } = connection.upgrade;
      verify(offered.includes(SUBPROTOCOL), `offered subprotocols: ${offered.join(', ') || 'none'}`);
      verify(origin === undefined, `Origin: ${origin}`);
      verify(tokenSent, 'no x-client-tools-token header');
      return `offered ${offered.join(', ')}, token sent, no Origin`;
    },
  },
  {
    id: 'ext.hello',
    title: 'The first message is a valid hello; the kit answers welcome and toolGroupState',
    expected: `hello (protocol ${PROTOCOL}) with at least one tool group`,
    async run(context) {
      const peer = context.peer;
      if (!peer) return skip('no extension connected');
      try {
        await peer.waitFor(() => true, 'hello', context.target.waitMs);
      } catch (e) {
        verify(peer.received[0], (e as Error).message);
      }
      const first = peer.received[0];
      verify(first.message, `the first message did not decode: ${first.invalid?.code} ${first.invalid?.message}`);
      verify(first.message.type === 'hello', `the first message was ${first.message.type}`);
      const hello: Hello = first.message;
      context.hello = hello;
      peer.send(welcomeFor());
      peer.send(groupStateFor(hello));
      const tools = hello.toolGroups.reduce((n, g) => n + g.tools.length, 0);
      verify(tools > 0, 'the hello registers no tools');
      return `hello from ${hello.client.name} ${hello.client.version}: ${hello.toolGroups.length} groups, ${tools} tools`;
    },
  },
  {
    id: 'ext.hello-limits',
    title: 'hello announces the limits the extension enforces',
    expected: `hello.limits with maxMessageBytes (at least ${MIN_PEER_MESSAGE_BYTES}), maxInFlight and replayWindowMs; an extension that predates hello.limits leaves it out, which the backend reads as the defaults`,
    advisory: true,
    async run(context) {
      const { hello } = context.connected();
      verify(hello.limits, 'hello carries no limits: the backend assumes 32 MiB, 64 calls and 10 minutes');
      return `maxMessageBytes ${hello.limits.maxMessageBytes}, maxInFlight ${hello.limits.maxInFlight}, replayWindowMs ${hello.limits.replayWindowMs}${hello.limits.maxJsonBytes !== undefined ? `, maxJsonBytes ${hello.limits.maxJsonBytes}` : ''}`;
    },
  },
  {
    id: 'ext.invoke',
    title: 'A call of a harmless tool succeeds',
    expected: `clientToolInvokeResponse with success true (${BACKGROUND_NOTE})`,
    async run(context) {
      const { name, args } = context.probe();
      const requestId = context.nextRequestId();
      const response = await context.invoke(name, args, requestId);
      verify(response.success, `${name}: ${summary(response)}`);
      context.probeAnswer = { requestId, toolName: name, args, response };
      return `${name}: ${summary(response)}, ${response.content.length} content items`;
    },
  },
  {
    id: 'ext.unknown-tool',
    title: 'A call of a tool that does not exist fails with UNKNOWN_TOOL',
    expected: `success false, errorCode ${ErrorCode.UnknownTool}`,
    async run(context) {
      return failedWith(ErrorCode.UnknownTool, await context.invoke('ConformanceNoSuchTool', {}));
    },
  },
  {
    id: 'ext.invalid-arguments',
    title: 'A call without its required arguments fails with INVALID_ARGUMENTS',
    expected: `success false, errorCode ${ErrorCode.InvalidArguments}`,
    async run(context) {
      const tool = context.tools().find((t) => hasRequired(t) && !t.hidden);
      if (!tool) return skip('no tool of the extension has required parameters');
      return `${tool.name}: ${failedWith(ErrorCode.InvalidArguments, await context.invoke(tool.name, {}))}`;
    },
  },
  {
    id: 'ext.invalid-message',
    title: 'A request that breaks the schema, with a readable requestId, is answered with its decoding code',
    expected: `success false, errorCode ${ErrorCode.InvalidMessage}`,
    async run(context) {
      const { peer } = context.connected();
      const requestId = context.nextRequestId();
      const since = peer.mark();
      peer.sendRaw(JSON.stringify({ type: 'clientToolInvokeRequest', requestId, toolName: context.probe().name, callId: `call-${requestId}`, arguments: 'not an object' }), false);
      return failedWith(ErrorCode.InvalidMessage, await context.answer(requestId, since));
    },
  },
  {
    id: 'ext.binary-result',
    title: 'Reading a binary file returns its bytes as a binary content item',
    expected: 'success true with a binary item (binary frame or inline base64) of the file\'s bytes',
    async run(context) {
      if (!context.target.readPath) return skip('pass --read <path> naming a binary file (an image) of the open workspace');
      const reader = context.tools().find((t) => /^read_?file$/i.test(t.name));
      if (!reader) return skip('the extension offers no ReadFile tool');
      const { peer } = context.connected();
      const since = peer.mark();
      const response = await context.invoke(reader.name, { path: context.target.readPath });
      verify(response.success, summary(response));
      const binary = response.content.find((c): c is BinaryContent => c.type === 'binary');
      verify(binary && binary.bytes.byteLength > 0, `content: ${JSON.stringify(response.content).slice(0, 200)}`);
      const frame = peer.received.slice(since).find((r) => r.message === response);
      return `${binary.mimeType}, ${binary.bytes.byteLength} bytes, sent ${frame?.binary ? 'as a binary frame' : 'inline as base64'}`;
    },
  },
  {
    id: 'ext.binary-frame-accepted',
    title: 'A binary frame from the backend (a display event with an attachment) is accepted',
    expected: 'the connection stays up and the next call is answered',
    async run(context) {
      const { peer } = context.connected();
      const { name, args } = context.probe();
      peer.send({
        type: 'toolCallEnded',
        threadId: 'conformance-thread',
        runId: 'conformance-run',
        callId: 'conformance-display-only',
        outcome: 'succeeded',
        content: [{ type: 'binary', mimeType: 'application/octet-stream', bytes: Uint8Array.from([0, 1, 2, 255]) }],
        durationMs: 1,
      });
      const response = await context.invoke(name, args);
      verify(response.success, summary(response));
      return `then ${name}: ${summary(response)}`;
    },
  },
  {
    id: 'ext.duplicate',
    title: 'A request id seen before is not run again',
    expected: `the same id and tool: the stored response unchanged; the same id with another tool: ${ErrorCode.DuplicateRequest}`,
    async run(context) {
      const first = context.probeAnswer;
      if (!first) return skip('the probe call did not succeed');
      const again = await context.invoke(first.toolName, first.args, first.requestId);
      verify(JSON.stringify(again) === JSON.stringify(first.response), `the replay differs: ${summary(again)}`);
      const other = context.tools().find((t) => t.name !== first.toolName);
      if (!other) return 'the stored response was replayed (no other tool to try the id with)';
      const since = context.connected().peer.mark();
      context.connected().peer.send({ type: 'clientToolInvokeRequest', requestId: first.requestId, toolName: other.name, callId: `call-${first.requestId}-other`, arguments: {} });
      const clash = await context.answer(first.requestId, since);
      return `replayed unchanged; with ${other.name}: ${failedWith(ErrorCode.DuplicateRequest, clash)}`;
    },
  },
  {
    id: 'ext.cancel',
    title: 'clientToolCancel is answered, once',
    expected: `one response: success false with ${ErrorCode.Cancelled}, or the normal result if the tool finished first`,
    async run(context) {
      const { peer } = context.connected();
      const { name, args } = context.probe();
      const requestId = context.nextRequestId();
      const since = peer.mark();
      peer.send({ type: 'clientToolInvokeRequest', requestId, toolName: name, callId: `call-${requestId}`, arguments: args });
      peer.send({ type: 'clientToolCancel', requestId, reason: 'The conformance kit cancelled the call.' });
      const response = await context.answer(requestId, since);
      verify(response.success || response.errorCode === ErrorCode.Cancelled, summary(response));
      // A second answer would arrive right behind the first; the next call's answer proves the queue moved on.
      await context.invoke(name, args);
      verify(peer.responses(requestId).length === 1, `${peer.responses(requestId).length} responses`);
      return summary(response);
    },
  },
  {
    id: 'ext.invalid-utf8',
    title: 'A text frame that is not valid UTF-8 fails the connection with 1007 (RFC 6455 §8.1)',
    expected: 'the extension closes the connection with close code 1007 (it reconnects afterwards, to a backend that is gone by then)',
    async run(context) {
      const { peer } = context.connected();
      peer.sendRaw(Buffer.concat([Buffer.from('{"type":"textDelta","threadId":"t","runId":"r","text":"'), Buffer.from([0xc3, 0x28]), Buffer.from('"}')]), false);
      const code = await peer.closeCode(context.target.waitMs);
      verify(code === 1007, code === undefined ? 'the connection stayed open' : `closed with ${code}`);
      return 'closed with 1007';
    },
  },
  {
    id: 'ext.schema',
    title: 'Every message the extension sent matches the schema and framing rules',
    expected: 'each message decodes against schema/client-to-server.json',
    async run(context) {
      const { peer } = context.connected();
      const invalid = peer.received.filter((r) => r.invalid);
      verify(invalid.length === 0, invalid.slice(0, 3).map((r) => `${r.invalid?.code}: ${r.invalid?.message}`).join('; '));
      return `${peer.received.length} messages, ${peer.received.filter((r) => r.binary).length} of them binary frames, all valid`;
    },
  },
];
