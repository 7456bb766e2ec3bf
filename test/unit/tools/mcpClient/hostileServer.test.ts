/**
 * The supervisor and group against MCP servers built with the official SDK's server classes that
 * behave badly or change: hostile tool lists (too many, colliding or over-long names, backtracking
 * patterns, schemas that do not compile, huge descriptions), a malformed `tools/list`, a tool list
 * that changes (`notifications/tools/list_changed`), an `isError` result and a call the backend
 * cancels (the server sees `notifications/cancelled`).
 */
import * as assert from 'node:assert/strict';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import { CallToolRequestSchema, ListToolsRequestSchema } from '@modelcontextprotocol/sdk/types.js';
import { z } from 'zod';
import { silentLogger } from '../../../../src/base/logger';
import { CodedError } from '../../../../src/protocol';
import { ToolRegistry } from '../../../../src/core/registry';
import type { McpServerConfig } from '../../../../src/tools/mcpClient/config';
import { buildMcpGroup } from '../../../../src/tools/mcpClient/group';
import { McpServerSupervisor, type McpServerState } from '../../../../src/tools/mcpClient/supervisor';

const CONFIG: McpServerConfig = { name: 'hostile', source: { kind: 'user' }, launch: { type: 'stdio', command: 'unused', args: [], env: {} } };

function waitFor(supervisor: McpServerSupervisor, pred: (s: McpServerState) => boolean, seconds = 10): Promise<McpServerState> {
  if (pred(supervisor.state)) return Promise.resolve(supervisor.state);
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`state stayed ${JSON.stringify(supervisor.state).slice(0, 300)}`)), seconds * 1000);
    const sub = supervisor.onDidChangeState((s) => {
      if (!pred(s)) return;
      clearTimeout(timer);
      sub.dispose();
      resolve(s);
    });
  });
}

/** A supervisor whose every (re)start connects to a fresh server made by `makeServer`, in memory. */
function supervise(makeServer: () => Server | McpServer, options: { maxAttempts?: number } = {}): McpServerSupervisor {
  return new McpServerSupervisor(CONFIG, silentLogger, {
    initialDelayMs: 20,
    maxDelayMs: 50,
    ...options,
    makeTransport: () => {
      const [client, server] = InMemoryTransport.createLinkedPair();
      void makeServer().connect(server);
      return client;
    },
  });
}

async function codeOf(p: Promise<unknown>): Promise<string> {
  try {
    await p;
  } catch (e) {
    assert.ok(e instanceof CodedError, String(e));
    return `${e.code}: ${e.message}`;
  }
  return 'no error';
}

