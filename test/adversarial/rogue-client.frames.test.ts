/**
 * A rogue client that holds the token attacks the real backend below the protocol: header floods,
 * fragment floods, compressed frames and deflate bombs, oversized and lying frames, unmasked frames,
 * ping floods, connection churn. Each attack ends that one connection with the right close code
 * (or an HTTP error before the upgrade); the server survives and its other sessions carry on.
 */
import * as assert from 'node:assert/strict';
import { deflateRawSync } from 'node:zlib';
import { ErrorCode } from '../../src/protocol';
import { helloMessage, TestClient } from '../support/backend-client';
import { startBackend, TOKEN, type BackendRig } from './support/backend-rig';
import { encodeFrame, Opcode, rawUpgrade, upgradeHeaders, type RawResponse } from './support/raw-ws';
import { until } from './support/core-rig';

const MAX_MESSAGE_BYTES = 64 * 1024;

describe('rogue client: frames and floods', () => {
  let rig: BackendRig;
  /** A well-behaved client connected before each attack, which must not notice it. */
  let bystander: TestClient;

  beforeEach(async () => {
    rig = await startBackend({ limits: { maxMessageBytes: MAX_MESSAGE_BYTES } });
    bystander = await rig.open();
  });
  afterEach(async () => {
    // The bystander's session still runs a whole turn of the demo model.
    const { finished } = await bystander.run('bystander', 'hello there');
    assert.equal(finished.reason, 'completed');
    await rig.assertAlive();
    await rig.close();
  });

  const port = () => rig.backend.port;

  /** A raw connection that completed the upgrade and the hello/welcome handshake. */
  async function rawSession(extra: string[] = []): Promise<RawResponse> {
    const r = await rawUpgrade(port(), upgradeHeaders(port(), TOKEN, extra));
    assert.equal(r.status, 101);
    r.socket.write(encodeFrame({ opcode: Opcode.text, payload: JSON.stringify(helloMessage()), mask: true }));
    await until(() => r.parser.texts().some((t) => t.includes('"welcome"')), 'welcome');
    return r;
  }

  async function closedWith(r: RawResponse, code: number): Promise<void> {
    await until(() => r.parser.closeCode !== undefined || r.socket.destroyed, `close ${code}`);
    assert.equal(r.parser.closeCode, code);
    r.socket.destroy();
  }

  it('T-WS-01 a header-count flood (2,100 headers, the key pushed past maxHeadersCount) is refused (400 from ws on Node 20, 431 from the HTTP parser on Node 22+) instead of crashing ws (CVE-2024-37890)', async () => {
    const flood = Array.from({ length: 2100 }, () => 'a:b');
    const r = await rawUpgrade(port(), [...upgradeHeaders(port(), TOKEN), ...flood]);
    // Node 20 passes these headers on and ws (patched for the CVE) refuses with 400; Node 22 and 24
    // already refuse a header count this large in their HTTP parser, with 431. Either way no crash.
    const nodeMajor = Number(process.versions.node.split('.')[0]);
    assert.equal(r.status, nodeMajor >= 22 ? 431 : 400);
    await r.ended;
  });

  it('T-WS-02 a header-size flood (20,000 headers) is refused by the HTTP parser with 431', async () => {
    const r = await rawUpgrade(port(), [...upgradeHeaders(port(), TOKEN), ...Array.from({ length: 20_000 }, (_, i) => `x-${i}: y`)]);
    assert.equal(r.status, 431);
    await r.ended;
  });

  it('T-WS-03 a fragment flood (20,000 continuation frames) is closed with 1008 before it is assembled', async () => {
    const r = await rawSession();
    r.socket.write(encodeFrame({ opcode: Opcode.text, payload: '{"type":', fin: false, mask: true }));
    const frames: Buffer[] = [];
    for (let i = 0; i < 20_000; i++) frames.push(encodeFrame({ opcode: Opcode.continuation, payload: '', fin: false, mask: true }));
    r.socket.write(Buffer.concat(frames));
    await closedWith(r, 1008);
  });

  it('T-WS-04 per-message deflate is never negotiated, and a compressed (RSV1) deflate bomb is a protocol error (1002)', async () => {
    const r = await rawSession(['Sec-WebSocket-Extensions: permessage-deflate; client_max_window_bits']);
    assert.equal(r.headers['sec-websocket-extensions'], undefined);
    const bomb = deflateRawSync(Buffer.alloc(50 * 1024 * 1024)); // 50 MiB of zeros in about 50 KB
    assert.ok(bomb.length < MAX_MESSAGE_BYTES);
    r.socket.write(encodeFrame({ opcode: Opcode.text, payload: bomb, rsv1: true, mask: true }));
    await closedWith(r, 1002);
  });

  it('T-WS-05 a message over maxMessageBytes is closed with 1009 and the server survives', async () => {
    const client = await rig.open();
    client.send(JSON.stringify({ type: 'userMessage', threadId: 't', text: 'x'.repeat(MAX_MESSAGE_BYTES) }));
    assert.equal((await client.closed).code, 1009);
  });

  it('T-WS-06 a frame announcing 2^53 bytes is closed with 1009 at its header, before any payload is buffered', async () => {
    const r = await rawSession();
    r.socket.write(encodeFrame({ opcode: Opcode.binary, payload: 'tiny', mask: true, declaredLength: 2n ** 53n - 1n }));
    await closedWith(r, 1009);
  });

  it('T-WS-07 an unmasked client frame is a protocol error (1002)', async () => {
    const r = await rawSession();
    r.socket.write(encodeFrame({ opcode: Opcode.text, payload: JSON.stringify({ type: 'cancel' }), mask: false }));
    await closedWith(r, 1002);
  });

  it('T-WS-08 a ping flood (5,000 pings) trips the cap of 60 pending pongs: that connection is dropped, nobody else is', async () => {
    const r = await rawSession();
    const pings: Buffer[] = [];
    for (let i = 0; i < 5000; i++) pings.push(encodeFrame({ opcode: Opcode.ping, payload: 'p', mask: true }));
    r.socket.write(Buffer.concat(pings));
    await r.ended;
    assert.ok(r.parser.frames.filter((f) => f.opcode === Opcode.pong).length <= 60);
  });

  it('T-WS-09 connection churn (200 upgrades dropped before or right after hello) keeps the sessions waiting for a resume bounded, and the server answering', async () => {
    let created = 0;
    let ended = 0;
    rig.backend.on('session', () => created++);
    rig.backend.on('sessionEnded', () => ended++);
    for (let i = 0; i < 200; i++) {
      const r = await rawUpgrade(port(), upgradeHeaders(port(), TOKEN));
      if (i % 2 === 0) r.socket.write(encodeFrame({ opcode: Opcode.text, payload: JSON.stringify(helloMessage()), mask: true }));
      r.socket.destroy();
    }
    const probe = await rig.open();
    const { finished } = await probe.run('p', 'hello');
    assert.equal(finished.reason, 'completed');
    // maxConnections (16) × 4 sessions per connection; the oldest detached ones are ended first.
    assert.ok(created > 64, `only ${created} sessions were created`);
    assert.ok(created + 1 - ended <= 64, `${created + 1 - ended} sessions are kept`);
  });

  it('T-WS-10 binary frames that lie and invalid UTF-8 get coded errors on a live connection, which stays', async () => {
    const client = await rig.open();
    const header = Buffer.alloc(4);
    header.writeUInt32BE(1_000_000);
    client.ws.send(Buffer.concat([header, Buffer.from('{}')]), { binary: true });
    assert.equal((await client.next('error')).code, ErrorCode.BadBinaryFrame);
    const len = Buffer.alloc(4);
    len.writeUInt32BE(3);
    client.ws.send(Buffer.concat([len, Buffer.from([0xc3, 0x28, 0xff])]), { binary: true });
    assert.equal((await client.next('error')).code, ErrorCode.ParseError);
    const { finished } = await client.run('t', 'hello');
    assert.equal(finished.reason, 'completed');
  });
});
