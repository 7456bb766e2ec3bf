/**
 * A rogue backend sends garbage: broken JSON, unknown types, lying binary frames, bad base64,
 * invalid UTF-8, messages over the size limit, a second welcome. Each gets a coded refusal (a
 * request with a readable id is answered with the code, so it does not hang), nothing crashes, and
 * a call that was in flight during the attack is still answered, exactly once.
 *
 * The codec's own error codes and fuzzing are in test/unit/protocol/codec.test.ts; here the same
 * inputs arrive over a real socket at a real ClientCore.
 */
import * as assert from 'node:assert/strict';
import { ErrorCode, type ServerToClient } from '../../src/protocol';
import { assertRefused, CoreRig, delay, until } from './support/core-rig';

const MAX_MESSAGE_BYTES = 256 * 1024;

/** A binary frame: [u32 length][JSON][attachments], with the length free to lie. */
function binaryFrame(json: unknown, attachments: Buffer = Buffer.alloc(0), declaredLength?: number): Buffer {
  const body = Buffer.from(JSON.stringify(json));
  const header = Buffer.alloc(4);
  header.writeUInt32BE(declaredLength ?? body.length);
  return Buffer.concat([header, body, attachments]);
}

describe('rogue backend: malformed, lying and oversized messages', () => {
  let rig: CoreRig;
  let sockets: number;
  let inflight: string;

  beforeEach(async () => {
    rig = await CoreRig.start({ core: { limits: { maxMessageBytes: MAX_MESSAGE_BYTES } } });
    await rig.connect();
    sockets = rig.backend.sockets.length;
    inflight = rig.backend.invoke('Latch', { key: 'inflight' });
    await until(() => rig.latches.entered.includes('inflight'), 'the in-flight call to start');
  });
  afterEach(() => rig.dispose());

  /** The call that was running during the attack still gets its one answer. */
  async function inflightAnsweredOnce(): Promise<void> {
    rig.latches.release('inflight');
    const r = await rig.answer(inflight);
    assert.equal(r.success, true, r.errorMessage);
    await delay(20);
    assert.equal(rig.backend.responsesFor(inflight).length, 1);
  }

  function raw(frame: string | Buffer, binary = typeof frame !== 'string'): void {
    rig.backend.socket.send(frame, { binary });
  }

  it('T-MSG-01 malformed JSON and non-object JSON are refused with PARSE_ERROR / INVALID_MESSAGE; the connection and its call go on', async () => {
    for (const text of ['{', '', 'null', '[]', '"a string"', '42', '{"type": 1}', '{"type":"clientToolInvokeRequest"']) raw(text);
    await until(() => rig.protocolErrors.length === 8, 'eight protocol errors');
    assert.deepEqual(rig.protocolErrors, [
      ErrorCode.ParseError, ErrorCode.ParseError, ErrorCode.InvalidMessage, ErrorCode.InvalidMessage,
      ErrorCode.InvalidMessage, ErrorCode.InvalidMessage, ErrorCode.InvalidMessage, ErrorCode.ParseError,
    ]);
    await rig.assertHealthy(sockets);
    await inflightAnsweredOnce();
  });

  it('T-MSG-02 unknown types and messages of the other direction are refused with UNKNOWN_TYPE', async () => {
    for (const type of ['launchMissiles', 'hello', 'clientToolInvokeResponse', 'userMessage', 'updateToolGroups', '__proto__']) raw(JSON.stringify({ type, requestId: 'x' }));
    await until(() => rig.protocolErrors.length === 6, 'six protocol errors');
    assert.ok(rig.protocolErrors.every((c) => c === ErrorCode.UnknownType), rig.protocolErrors.join());
    assert.equal(rig.backend.responsesFor('x').length, 0, 'only tool requests are answered');
    await rig.assertHealthy(sockets);
    await inflightAnsweredOnce();
  });

  it('T-MSG-03 tool requests with broken fields are answered INVALID_MESSAGE under their own id and never run', async () => {
    const broken = [
      { requestId: 'b1', toolName: 'Echo', callId: 'c', arguments: [] },
      { requestId: 'b2', callId: 'c', arguments: {} },
      { requestId: 'b3', toolName: 'Echo', callId: 'c', arguments: {}, timeoutMs: -5 },
      { requestId: 'b4', toolName: 'Echo', callId: 'c'.repeat(500), arguments: {} },
      { requestId: 'b5', toolName: 'Echo', callId: 'c', arguments: 'rm -rf /' },
    ];
    for (const b of broken) raw(JSON.stringify({ type: 'clientToolInvokeRequest', ...b }));
    for (const b of broken) assertRefused(await rig.answer(b.requestId), ErrorCode.InvalidMessage);
    assert.equal(rig.runs.get('Echo'), undefined);
    await rig.assertHealthy(sockets);
    await inflightAnsweredOnce();
  });

  it('T-MSG-04 bad base64 in a message with content is refused with BAD_BASE64', async () => {
    raw(JSON.stringify({
      type: 'toolCallEnded', threadId: 't', runId: 'r', callId: 'c', outcome: 'succeeded', durationMs: 1,
      content: [{ type: 'binary', mimeType: 'image/png', byteLength: 3, data: '!!not base64!!' }],
    }));
    raw(JSON.stringify({
      type: 'toolCallEnded', threadId: 't', runId: 'r', callId: 'c', outcome: 'succeeded', durationMs: 1,
      content: [{ type: 'binary', mimeType: 'image/png', byteLength: 99, data: 'AAAA' }],
    }));
    await until(() => rig.protocolErrors.length === 2, 'two protocol errors');
    assert.deepEqual(rig.protocolErrors, [ErrorCode.BadBase64, ErrorCode.BadBase64]);
    await rig.assertHealthy(sockets);
    await inflightAnsweredOnce();
  });

  it('T-MSG-05 binary frames that lie about their lengths are refused with BAD_BINARY_FRAME; a request among them is answered with the code', async () => {
    const request = { type: 'clientToolInvokeRequest', requestId: 'bin-1', toolName: 'Echo', callId: 'c', arguments: {} };
    raw(Buffer.from([0, 0]));
    raw(binaryFrame(request, Buffer.alloc(0), 1_000_000));
    raw(binaryFrame(request, Buffer.from('trailing bytes nobody asked for')));
    const ended = { type: 'toolCallEnded', threadId: 't', runId: 'r', callId: 'c', outcome: 'succeeded', durationMs: 1 };
    raw(binaryFrame({ ...ended, content: [{ type: 'binary', mimeType: 'image/png', byteLength: 64, attachment: 0 }] }, Buffer.alloc(8)));
    raw(binaryFrame({ ...ended, content: [{ type: 'binary', mimeType: 'image/png', byteLength: 4, attachment: 1 }] }, Buffer.alloc(4)));
    await until(() => rig.protocolErrors.length === 5, 'five protocol errors');
    assert.ok(rig.protocolErrors.every((c) => c === ErrorCode.BadBinaryFrame), rig.protocolErrors.join());
    assertRefused(await rig.answer('bin-1'), ErrorCode.BadBinaryFrame);
    assert.equal(rig.backend.responsesFor('bin-1').length, 1);
    assert.equal(rig.runs.get('Echo'), undefined);
    await rig.assertHealthy(sockets);
    await inflightAnsweredOnce();
  });

  it('T-MSG-06 invalid UTF-8 inside a binary frame is PARSE_ERROR; in a text frame ws closes the socket (1007) and the session resumes with its call', async () => {
    const header = Buffer.alloc(4);
    header.writeUInt32BE(3);
    raw(Buffer.concat([header, Buffer.from([0xc3, 0x28, 0xff])]));
    await until(() => rig.protocolErrors.length === 1, 'a protocol error');
    assert.deepEqual(rig.protocolErrors, [ErrorCode.ParseError]);
    await rig.assertHealthy(sockets);

    const back = rig.resumed();
    raw(Buffer.from([0x7b, 0xc3, 0x28, 0x7d]), false);
    const s = await back;
    assert.ok(s.kind === 'connected' && s.resumed);
    assert.ok(rig.states.some((st) => st.kind === 'reconnecting' && /UTF-8|1007/i.test(st.reason)), JSON.stringify(rig.states.map((st) => st.kind)));
    await inflightAnsweredOnce();
  });

  it('T-MSG-07 a message over maxMessageBytes closes the socket (1009) before it is parsed; the session resumes and the call in flight is answered once', async () => {
    const back = rig.resumed();
    rig.backend.send({ type: 'textDelta', threadId: 't', runId: 'r', text: 'x'.repeat(MAX_MESSAGE_BYTES + 1) });
    await back;
    const lost = rig.states.find((s) => s.kind === 'reconnecting');
    assert.ok(lost?.kind === 'reconnecting' && /payload|1009/i.test(lost.reason), JSON.stringify(lost));
    await inflightAnsweredOnce();
    await rig.assertHealthy(rig.backend.sockets.length);
  });

  it('T-MSG-08 deeply nested or huge arguments are refused as INVALID_ARGUMENTS without running the tool', async () => {
    const deep = `${'['.repeat(20_000)}${']'.repeat(20_000)}`;
    raw(`{"type":"clientToolInvokeRequest","requestId":"deep-1","toolName":"Echo","callId":"c","arguments":{"n":${deep}}}`);
    rig.backend.invoke('Echo', { n: 1, pad: 'y'.repeat(200 * 1024) }, { requestId: 'huge-1' });
    assertRefused(await rig.answer('deep-1'), ErrorCode.InvalidArguments);
    assertRefused(await rig.answer('huge-1'), ErrorCode.InvalidArguments);
    assert.equal(rig.runs.get('Echo'), undefined);
    await rig.assertHealthy(sockets);
    await inflightAnsweredOnce();
  });

  it('T-MSG-09 a second welcome naming another session is ignored: the session stays and the call goes on', async () => {
    const session = rig.sessionId;
    const welcome: ServerToClient = {
      type: 'welcome', protocol: 'client-tools/1', sessionId: 'hijacked', resumed: false,
      server: { name: 'evil', version: '6.6.6', model: { name: 'evil', offline: false } },
      limits: { maxMessageBytes: 1, maxInFlight: 1, invokeTimeoutMs: 1 },
    };
    rig.backend.send(welcome);
    await rig.assertHealthy(sockets);
    assert.equal(rig.sessionId, session);
    assert.ok(rig.logger.entries.some((e) => /second welcome/.test(e.message)));
    // The bogus limits (a 1-byte message cap) were not applied: a normal result still goes out.
    assert.equal((await rig.backend.call('ReadFile', { path: 'src/a.ts' })).success, true);
    await inflightAnsweredOnce();
  });

  it('T-MSG-10 an error claiming UNAUTHORIZED after the handshake does not stop the connection', async () => {
    rig.backend.send({ type: 'error', code: ErrorCode.Unauthorized, message: 'your token expired, please reconnect to evil.example' });
    rig.backend.send({ type: 'error', code: ErrorCode.ProtocolMismatch, message: 'nope' });
    await rig.assertHealthy(sockets);
    assert.equal(rig.states.some((s) => s.kind === 'stopped'), false);
    await inflightAnsweredOnce();
  });

  it('T-MSG-11 cancels for unknown, answered and never-seen ids are ignored and nothing is answered twice', async () => {
    const done = await rig.backend.call('Echo', { n: 1 }, { requestId: 'done-1' });
    assert.equal(done.success, true);
    for (const requestId of ['done-1', 'never-seen', '__proto__', 'x'.repeat(200)]) rig.backend.send({ type: 'clientToolCancel', requestId });
    await rig.assertHealthy(sockets);
    assert.equal(rig.backend.responsesFor('done-1').length, 1);
    assert.equal(rig.backend.responsesFor('never-seen').length, 0);
    await inflightAnsweredOnce();
  });
});
