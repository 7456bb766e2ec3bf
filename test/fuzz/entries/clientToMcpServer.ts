/**
 * Entry point: the editor's MCP server from an MCP client. Every request and notification a client
 * may send (the MCP SDK's `ClientRequestSchema` and `ClientNotificationSchema`, in the JSON-RPC
 * envelope of `JSONRPCRequestSchema`), a response to nothing, and for `tools/call` every position of
 * every listed tool's `inputSchema`, as raw HTTP POSTs with the token to the server in its own
 * process (hosts/mcpServerHost.ts). A case runs in an initialized session (an `initialize` case makes
 * its own and ends it); a `ping` after each case must be answered.
 */
import {
  ClientNotificationSchema,
  ClientRequestSchema,
  JSONRPCRequestSchema,
  JSONRPCResultResponseSchema,
  LATEST_PROTOCOL_VERSION,
} from '@modelcontextprotocol/sdk/types.js';
import type { z } from 'zod';
import { planCases, type MessagePlan } from '../support/plan';
import type { EntryDriver } from '../support/runner';
import { shapeOf, type Json, type JsonSchema, type Position, type Shape } from '../support/shape';
import { Target } from '../support/target';
import { zodShape } from '../support/zodShapes';

const BODY_LIMIT = 1024 * 1024;
const READ_LIMIT = 64 * 1024 * 1024;

interface Answer {
  status: number;
  /** JSON-RPC messages in the answer (a JSON body or the events of an SSE stream). */
  messages: { id?: unknown; result?: unknown; error?: { code?: number } }[];
  session?: string;
}

export function clientToMcpServer(): EntryDriver {
  let url = '';
  let token = '';
  let session: string | undefined;
  let serial = 0;

  async function post(body: string, sessionId: string | undefined): Promise<Answer> {
    const res = await fetch(url, {
      method: 'POST',
      headers: {
        authorization: `Bearer ${token}`,
        'content-type': 'application/json',
        accept: 'application/json, text/event-stream',
        'mcp-protocol-version': LATEST_PROTOCOL_VERSION,
        ...(sessionId ? { 'mcp-session-id': sessionId } : {}),
      },
      body,
    });
    const text = await readCapped(res);
    const messages = (res.headers.get('content-type') ?? '').includes('text/event-stream')
      ? text.split('\n').filter((l) => l.startsWith('data:')).map((l) => safeJson(l.slice(5)))
      : [safeJson(text)];
    return { status: res.status, messages: messages.filter((m): m is Answer['messages'][number] => m !== undefined && typeof m === 'object'), session: res.headers.get('mcp-session-id') ?? undefined };
  }

  async function initialize(): Promise<string> {
    const init = await post(JSON.stringify({ jsonrpc: '2.0', id: 0, method: 'initialize', params: { protocolVersion: LATEST_PROTOCOL_VERSION, capabilities: {}, clientInfo: { name: 'fuzzer', version: '0' } } }), undefined);
    if (!init.session) throw new Error(`initialize: HTTP ${init.status}`);
    await post(JSON.stringify({ jsonrpc: '2.0', method: 'notifications/initialized' }), init.session);
    return init.session;
  }

  async function close(sessionId: string): Promise<void> {
    await fetch(url, { method: 'DELETE', headers: { authorization: `Bearer ${token}`, 'mcp-session-id': sessionId, 'mcp-protocol-version': LATEST_PROTOCOL_VERSION } }).then((r) => r.arrayBuffer()).catch(() => undefined);
  }

  /** A ping in the fuzzer's session is answered (making a new session if the case ended the old one). */
  async function barrier(): Promise<string> {
    for (let attempt = 0; attempt < 2; attempt++) {
      session ??= await initialize();
      const pong = await post(JSON.stringify({ jsonrpc: '2.0', id: `ping-${++serial}`, method: 'ping' }), session);
      if (pong.status === 200 && pong.messages.some((m) => m.result !== undefined)) return 'then a ping was answered';
      session = undefined;
    }
    return 'no ping was answered afterwards';
  }

  async function listTools(): Promise<{ name: string; inputSchema: JsonSchema }[]> {
    session ??= await initialize();
    const answer = await post(JSON.stringify({ jsonrpc: '2.0', id: 'list', method: 'tools/list' }), session);
    const result = answer.messages.find((m) => m.id === 'list')?.result as { tools?: { name: string; inputSchema: JsonSchema }[] } | undefined;
    return result?.tools ?? [];
  }

  return {
    name: 'editor MCP server from an MCP client',
    async start() {
      const target = await Target.start('mcpServerHost.ts', {});
      url = String(target.info.url);
      token = String(target.info.token);
      session = undefined;
      return target;
    },
    async cases() {
      const envelope = zodShape(JSONRPCRequestSchema as unknown as z.ZodType);
      const plans: MessagePlan[] = [];
      const message = (method: string, shape: Shape, request: boolean): MessagePlan => ({ message: method, shape: enveloped(envelope, shape, request), limit: BODY_LIMIT });
      for (const schema of (ClientRequestSchema as unknown as { options: z.ZodType[] }).options) {
        const shape = zodShape(schema);
        plans.push(message(methodOf(shape), shape, true));
      }
      for (const schema of (ClientNotificationSchema as unknown as { options: z.ZodType[] }).options) {
        const shape = zodShape(schema);
        plans.push(message(methodOf(shape), shape, false));
      }
      plans.push({ message: 'response to nothing', shape: zodShape(JSONRPCResultResponseSchema as unknown as z.ZodType), limit: BODY_LIMIT });
      const call = plans.find((p) => p.message === 'tools/call');
      const tools = await listTools();
      if (!call || tools.length === 0) throw new Error('no tools/call schema, or the server listed no tools');
      for (const tool of tools) plans.push(toolCallPlan(call, tool.name, tool.inputSchema));
      return planCases('editor MCP server from an MCP client', plans);
    },
    async run(c, target) {
      session ??= await initialize();
      const initializing = c.message === 'initialize';
      const answer = await post(c.text((s) => ({ ...(s as object), ...('id' in (s as object) ? { id: ++serial } : {}) })), initializing ? undefined : session);
      if (answer.session && initializing) await close(answer.session);
      const error = answer.messages.find((m) => m.error)?.error;
      const what = `HTTP ${answer.status}${error ? ` error ${error.code}` : answer.messages.some((m) => m.result !== undefined) ? ' result' : ''}`;
      const after = await barrier();
      await target.request('flush');
      return `${what}; ${after}`;
    },
    async stop() {},
  };
}