describe('MCP servers: hostile and changing servers', () => {
  let supervisor: McpServerSupervisor | undefined;
  afterEach(async () => supervisor?.stop());

  it('a hostile tool list becomes a group the registry accepts: at most 512 tools, unique valid names, schemas that compile, clipped descriptions', async () => {
    const tools = [
      { name: 'a.b', inputSchema: { type: 'object' } },
      { name: 'a_b', inputSchema: { type: 'object' } },
      { name: 'ü-tool', inputSchema: { type: 'object' } },
      { name: 'x'.repeat(300), inputSchema: { type: 'object' } },
      { name: 'backtrack', inputSchema: { type: 'object', properties: { p: { type: 'string', pattern: '^(a+)+$' } } } },
      { name: 'broken', inputSchema: { type: 'object', properties: { p: { type: 'strin' } } } },
      { name: 'huge', description: `${'d'.repeat(50_000)} [click](command:workbench.action.terminal.new)`, inputSchema: { type: 'object' } },
      ...Array.from({ length: 600 }, (_, i) => ({ name: `t${i}`, inputSchema: { type: 'object' } })),
    ];
    supervisor = supervise(() => {
      const server = new Server({ name: 'hostile', version: '1' }, { capabilities: { tools: {} } });
      server.setRequestHandler(ListToolsRequestSchema, () => ({ tools }));
      return server;
    });
    supervisor.start();
    const running = await waitFor(supervisor, (s) => s.kind === 'running');
    assert.ok(running.kind === 'running');
    assert.equal(running.tools.length, 512, 'the list is capped where the protocol caps a group');

    const built = buildMcpGroup('hostile', running.tools, () => Promise.resolve([]), () => false);
    const registry = new ToolRegistry();
    registry.register(built.group, built.tools);
    const names = built.tools.map((t) => t.name);
    assert.equal(new Set(names).size, names.length);
    for (const n of names) assert.match(n, /^[A-Za-z0-9_-]{1,64}$/);
    assert.notEqual(names[0], names[1], '"a.b" and "a_b" do not collide');
    // A backtracking pattern is compiled on RE2 (linear), so a long near-miss returns at once.
    const backtrack = names[4]!;
    assert.equal(registry.validateArguments(backtrack, { p: 'a'.repeat(50_000) }), undefined);
    assert.match(registry.validateArguments(backtrack, { p: `${'a'.repeat(50_000)}!` }) ?? '', /must match pattern/);
    // A schema that does not compile falls back to any object.
    assert.deepEqual(registry.get(names[5]!)?.tool.parameters, { type: 'object' });
    assert.ok((registry.get(names[6]!)?.tool.description.length ?? 0) <= 2000);
    registry.dispose();
  });

  it('a malformed tools/list is a failed start with the reason, not a crash', async () => {
    supervisor = supervise(() => {
      const server = new Server({ name: 'hostile', version: '1' }, { capabilities: { tools: {} } });
      server.setRequestHandler(ListToolsRequestSchema, () => ({ tools: [{ name: 42 }] }) as never);
      return server;
    }, { maxAttempts: 2 });
    supervisor.start();
    const failed = await waitFor(supervisor, (s) => s.kind === 'failed');
    assert.ok(failed.kind === 'failed');
    assert.match(failed.reason, /could not start/);
  });

  it('lists the tools again on notifications/tools/list_changed', async () => {
    let server: McpServer | undefined;
    supervisor = supervise(() => {
      server = new McpServer({ name: 'changing', version: '1' });
      server.registerTool('first', { description: 'the first tool', inputSchema: {} }, () => ({ content: [{ type: 'text', text: '1' }] }));
      return server;
    });
    supervisor.start();
    await waitFor(supervisor, (s) => s.kind === 'running' && s.tools.length === 1);
    server!.registerTool('second', { description: 'added later', inputSchema: { n: z.number() } }, () => ({ content: [{ type: 'text', text: '2' }] }));
    const updated = await waitFor(supervisor, (s) => s.kind === 'running' && s.tools.length === 2);
    assert.ok(updated.kind === 'running');
    assert.deepEqual(updated.tools.map((t) => t.name), ['first', 'second']);
  });

  it('an isError result is TOOL_FAILED with the server text; a cancelled call is CANCELLED and the server sees the cancellation', async () => {
    let serverSawAbort = false;
    supervisor = supervise(() => {
      const server = new Server({ name: 'slow', version: '1' }, { capabilities: { tools: {} } });
      server.setRequestHandler(ListToolsRequestSchema, () => ({ tools: [{ name: 'fail', inputSchema: { type: 'object' } }, { name: 'slow', inputSchema: { type: 'object' } }] }));
      server.setRequestHandler(CallToolRequestSchema, (request, extra) => {
        if (request.params.name === 'fail') return { isError: true, content: [{ type: 'text', text: 'the disk is full' }] };
        return new Promise((resolve) => {
          extra.signal.addEventListener('abort', () => {
            serverSawAbort = true;
            resolve({ content: [] });
          });
        });
      });
      return server;
    });
    supervisor.start();
    await waitFor(supervisor, (s) => s.kind === 'running');
    assert.equal(await codeOf(supervisor.callTool('fail', {}, new AbortController().signal)), 'TOOL_FAILED: the disk is full');

    const controller = new AbortController();
    const call = supervisor.callTool('slow', {}, controller.signal);
    setTimeout(() => controller.abort(), 100);
    assert.equal(await codeOf(call), 'CANCELLED: the call to slow was cancelled');
    const end = Date.now() + 5000;
    while (!serverSawAbort && Date.now() < end) await new Promise((r) => setTimeout(r, 20));
    assert.ok(serverSawAbort, 'the server never learned of the cancellation');
  });

  it('a call while the server is restarting fails at once with TOOL_FAILED', async () => {
    supervisor = new McpServerSupervisor(CONFIG, silentLogger, { initialDelayMs: 60_000, maxDelayMs: 60_000, makeTransport: () => {
      const [client] = InMemoryTransport.createLinkedPair();
      return client;
    }, startTimeoutMs: 200 });
    supervisor.start();
    await waitFor(supervisor, (s) => s.kind === 'restarting');
    assert.match(await codeOf(supervisor.callTool('x', {}, new AbortController().signal)), /^TOOL_FAILED: MCP server hostile is not running right now \(restarting\)/);
  });
});
