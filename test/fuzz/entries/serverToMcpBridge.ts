/**
 * Entry point: the bridge to the user's MCP servers from an MCP server. The extension's bridged
 * client runs in its own process (hosts/mcpBridgeHost.ts) and starts a real server process over
 * stdio (hosts/mcpRelay.mjs) whose lines the fuzzer writes: the answers to `initialize`,
 * `tools/list` (tool schemas included) and `tools/call` (every content type), and every request and
 * notification a server may send (the MCP SDK's `InitializeResultSchema`, `ListToolsResultSchema`,
 * `CallToolResultSchema`, `ServerRequestSchema`, `ServerNotificationSchema`). After each case a
 * call of the server's tool must be answered, with the tool list put back first when a case
 * changed it.
 */
import * as net from 'node:net';
import type { AddressInfo } from 'node:net';
import {
  CallToolResultSchema,
  InitializeResultSchema,
  LATEST_PROTOCOL_VERSION,
  ListToolsResultSchema,
  ServerNotificationSchema,
  ServerRequestSchema,
} from '@modelcontextprotocol/sdk/types.js';
import type { z } from 'zod';
import { MAX_MESSAGE_BYTES } from '../../../src/tools/mcpClient/supervisor';
import { planCases, type MessagePlan, type PlannedCase } from '../support/plan';
import type { EntryDriver } from '../support/runner';
import type { Json, Position, Shape } from '../support/shape';
import { Target } from '../support/target';
import { zodShape } from '../support/zodShapes';

/** Values fill a message up to the longest a server's line may be; a longer one is skipped unread (lineBuffer.ts). */
const MESSAGE_LIMIT = MAX_MESSAGE_BYTES;
export const TOOL = 'mcp_fuzz_echo';
const VALID_TOOLS = { tools: [{ name: 'echo', description: 'Echoes.', inputSchema: { type: 'object' } }] };
const VALID_RESULT = { content: [{ type: 'text', text: 'echo' }] };

interface HostState {
  kind?: string;
  changes: number;
  /** Lines of the server's the transport dropped unread (a request they answered waits on). */
  dropped: number;
  /** Warnings and errors the bridge logged (a tools list refused). */
  warnings: number;
  tools: number;
}

/** The fuzzer's end of the relay: newline-delimited JSON-RPC, answering the client's requests with what a case set. */
export class ServerSide {
  private socket: net.Socket | undefined;
  private buffered = '';
  private readonly answers = new Map<string, (line: Record<string, unknown>) => void>();
  /** The raw answer (with `id` to fill) the next request of a method gets, once. */
  readonly pending = new Map<string, (id: unknown) => string>();
  /** Resolves when the next request of a method was answered. */
  private readonly answered = new Map<string, () => void>();
  /** The id of the last request of each method. */
  private readonly lastId = new Map<string, unknown>();

  private constructor(readonly server: net.Server) {
    server.on('connection', (socket) => {
      this.socket?.destroy();
      this.socket = socket;
      this.buffered = '';
      socket.setEncoding('utf8');
      socket.on('data', (chunk: string) => this.onData(socket, chunk));
      socket.on('error', () => {});
    });
  }

  static async start(): Promise<ServerSide> {
    const server = net.createServer();
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    return new ServerSide(server);
  }

  get port(): number {
    return (this.server.address() as AddressInfo).port;
  }

  write(text: string): void {
    this.socket?.write(`${text}\n`);
  }

  /** The client's answer to our request `id`, or undefined after `timeoutMs`. */
  answerTo(id: string, timeoutMs = 5_000): Promise<Record<string, unknown> | undefined> {
    return new Promise((resolve) => {
      const timer = setTimeout(() => (this.answers.delete(id), resolve(undefined)), timeoutMs);
      this.answers.set(id, (m) => (clearTimeout(timer), resolve(m)));
    });
  }

  /** Resolves true once a request of `method` was answered (false after `timeoutMs`). */
  requestAnswered(method: string, timeoutMs = 5_000): Promise<boolean> {
    return new Promise((resolve) => {
      const timer = setTimeout(() => (this.answered.delete(method), resolve(false)), timeoutMs);
      this.answered.set(method, () => (clearTimeout(timer), resolve(true)));
    });
  }

  /** Answers the last request of `method` again, validly (after the client dropped a hostile answer unread, it still waits on it). */
  answerAgain(method: string): void {
    if (this.lastId.has(method)) this.write(JSON.stringify({ jsonrpc: '2.0', id: this.lastId.get(method), result: validResult(method) }));
  }

