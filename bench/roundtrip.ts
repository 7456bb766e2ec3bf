/**
 * 1. One tool call through the full stack, against baselines measured in the same run:
 *    raw `ws` with the same request/response bytes and no processing, vscode-jsonrpc over TCP
 *    (Nagle off), and the MCP TypeScript SDK over its in-memory transport and over stateless
 *    Streamable HTTP on loopback.
 */
import { randomUUID } from 'node:crypto';
import * as http from 'node:http';
import * as net from 'node:net';
import type { AddressInfo } from 'node:net';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { createMessageConnection, SocketMessageReader, SocketMessageWriter, type MessageConnection } from 'vscode-jsonrpc/node';
import { WebSocket, WebSocketServer } from 'ws';
import { encode } from '../src/protocol';
import { noopTool, startStack, type Stack } from './lib/stack';
import { interleavedLatency, interleavedThroughput, median, percentile, type Subject } from './lib/stats';

export interface RoundTripResult {
  requestBytes: number;
  responseBytes: number;
  latency: Record<string, { medianUs: number; p99Us: number; samples: number }>;
  callsPerSecond: Record<string, Record<number, number>>;
}

const OK_CONTENT = [{ type: 'text' as const, text: 'ok' }];

/** The bytes the full stack sends each way for one Noop call (ids are UUIDs, so the size is fixed). */
function wireBytes(): { request: Buffer; response: Buffer } {
  const requestId = `req_${randomUUID()}`;
  const request = encode({ type: 'clientToolInvokeRequest', requestId, toolName: 'Noop', callId: `call_${randomUUID()}`, arguments: {}, timeoutMs: 30_000 });
  const response = encode({ type: 'clientToolInvokeResponse', requestId, success: true, content: OK_CONTENT });
  return { request: Buffer.from(request.data), response: Buffer.from(response.data) };
}

export function fullStackSubject(stack: Stack, name = 'client-tools (full stack)'): Subject {
  return {
    name,
    async call() {
      const r = await stack.backend.invokeClientTool(stack.sessionId, 'Noop', {});
      if (r.outcome !== 'succeeded') throw new Error(`Noop ended ${r.outcome}: ${r.errorCode} ${r.errorMessage}`);
    },
    close: () => stack.close(),
  };
}

/**
 * Server sends the request bytes; the client answers each with the response bytes. In-order, so a
 * FIFO pairs them. `masked`: the client masks its frames with random keys (ws's default); without
 * it, with a zero key as the extension's client does on loopback, so the comparison is like for like.
 */
export async function rawWsSubject(name: string, request: Buffer, response: Buffer | ((data: Buffer) => Buffer | string), onAnswer: (data: Buffer, isBinary: boolean) => void = () => {}, binaryResponse = false, masked = false): Promise<Subject> {
  const wss = new WebSocketServer({ host: '127.0.0.1', port: 0, perMessageDeflate: false, maxPayload: 64 * 1024 * 1024 });
  await new Promise<void>((resolve) => wss.once('listening', () => resolve()));
  const port = (wss.address() as AddressInfo).port;
  const serverSide = new Promise<WebSocket>((resolve) => wss.once('connection', (ws) => resolve(ws)));
  const client = new WebSocket(`ws://127.0.0.1:${port}`, { perMessageDeflate: false, maxPayload: 64 * 1024 * 1024, ...(masked ? {} : { generateMask: (mask: Buffer) => mask.fill(0) }) });
  client.on('message', (data: Buffer) => {
    const answer = typeof response === 'function' ? response(data) : response;
    client.send(answer, { binary: binaryResponse });
  });
  await new Promise<void>((resolve, reject) => {
    client.once('open', () => resolve());
    client.once('error', reject);
  });
  const server = await serverSide;
  const waiting: (() => void)[] = [];
  server.on('message', (data: Buffer, isBinary: boolean) => {
    onAnswer(data, isBinary);
    waiting.shift()?.();
  });
  return {
    name,
    call: () =>
      new Promise<void>((resolve) => {
        waiting.push(resolve);
        server.send(request, { binary: false });
      }),
    async close() {
      client.terminate();
      await new Promise<void>((resolve) => wss.close(() => resolve()));
    },
  };
}

