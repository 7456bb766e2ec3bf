/** The loopback HTTP server every fake model endpoint runs on: port 0, every socket closed on close. */
import * as http from 'node:http';
import type { AddressInfo, Socket } from 'node:net';

export interface LoopbackServer {
  readonly port: number;
  close(): Promise<void>;
}

export async function listenLoopback(handler: (req: http.IncomingMessage, res: http.ServerResponse) => void): Promise<LoopbackServer> {
  const sockets = new Set<Socket>();
  const server = http.createServer(handler);
  server.on('connection', (s: Socket) => {
    sockets.add(s);
    s.on('close', () => sockets.delete(s));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    port: (server.address() as AddressInfo).port,
    close: () => new Promise<void>((resolve) => {
      server.close(() => resolve());
      for (const s of sockets) s.destroy();
    }),
  };
}

export function sendJson(res: http.ServerResponse, status: number, value: unknown): void {
  res.writeHead(status, { 'Content-Type': 'application/json' });
  res.end(JSON.stringify(value));
}

/** Starts a server-sent-events answer; `send` writes one `data:` event (with an `event:` line when named). */
export function startSse(res: http.ServerResponse): (data: unknown, event?: string) => void {
  res.writeHead(200, { 'Content-Type': 'text/event-stream', 'Cache-Control': 'no-cache', Connection: 'keep-alive' });
  return (data, event) => {
    res.write(`${event !== undefined ? `event: ${event}\n` : ''}data: ${JSON.stringify(data)}\n\n`);
  };
}
