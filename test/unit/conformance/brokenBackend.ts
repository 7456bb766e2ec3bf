/**
 * A deliberately wrong backend for the kit's own tests: a real `ws` server on loopback that says
 * hello back but gets chosen rules wrong, so the matching checks must fail.
 */
import * as http from 'node:http';
import type { AddressInfo } from 'node:net';
import { WebSocketServer } from 'ws';
import type { ServerToClient } from '../../../src/protocol';
import { encode, PROTOCOL, SUBPROTOCOL, TOKEN_HEADER } from '../../../src/protocol';

export interface Faults {
  /** Upgrades without looking at the token. */
  acceptsAnyToken?: boolean;
  /** Completes the upgrade without selecting the subprotocol. */
  noSubprotocol?: boolean;
  /** Answers every message it cannot use with INTERNAL instead of the documented code. */
  wrongCodes?: boolean;
}

export interface BrokenBackend {
  url: string;
  token: string;
  close(): Promise<void>;
}

export async function startBrokenBackend(faults: Faults): Promise<BrokenBackend> {
  const token = 'broken-backend-token-0123456789';
  const server = http.createServer();
  const wss = new WebSocketServer({ noServer: true, handleProtocols: (offered) => (faults.noSubprotocol || !offered.has(SUBPROTOCOL) ? false : SUBPROTOCOL) });
  server.on('upgrade', (req, socket, head) => {
    if (!faults.acceptsAnyToken && req.headers[TOKEN_HEADER] !== token) {
      socket.end('HTTP/1.1 401 Unauthorized\r\nConnection: close\r\nContent-Length: 0\r\n\r\n');
      return;
    }
    wss.handleUpgrade(req, socket, head, (ws) => {
      const send = (m: ServerToClient) => {
        const frame = encode(m);
        ws.send(frame.data, { binary: frame.binary });
      };
      let sessions = 0;
      ws.on('message', (data, isBinary) => {
        let message: { type?: string; threadId?: string } | undefined;
        try {
          message = isBinary ? undefined : (JSON.parse(String(data)) as { type?: string });
        } catch {
          message = undefined;
        }
        if (message?.type === 'hello') {
          send({ type: 'welcome', protocol: PROTOCOL, sessionId: `broken-${++sessions}`, resumed: false, server: { name: 'broken', version: '0', model: { name: 'none', offline: true } }, limits: { maxMessageBytes: 1 << 20, maxInFlight: 8, invokeTimeoutMs: 30_000 } });
          send({ type: 'toolGroupState', collapsing: true, groups: [{ name: 'ConformanceFiles', description: 'x', expanded: false, containerName: 'ConformanceFiles', tools: [{ name: 'ReadFile', visible: false, requiresPermission: false }], skills: [] }] });
        } else if (message?.type === 'userMessage' && message.threadId) {
          // A backend whose model never calls a tool: the model-dependent checks must be skipped, not failed.
          send({ type: 'runStarted', threadId: message.threadId, runId: 'run-1', model: 'none' });
          send({ type: 'textDelta', threadId: message.threadId, runId: 'run-1', text: 'I do not use tools.' });
          send({ type: 'runFinished', threadId: message.threadId, runId: 'run-1', reason: 'completed' });
        } else if (faults.wrongCodes) {
          send({ type: 'error', code: 'INTERNAL', message: 'something went wrong' });
        }
      });
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `ws://127.0.0.1:${(server.address() as AddressInfo).port}`,
    token,
    async close() {
      for (const c of wss.clients) c.terminate();
      wss.close();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
