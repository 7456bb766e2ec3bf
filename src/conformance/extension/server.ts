/**
 * Mode 2's listening side: a WebSocket server on loopback that waits for the extension under test,
 * notes how it upgraded (subprotocols offered, token, Origin), selects the protocol's subprotocol
 * and hands over the first connection. Upgrades with a wrong token are refused with 401, as a real
 * backend would, and the kit keeps waiting.
 */
import type * as http from 'node:http';
import type { AddressInfo } from 'node:net';
import { WebSocketServer } from 'ws';
import { SUBPROTOCOL, TOKEN_HEADER } from '../../protocol';
import { MAX_FRAME_BYTES } from '../intake';
import { ExtensionPeer } from './peer';

export interface UpgradeFacts {
  offered: string[];
  selected: string;
  origin: string | undefined;
  tokenSent: boolean;
}

export interface ConformanceServer {
  readonly port: number;
  readonly url: string;
  /** The first extension that connected with the right token (or any, without a token). */
  nextConnection(timeoutMs: number): Promise<{ peer: ExtensionPeer; upgrade: UpgradeFacts }>;
  close(): Promise<void>;
}

export async function listen(host: string, port: number, token: string | undefined): Promise<ConformanceServer> {
  const wss = new WebSocketServer({
    host,
    port,
    perMessageDeflate: false,
    maxPayload: MAX_FRAME_BYTES,
    handleProtocols: (offered) => (offered.has(SUBPROTOCOL) ? SUBPROTOCOL : false),
    verifyClient: (info: { req: http.IncomingMessage }, done: (ok: boolean, status?: number) => void) =>
      done(token === undefined || info.req.headers[TOKEN_HEADER] === token, 401),
  });
  await new Promise<void>((resolve, reject) => {
    wss.once('listening', resolve);
    wss.once('error', reject);
  });
  const bound = (wss.address() as AddressInfo).port;
  const arrived: { peer: ExtensionPeer; upgrade: UpgradeFacts }[] = [];
  const waiting: (() => void)[] = [];
  wss.on('connection', (ws, req) => {
    const offered = (req.headers['sec-websocket-protocol'] ?? '').split(',').map((p) => p.trim()).filter((p) => p !== '');
    arrived.push({ peer: new ExtensionPeer(ws), upgrade: { offered, selected: ws.protocol, origin: req.headers.origin, tokenSent: req.headers[TOKEN_HEADER] !== undefined } });
    for (const w of waiting.splice(0)) w();
  });
  return {
    port: bound,
    url: `ws://${host}:${bound}`,
    async nextConnection(timeoutMs) {
      const deadline = Date.now() + timeoutMs;
      while (arrived.length === 0) {
        const left = deadline - Date.now();
        if (left <= 0) throw new Error(`no extension connected within ${Math.round(timeoutMs / 1000)} s`);
        await new Promise<void>((resolve) => {
          const timer = setTimeout(resolve, left);
          waiting.push(() => {
            clearTimeout(timer);
            resolve();
          });
        });
      }
      return arrived.shift()!;
    },
    async close() {
      for (const c of wss.clients) c.terminate();
      await new Promise<void>((resolve) => wss.close(() => resolve()));
    },
  };
}
