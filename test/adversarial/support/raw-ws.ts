/**
 * WebSocket below the library: hand-written upgrade requests and frames over plain TCP, for
 * attacks a well-behaved `ws` peer cannot make (header floods, fragment floods, compressed frames
 * nobody negotiated, frames announcing 2^53 bytes), in both directions:
 * - `rawUpgrade` is a rogue client: it sends any request it likes and returns the server's answer.
 * - `RawBackend` is a rogue backend: it accepts the upgrade itself and writes whatever frames a test wants.
 */
import { createHash, randomBytes } from 'node:crypto';
import * as net from 'node:net';
import type { AddressInfo } from 'node:net';
import { PROTOCOL, SUBPROTOCOL, type Welcome } from '../../../src/protocol';

const GUID = '258EAFA5-E914-47DA-95CA-C5AB0DC85B11';

export const Opcode = { continuation: 0x0, text: 0x1, binary: 0x2, close: 0x8, ping: 0x9, pong: 0xa } as const;

export interface FrameSpec {
  opcode: number;
  payload?: Buffer | string;
  /** Default true. */
  fin?: boolean;
  /** The "compressed" bit of permessage-deflate. */
  rsv1?: boolean;
  /** Clients must mask; servers must not. */
  mask?: boolean;
  /** A length to announce instead of the payload's own (a lie). */
  declaredLength?: bigint;
}

export function encodeFrame(spec: FrameSpec): Buffer {
  const payload = typeof spec.payload === 'string' ? Buffer.from(spec.payload) : (spec.payload ?? Buffer.alloc(0));
  const length = spec.declaredLength ?? BigInt(payload.length);
  const first = ((spec.fin ?? true) ? 0x80 : 0) | (spec.rsv1 ? 0x40 : 0) | (spec.opcode & 0x0f);
  const maskBit = spec.mask ? 0x80 : 0;
  let header: Buffer;
  if (length < 126n) {
    header = Buffer.from([first, maskBit | Number(length)]);
  } else if (length < 65536n) {
    header = Buffer.alloc(4);
    header[0] = first;
    header[1] = maskBit | 126;
    header.writeUInt16BE(Number(length), 2);
  } else {
    header = Buffer.alloc(10);
    header[0] = first;
    header[1] = maskBit | 127;
    header.writeBigUInt64BE(length, 2);
  }
  if (!spec.mask) return Buffer.concat([header, payload]);
  const key = randomBytes(4);
  const masked = Buffer.from(payload);
  for (let i = 0; i < masked.length; i++) masked[i] ^= key[i & 3];
  return Buffer.concat([header, key, masked]);
}

export interface Frame {
  fin: boolean;
  rsv1: boolean;
  opcode: number;
  payload: Buffer;
}

/** Splits a byte stream into frames (masked or not). */
export class FrameParser {
  readonly frames: Frame[] = [];
  private buffer = Buffer.alloc(0);

  push(data: Buffer): void {
    this.buffer = Buffer.concat([this.buffer, data]);
    for (;;) {
      if (this.buffer.length < 2) return;
      const b0 = this.buffer[0];
      const b1 = this.buffer[1];
      let length = b1 & 0x7f;
      let offset = 2;
      if (length === 126) {
        if (this.buffer.length < 4) return;
        length = this.buffer.readUInt16BE(2);
        offset = 4;
      } else if (length === 127) {
        if (this.buffer.length < 10) return;
        length = Number(this.buffer.readBigUInt64BE(2));
        offset = 10;
      }
      const masked = (b1 & 0x80) !== 0;
      const keyAt = offset;
      if (masked) offset += 4;
      if (this.buffer.length < offset + length) return;
      const payload = Buffer.from(this.buffer.subarray(offset, offset + length));
      if (masked) for (let i = 0; i < payload.length; i++) payload[i] ^= this.buffer[keyAt + (i & 3)];
      this.frames.push({ fin: (b0 & 0x80) !== 0, rsv1: (b0 & 0x40) !== 0, opcode: b0 & 0x0f, payload });
      this.buffer = this.buffer.subarray(offset + length);
    }
  }

  /** The close code of the first close frame, if one arrived. */
  get closeCode(): number | undefined {
    const close = this.frames.find((f) => f.opcode === Opcode.close);
    return close && close.payload.length >= 2 ? close.payload.readUInt16BE(0) : undefined;
  }

  texts(): string[] {
    return this.frames.filter((f) => f.opcode === Opcode.text).map((f) => f.payload.toString('utf8'));
  }
}

export interface RawResponse {
  status: number;
  headers: Record<string, string>;
  socket: net.Socket;
  /** Frames the server sent after a 101. */
  parser: FrameParser;
  /** Resolves when the server closed the TCP connection. */
  ended: Promise<void>;
}

