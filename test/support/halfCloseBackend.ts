/**
 * A backend that closes the way RFC 6455 lets a server close: on a message over its limit it sends
 * a close frame with 1009 and ends its side of TCP at once (a half-close), without reading what the
 * client is still writing, and drops the socket a while later. Python's `websockets` does this; the
 * conformance kit must read the 1009 whatever the TCP close order. A raw socket, so nothing between
 * the test and the wire tidies the close up: it speaks just enough of the protocol for the size
 * check (the upgrade, hello answered with welcome and toolGroupState).
 */
import { createHash } from 'node:crypto';
import * as net from 'node:net';
import type { AddressInfo } from 'node:net';
import { PROTOCOL, SUBPROTOCOL } from '../../src/protocol';

export interface HalfCloseBackend {
  url: string;
  token: string;
  /** The limit announced in `welcome.limits.maxMessageBytes`. */
  limit: number;
  close(): Promise<void>;
}

const GUID = '258EAFA5-E914-47DA-95CA-C5AB0DC85B11';

function frame(opcode: number, payload: Buffer): Buffer {
  const length = payload.length;
  const head = length < 126 ? Buffer.from([0x80 | opcode, length]) : length < 65536 ? Buffer.from([0x80 | opcode, 126, length >> 8, length & 0xff]) : Buffer.concat([Buffer.from([0x80 | opcode, 127]), bigLength(length)]);
  return Buffer.concat([head, payload]);
}

function bigLength(length: number): Buffer {
  const b = Buffer.alloc(8);
  b.writeBigUInt64BE(BigInt(length));
  return b;
}

function text(message: object): Buffer {
  return frame(0x1, Buffer.from(JSON.stringify(message)));
}

/** `dropAfterMs`: how long the half-closed socket lingers, unread, before it is destroyed (websockets waits its close_timeout, 10 s). */
export async function startHalfCloseBackend(limit: number, dropAfterMs = 10_000): Promise<HalfCloseBackend> {
  const sockets = new Set<net.Socket>();
  const server = net.createServer({ allowHalfOpen: true }, (socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
    socket.on('error', () => socket.destroy());
    let buffer = Buffer.alloc(0);
    let upgraded = false;
    socket.on('data', (chunk: Buffer) => {
      buffer = Buffer.concat([buffer, chunk]);
      if (!upgraded) {
        const end = buffer.indexOf('\r\n\r\n');
        if (end < 0) return;
        const head = buffer.subarray(0, end).toString('latin1');
        buffer = buffer.subarray(end + 4);
        const key = /^sec-websocket-key:\s*(\S+)/im.exec(head)?.[1] ?? '';
        const accept = createHash('sha1').update(key + GUID).digest('base64');
        socket.write(`HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\nConnection: Upgrade\r\nSec-WebSocket-Accept: ${accept}\r\nSec-WebSocket-Protocol: ${SUBPROTOCOL}\r\n\r\n`);
        upgraded = true;
      }
      for (;;) {
        if (buffer.length < 2) return;
        const opcode = buffer[0] & 0x0f;
        let length = buffer[1] & 0x7f;
        let offset = 2;
        if (length === 126) {
          if (buffer.length < 4) return;
          length = buffer.readUInt16BE(2);
          offset = 4;
        } else if (length === 127) {
          if (buffer.length < 10) return;
          length = Number(buffer.readBigUInt64BE(2));
          offset = 10;
        }
        if (length > limit) {
          // Refused from its header: close frame, FIN, and no more reading.
          const close = Buffer.alloc(2);
          close.writeUInt16BE(1009);
          socket.end(frame(0x8, close));
          socket.pause();
          setTimeout(() => socket.destroy(), dropAfterMs).unref();
          return;
        }
        if (buffer.length < offset + 4 + length) return;
        const mask = buffer.subarray(offset, offset + 4);
        const payload = Buffer.from(buffer.subarray(offset + 4, offset + 4 + length));
        for (let i = 0; i < payload.length; i++) payload[i] ^= mask[i % 4];
        buffer = buffer.subarray(offset + 4 + length);
        if (opcode === 0x8) {
          socket.end(frame(0x8, payload.subarray(0, 2)));
          return;
        }
        if (opcode === 0x9) socket.write(frame(0xa, payload));
        if (opcode === 0x1 && (JSON.parse(payload.toString('utf8')) as { type?: string }).type === 'hello') {
          socket.write(text({ type: 'welcome', protocol: PROTOCOL, sessionId: 'half-close', resumed: false, server: { name: 'half-close', version: '1', model: { name: 'none', offline: true } }, limits: { maxMessageBytes: limit, maxInFlight: 8, invokeTimeoutMs: 30_000 } }));
          socket.write(text({ type: 'toolGroupState', collapsing: true, groups: [] }));
        }
      }
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `ws://127.0.0.1:${(server.address() as AddressInfo).port}`,
    token: 'half-close-token-0123456789',
    limit,
    async close() {
      for (const s of sockets) s.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