  /** Forgets hostile answers a case set and no request took. */
  clear(): void {
    this.pending.clear();
  }

  async close(): Promise<void> {
    this.socket?.destroy();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }

  private onData(socket: net.Socket, chunk: string): void {
    if (socket !== this.socket) return;
    this.buffered += chunk;
    let newline: number;
    while ((newline = this.buffered.indexOf('\n')) >= 0) {
      const line = this.buffered.slice(0, newline);
      this.buffered = this.buffered.slice(newline + 1);
      let m: Record<string, unknown>;
      try {
        m = JSON.parse(line) as Record<string, unknown>;
      } catch {
        continue;
      }
      if (typeof m.method === 'string' && m.id !== undefined) this.onRequest(m.method, m.id);
      else if (m.id !== undefined) this.answers.get(String(m.id))?.(m);
    }
  }

  private onRequest(method: string, id: unknown): void {
    const hostile = this.pending.get(method);
    this.pending.delete(method);
    this.lastId.set(method, id);
    this.write(hostile ? hostile(id) : JSON.stringify({ jsonrpc: '2.0', id, result: validResult(method) }));
    const done = this.answered.get(method);
    this.answered.delete(method);
    done?.();
  }
}

function validResult(method: string): unknown {
  if (method === 'initialize') return { protocolVersion: LATEST_PROTOCOL_VERSION, capabilities: { tools: { listChanged: true } }, serverInfo: { name: 'fuzz', version: '0' } };
  return method === 'tools/list' ? VALID_TOOLS : method === 'tools/call' ? VALID_RESULT : {};
}