/** A request's or notification's shape inside the JSON-RPC envelope: `jsonrpc`, and `id` for requests (its positions from the envelope's schema). */
function enveloped(envelope: Shape, member: Shape, request: boolean): Shape {
  const sample = { jsonrpc: '2.0', ...(request ? { id: 1 } : {}), ...(member.sample as object) } as Json;
  const idPositions = request ? envelope.positions.filter((p) => p.path[0] === 'id') : [];
  return { sample, positions: [...member.positions, ...idPositions] };
}

/** `tools/call` for one tool: its name fixed, the positions of its `inputSchema` under `params.arguments`. */
function toolCallPlan(call: MessagePlan, name: string, inputSchema: JsonSchema): MessagePlan {
  const args = shapeOf(inputSchema);
  const at = ['params', 'arguments'];
  const under = (p: Position): Position => ({
    ...p,
    path: [...at, ...p.path],
    label: p.label === '(root)' ? 'params.arguments' : `params.arguments.${p.label}`,
    variants: p.variants.map((v) => ({ ...v, path: [...at, ...v.path] })),
  });
  const base = call.shape.sample as { params?: object };
  const sample = { ...base, params: { ...base.params, name, arguments: args.sample } } as Json;
  return { message: `tools/call ${name}`, shape: { sample, positions: args.positions.map(under) }, limit: call.limit };
}

function methodOf(shape: Shape): string {
  const method = (shape.sample as { method?: unknown }).method;
  return typeof method === 'string' ? method : '?';
}

async function readCapped(res: Response): Promise<string> {
  const reader = res.body?.getReader();
  if (!reader) return '';
  const chunks: Uint8Array[] = [];
  let total = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    total += value.byteLength;
    if (total > READ_LIMIT) {
      await reader.cancel();
      break;
    }
    chunks.push(value);
  }
  return Buffer.concat(chunks).toString('utf8');
}

function safeJson(text: string): Answer['messages'][number] | undefined {
  try {
    return JSON.parse(text) as Answer['messages'][number];
  } catch {
    return undefined;
  }
}
