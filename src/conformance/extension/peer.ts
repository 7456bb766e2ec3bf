/**
 * The kit's side of the extension's connection in mode 2, playing the backend: every message the
 * extension sends is kept, decoded against the protocol's schema (a message that does not decode is
 * kept as a violation), and a check can wait for the answer it expects.
 */
import type { WebSocket } from 'ws';
import type { ClientToolInvokeResponse, ClientToServer, DecodeError, ServerToClient } from '../../protocol';
import { decodeFromClient, encode } from '../../protocol';
import { Intake } from '../intake';

export interface FromExtension {
  message?: ClientToServer;
  invalid?: DecodeError;
  binary: boolean;
}

export class ExtensionPeer {
  readonly received: FromExtension[] = [];
  private waiters: (() => void)[] = [];
  private closedWith: number | undefined;

  constructor(
    private readonly ws: WebSocket,
    maxKeptBytes?: number,
  ) {
    const intake = new Intake(ws, maxKeptBytes);
    ws.on('message', (data, isBinary) => {
      const admitted = intake.admit((data as Buffer).length);
      if (!admitted.ok) {
        if (admitted.violation) this.received.push({ invalid: admitted.violation, binary: isBinary });
        this.wake();
        return;
      }
      const decoded = decodeFromClient(data as Buffer, isBinary);
      this.received.push(decoded.ok ? { message: decoded.message, binary: isBinary } : { invalid: decoded.error, binary: isBinary });
      this.wake();
    });
    ws.on('close', (code) => {
      this.closedWith = code;
      this.wake();
    });
    ws.on('error', () => undefined);
  }

  mark(): number {
    return this.received.length;
  }

  send(message: ServerToClient): void {
    const frame = encode(message);
    this.ws.send(frame.data, { binary: frame.binary });
  }

  sendRaw(data: string | Buffer, binary: boolean): void {
    this.ws.send(data, { binary });
  }

  /** The first message from `since` on that `match` accepts. */
  async waitFor(match: (m: ClientToServer, received: FromExtension) => boolean, what: string, timeoutMs: number, since = 0): Promise<ClientToServer> {
    const deadline = Date.now() + timeoutMs;
    let from = since;
    for (;;) {
      for (; from < this.received.length; from++) {
        const r = this.received[from];
        if (r.message && match(r.message, r)) return r.message;
      }
      if (this.closedWith !== undefined) throw new Error(`${what}: the extension closed the connection (${this.closedWith})`);
      const left = deadline - Date.now();
      if (left <= 0) throw new Error(`${what}: nothing within ${Math.round(timeoutMs / 1000)} s`);
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, left);
        this.waiters.push(() => {
          clearTimeout(timer);
          resolve();
        });
      });
    }
  }

  /** The response to `requestId` from `since` on (a re-sent request's answers come after its re-send). */
  response(requestId: string, timeoutMs: number, since = 0): Promise<ClientToolInvokeResponse> {
    return this.waitFor((m) => m.type === 'clientToolInvokeResponse' && m.requestId === requestId, `the response to ${requestId}`, timeoutMs, since) as Promise<ClientToolInvokeResponse>;
  }

  /** Every response to `requestId` received so far. */
  responses(requestId: string): ClientToolInvokeResponse[] {
    return this.received.flatMap((r) => (r.message?.type === 'clientToolInvokeResponse' && r.message.requestId === requestId ? [r.message] : []));
  }

  /** The close code once the extension closed the connection, or undefined when it is still open after `timeoutMs`. */
  async closeCode(timeoutMs: number): Promise<number | undefined> {
    const deadline = Date.now() + timeoutMs;
    while (this.closedWith === undefined && Date.now() < deadline) {
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, deadline - Date.now());
        this.waiters.push(() => {
          clearTimeout(timer);
          resolve();
        });
      });
    }
    return this.closedWith;
  }

  close(): void {
    this.ws.close(1000);
  }

  private wake(): void {
    for (const w of this.waiters.splice(0)) w();
  }
}