async function jsonRpcSubject(): Promise<Subject> {
  let answering: MessageConnection | undefined;
  const server = net.createServer((socket) => {
    socket.setNoDelay(true);
    answering = createMessageConnection(new SocketMessageReader(socket), new SocketMessageWriter(socket));
    answering.onRequest('clientToolInvoke', () => ({ success: true, content: OK_CONTENT }));
    answering.listen();
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const socket = net.connect((server.address() as AddressInfo).port, '127.0.0.1');
  socket.setNoDelay(true);
  await new Promise<void>((resolve) => socket.once('connect', () => resolve()));
  const caller = createMessageConnection(new SocketMessageReader(socket), new SocketMessageWriter(socket));
  caller.listen();
  return {
    name: 'vscode-jsonrpc over TCP',
    call: () => caller.sendRequest('clientToolInvoke', { requestId: `req_${randomUUID()}`, toolName: 'Noop', callId: `call_${randomUUID()}`, arguments: {}, timeoutMs: 30_000 }),
    async close() {
      caller.dispose();
      answering?.dispose();
      socket.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

function mcpServer(): McpServer {
  const server = new McpServer({ name: 'bench', version: '1.0.0' });
  server.registerTool('Noop', { description: 'Does nothing and answers ok.', inputSchema: {} }, async () => ({ content: OK_CONTENT }));
  return server;
}

async function mcpMemorySubject(): Promise<Subject> {
  const server = mcpServer();
  const [clientTransport, serverTransport] = InMemoryTransport.createLinkedPair();
  await server.connect(serverTransport);
  const client = new Client({ name: 'bench', version: '1.0.0' });
  await client.connect(clientTransport);
  return {
    name: 'MCP SDK, in-memory',
    call: () => client.callTool({ name: 'Noop', arguments: {} }),
    async close() {
      await client.close();
      await server.close();
    },
  };
}

/** Stateless Streamable HTTP as the SDK's own example does it: a new server and transport per request. */
async function mcpHttpSubject(): Promise<Subject> {
  const httpServer = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      void (async () => {
        const server = mcpServer();
        const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: undefined });
        res.on('close', () => {
          void transport.close();
          void server.close();
        });
        await server.connect(transport);
        const body: unknown = chunks.length ? JSON.parse(Buffer.concat(chunks).toString('utf8')) : undefined;
        await transport.handleRequest(req, res, body);
      })().catch((e: unknown) => {
        if (!res.headersSent) res.writeHead(500).end(String(e));
      });
    });
  });
  await new Promise<void>((resolve) => httpServer.listen(0, '127.0.0.1', resolve));
  const url = new URL(`http://127.0.0.1:${(httpServer.address() as AddressInfo).port}/mcp`);
  const client = new Client({ name: 'bench', version: '1.0.0' });
  // The transport hands its one AbortSignal to every fetch, and undici ties each request to it until
  // the request is garbage-collected: thousands of calls between collections printed about 1,600
  // MaxListenersExceededWarnings. This baseline never aborts a request, so its requests go without
  // the signal (fewer listeners to add makes it a little faster, never slower).
  await client.connect(new StreamableHTTPClientTransport(url, { fetch: (input, init) => fetch(input, { ...init, signal: undefined }) }));
  return {
    name: 'MCP SDK, Streamable HTTP (stateless)',
    call: () => client.callTool({ name: 'Noop', arguments: {} }),
    async close() {
      await client.close();
      httpServer.closeAllConnections();
      await new Promise<void>((resolve) => httpServer.close(() => resolve()));
    },
  };
}

export async function benchRoundTrip(options: { quick: boolean }): Promise<RoundTripResult> {
  const { request, response } = wireBytes();
  const stack = await startStack([noopTool]);
  const full = fullStackSubject(stack);
  const raw = await rawWsSubject('raw ws, same bytes', request, response);
  const subjects = [full, raw, await jsonRpcSubject(), await mcpMemorySubject()];
  const http = await mcpHttpSubject();
  try {
    const rounds = options.quick ? 2 : 5;
    const latency = await interleavedLatency(subjects, rounds, options.quick ? 300 : 1000, options.quick ? 300 : 1000);
    // HTTP is ~50x slower; fewer samples keep the run short without changing its median.
    const httpLatency = await interleavedLatency([http], rounds, options.quick ? 50 : 150, 50);
    for (const [k, v] of httpLatency) latency.set(k, v);

    const callsPerSecond: Record<string, Record<number, number>> = {};
    for (const inFlight of [1, 16, 64]) {
      const total = (s: Subject) => (s === http ? (options.quick ? 300 : 800) : options.quick ? 3000 : 10_000);
      const rates = await interleavedThroughput([...subjects, http], inFlight, options.quick ? 2 : 3, total);
      for (const [name, rate] of rates) (callsPerSecond[name] ??= {})[inFlight] = rate;
    }
    return {
      requestBytes: request.length,
      responseBytes: response.length,
      latency: Object.fromEntries([...latency].map(([k, v]) => [k, { medianUs: median(v), p99Us: percentile(v, 99), samples: v.length }])),
      callsPerSecond,
    };
  } finally {
    for (const s of [...subjects, http]) await s.close();
  }
}