/**
 * Sends an upgrade request with exactly these header lines (a `Sec-WebSocket-Key` is added unless
 * one is given), and resolves with the status line and headers of the answer.
 */
export function rawUpgrade(port: number, headerLines: string[], options: { path?: string; key?: string | false } = {}): Promise<RawResponse> {
  return new Promise((resolve, reject) => {
    const socket = net.connect(port, '127.0.0.1');
    const parser = new FrameParser();
    const ended = new Promise<void>((r) => socket.once('close', () => r()));
    let head = Buffer.alloc(0);
    let answered = false;
    socket.on('error', (e) => {
      if (!answered) reject(e);
    });
    socket.on('data', (data) => {
      if (answered) {
        parser.push(data);
        return;
      }
      head = Buffer.concat([head, data]);
      const end = head.indexOf('\r\n\r\n');
      if (end < 0) return;
      answered = true;
      const [statusLine, ...lines] = head.subarray(0, end).toString('latin1').split('\r\n');
      const headers: Record<string, string> = {};
      for (const line of lines) {
        const i = line.indexOf(':');
        if (i > 0) headers[line.slice(0, i).trim().toLowerCase()] = line.slice(i + 1).trim();
      }
      parser.push(head.subarray(end + 4));
      resolve({ status: Number(/^HTTP\/1\.1 (\d{3})/.exec(statusLine)?.[1] ?? 0), headers, socket, parser, ended });
    });
    const key = options.key === undefined ? randomBytes(16).toString('base64') : options.key;
    const lines = [`GET ${options.path ?? '/'} HTTP/1.1`, ...headerLines, ...(key === false ? [] : [`Sec-WebSocket-Key: ${key}`])];
    socket.write(`${lines.join('\r\n')}\r\n\r\n`);
  });
}

/** The header lines of a proper upgrade to the backend on `port` with `token`. */
export function upgradeHeaders(port: number, token: string, extra: string[] = []): string[] {
  return [
    `Host: 127.0.0.1:${port}`,
    'Connection: Upgrade',
    'Upgrade: websocket',
    'Sec-WebSocket-Version: 13',
    `Sec-WebSocket-Protocol: ${SUBPROTOCOL}`,
    `x-client-tools-token: ${token}`,
    ...extra,
  ];
}

export function acceptKey(key: string): string {
  return createHash('sha1').update(key + GUID).digest('base64');
}

export function welcomeMessage(sessionId = 'raw-session'): Welcome {
  return {
    type: 'welcome', protocol: PROTOCOL, sessionId, resumed: false,
    server: { name: 'raw', version: '0', model: { name: 'none', offline: true } },
    limits: { maxMessageBytes: 1_000_000, maxInFlight: 4, invokeTimeoutMs: 30_000 },
  };
}

/**
 * A rogue backend on plain TCP. For each connection it answers the upgrade (with `extraHeaders`),
 * optionally sends `welcome`, then hands the socket to `onOpen`. Everything the client sends is parsed.
 */
export class RawBackend {
  private constructor(
    private readonly server: net.Server,
    readonly port: number,
    readonly connections: { socket: net.Socket; parser: FrameParser }[],
  ) {}

  static async start(options: { extraHeaders?: string[]; welcome?: boolean; onOpen?: (socket: net.Socket, index: number) => void }): Promise<RawBackend> {
    const connections: { socket: net.Socket; parser: FrameParser }[] = [];
    const server = net.createServer((socket) => {
      socket.on('error', () => {});
      const parser = new FrameParser();
      const entry = { socket, parser };
      connections.push(entry);
      let upgraded = false;
      socket.on('data', (data) => {
        if (upgraded) {
          parser.push(data);
          return;
        }
        upgraded = true;
        const key = /sec-websocket-key: *(.+)\r\n/i.exec(data.toString('latin1'))?.[1]?.trim() ?? '';
        const lines = [
          'HTTP/1.1 101 Switching Protocols', 'Upgrade: websocket', 'Connection: Upgrade',
          `Sec-WebSocket-Accept: ${acceptKey(key)}`, `Sec-WebSocket-Protocol: ${SUBPROTOCOL}`, ...(options.extraHeaders ?? []),
        ];
        socket.write(`${lines.join('\r\n')}\r\n\r\n`);
        if (options.welcome ?? true) socket.write(encodeFrame({ opcode: Opcode.text, payload: JSON.stringify(welcomeMessage()) }));
        options.onOpen?.(socket, connections.indexOf(entry));
      });
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    return new RawBackend(server, (server.address() as AddressInfo).port, connections);
  }

  get url(): string {
    return `ws://127.0.0.1:${this.port}`;
  }

  async close(): Promise<void> {
    for (const c of this.connections) c.socket.destroy();
    await new Promise<void>((r) => this.server.close(() => r()));
  }
}