export function serverToMcpBridge(): EntryDriver {
  let side: ServerSide | undefined;
  let serial = 0;

  const state = (t: Target) => t.request<HostState>('state');

  async function until(t: Target, check: (s: HostState) => boolean, timeoutMs = 10_000): Promise<HostState> {
    const deadline = Date.now() + timeoutMs;
    let s = await state(t);
    while (!check(s) && Date.now() < deadline) {
      await new Promise((r) => setTimeout(r, 20));
      s = await state(t);
    }
    return s;
  }

  /** The server's one tool is registered and a call of it is answered; puts the tool list back (or restarts the server) when a case changed it. */
  async function barrier(t: Target, s: ServerSide): Promise<string> {
    let now = await state(t);
    if (now.kind === 'running' && now.tools !== 1) {
      const relisted = s.requestAnswered('tools/list');
      s.write(JSON.stringify({ jsonrpc: '2.0', method: 'notifications/tools/list_changed' }));
      await relisted;
      now = await until(t, (x) => x.tools === 1, 5_000);
    }
    if (now.kind !== 'running' || now.tools !== 1) {
      await t.request('restart');
      now = await until(t, (x) => x.kind === 'running' && x.tools === 1);
    }
    const answer = await t.request<string>('call', { name: TOOL, args: {} }, 15_000).catch((e: Error) => `error ${e.message}`);
    return answer === 'answered' ? 'then a call was answered' : `then a call: ${answer}`;
  }

  /** True when the bridge dropped a line of the server's unread (since `before`) before `outcome` settled. */
  async function droppedBefore(t: Target, before: HostState, outcome: Promise<unknown>): Promise<boolean> {
    let settled = false;
    const done = () => void (settled = true);
    outcome.then(done, done);
    while (!settled) {
      if ((await state(t)).dropped > before.dropped) return true;
      await new Promise((r) => setTimeout(r, 20));
    }
    return false;
  }

  const asResult = (c: PlannedCase) => (id: unknown) => c.text((x) => ({ ...(x as object), id: id as Json }));

  const scenarios: Record<string, (c: PlannedCase, s: ServerSide, t: Target) => Promise<string>> = {
    async 'initialize result'(c, s, t) {
      s.pending.set('initialize', asResult(c));
      const before = await state(t);
      const answered = s.requestAnswered('initialize');
      await t.request('restart');
      await answered;
      // Dealt with: the start went on (or failed), or the answer was dropped unread; then the start
      // still waits on it, and a valid answer lets it go on.
      let after = await until(t, (x) => (x.changes > before.changes + 1 && x.kind !== 'starting') || x.dropped > before.dropped, 5_000);
      if (after.kind === 'starting' && after.dropped > before.dropped) {
        s.answerAgain('initialize');
        after = await until(t, (x) => x.kind !== 'starting', 5_000);
        return `answer dropped unread; server ${after.kind} with ${after.tools} tools`;
      }
      return `server ${after.kind} with ${after.tools} tools`;
    },
    async 'tools/list result'(c, s, t) {
      s.pending.set('tools/list', asResult(c));
      const before = await state(t);
      const answered = s.requestAnswered('tools/list');
      s.write(JSON.stringify({ jsonrpc: '2.0', method: 'notifications/tools/list_changed' }));
      await answered;
      // Dealt with: a new list, a list refused (a warning), or the answer dropped unread; then the
      // re-list still waits on it, and a valid answer ends it.
      let after = await until(t, (x) => x.changes > before.changes || x.warnings > before.warnings || x.dropped > before.dropped, 5_000);
      if (after.changes === before.changes && after.dropped > before.dropped) {
        s.answerAgain('tools/list');
        after = await until(t, (x) => x.changes > before.changes, 5_000);
        return `answer dropped unread; server ${after.kind} with ${after.tools} tools`;
      }
      return `server ${after.kind} with ${after.tools} tools`;
    },
    async 'tools/call result'(c, s, t) {
      s.pending.set('tools/call', asResult(c));
      const before = await state(t);
      const call = t.request<string>('call', { name: TOOL, args: {} }, 15_000).catch((e: Error) => `error ${e.message}`);
      // An answer dropped unread leaves the call waiting: a valid answer to it ends it.
      if (!(await droppedBefore(t, before, call))) return call;
      s.answerAgain('tools/call');
      return `answer dropped unread; then ${await call}`;
    },
  };

  /** A request of the server's: its answer, or the line dropped unread (then nothing will answer it). */
  async function request(c: PlannedCase, s: ServerSide, t: Target): Promise<string> {
    const id = `q${++serial}`;
    const before = await state(t);
    const answer = s.answerTo(id);
    s.write(c.text((x) => ({ ...(x as object), id })));
    if (await droppedBefore(t, before, answer)) return 'dropped unread';
    const m = await answer;
    return m ? ('error' in m ? `error ${(m.error as { code?: number }).code}` : 'result') : 'no answer';
  }

  return {
    name: 'bridged MCP client from an MCP server',
    async start() {
      side ??= await ServerSide.start();
      const target = await Target.start('mcpBridgeHost.ts', { port: side.port });
      await until(target, (x) => x.kind === 'running' && x.tools === 1, 30_000);
      return target;
    },
    cases() {
      const plans: MessagePlan[] = [
        resultPlan('initialize result', zodShape(InitializeResultSchema as unknown as z.ZodType)),
        resultPlan('tools/list result', zodShape(ListToolsResultSchema as unknown as z.ZodType)),
        resultPlan('tools/call result', zodShape(CallToolResultSchema as unknown as z.ZodType)),
      ];
      for (const schema of (ServerRequestSchema as unknown as { options: z.ZodType[] }).options) plans.push(messagePlan(zodShape(schema), true));
      for (const schema of (ServerNotificationSchema as unknown as { options: z.ZodType[] }).options) plans.push(messagePlan(zodShape(schema), false));
      return planCases('bridged MCP client from an MCP server', plans);
    },
    async run(c, target) {
      const s = side as ServerSide;
      s.clear();
      const scenario = scenarios[c.message];
      let what: string;
      if (scenario) what = await scenario(c, s, target);
      else if (c.message.startsWith('request ')) what = await request(c, s, target);
      else {
        s.write(c.text());
        what = 'sent';
      }
      return `${what}; ${await barrier(target, s)}`;
    },
    async stop() {
      await side?.close();
      side = undefined;
    },
  };
}

/** A JSON-RPC response carrying a result of `shape`: its positions under `result`. */
function resultPlan(message: string, shape: Shape): MessagePlan {
  const under = (p: Position): Position => ({
    ...p,
    path: ['result', ...p.path],
    label: p.label === '(root)' ? 'result' : `result.${p.label}`,
    variants: p.variants.map((v) => ({ ...v, path: ['result', ...v.path] })),
  });
  return { message, shape: { sample: { jsonrpc: '2.0', id: 0, result: shape.sample }, positions: shape.positions.map(under) }, limit: MESSAGE_LIMIT };
}

/** A request (with an id) or a notification the server sends. */
function messagePlan(shape: Shape, request: boolean): MessagePlan {
  const method = String((shape.sample as { method?: unknown }).method);
  return { message: `${request ? 'request' : 'notification'} ${method}`, shape: { sample: { jsonrpc: '2.0', ...(request ? { id: 0 } : {}), ...(shape.sample as object) }, positions: shape.positions }, limit: MESSAGE_LIMIT };
}
