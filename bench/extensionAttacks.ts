/**
 * 7b. Attacks on the extension's side, each process in its own process as the freeze-and-bloat
 * fuzzer runs it (test/fuzz/hosts/): the extension core from a hostile backend (a message over the
 * JSON limit the extension announces, and one just under it), the editor's MCP
 * server from a hostile MCP client, and the bridge to the user's MCP servers from a hostile server.
 * Each attack's process reports its own event-loop delay (perf_hooks.monitorEventLoopDelay); an
 * honest peer's operation (a call answered, a ping) is timed meanwhile. An attack is cut at the
 * same bound as the backend's, by killing its process.
 */
import { LATEST_PROTOCOL_VERSION } from '@modelcontextprotocol/sdk/types.js';
import type { ClientToolInvokeResponse } from '../src/protocol';
import { BACKEND_TOKEN, HostileBackend } from '../test/fuzz/support/hostileBackend';
import type { LoopDelay } from '../test/fuzz/support/hostAgent';
import { Target } from '../test/fuzz/support/target';
import { ServerSide, TOOL } from '../test/fuzz/entries/serverToMcpBridge';
import { MAX_JSON_BYTES } from '../src/core/clientCore';
import { MAX_MESSAGE_BYTES } from '../src/tools/mcpClient/supervisor';
import { ATTACK_BOUND_MS, type AttackResult } from './attacks';

interface ExtensionAttack {
  name: string;
  /** Sends the attack and, meanwhile, times the honest operation; resolves with what the process did and that time. */
  run(peer: Peer): Promise<{ outcome: string; honestMs: number | undefined }>;
}

interface Peer {
  target: Target;
  backend?: HostileBackend;
  mcp?: { url: string; token: string };
  server?: ServerSide;
}

const members = (n: number) => `{${Array.from({ length: n }, (_, i) => `"k${i}":0`).join(',')}}`;

/** A call from the backend, answered: its time, or undefined when none came within the bound. */
async function echo(b: HostileBackend, requestId: string): Promise<number | undefined> {
  const t0 = performance.now();
  b.send({ type: 'clientToolInvokeRequest', requestId, toolName: 'Echo', callId: requestId, arguments: {} });
  const r = (await b.next((m) => m.type === 'clientToolInvokeResponse' && m.requestId === requestId, ATTACK_BOUND_MS)) as ClientToolInvokeResponse | undefined;
  return r ? performance.now() - t0 : undefined;
}

async function mcpPost(mcp: { url: string; token: string }, body: string, session?: string): Promise<{ status: number; session?: string }> {
  const res = await fetch(mcp.url, {
    method: 'POST',
    headers: { authorization: `Bearer ${mcp.token}`, 'content-type': 'application/json', accept: 'application/json, text/event-stream', 'mcp-protocol-version': LATEST_PROTOCOL_VERSION, ...(session ? { 'mcp-session-id': session } : {}) },
    body,
  });
  await res.arrayBuffer();
  return { status: res.status, session: res.headers.get('mcp-session-id') ?? undefined };
}

async function mcpSession(mcp: { url: string; token: string }): Promise<string> {
  const init = await mcpPost(mcp, JSON.stringify({ jsonrpc: '2.0', id: 0, method: 'initialize', params: { protocolVersion: LATEST_PROTOCOL_VERSION, capabilities: {}, clientInfo: { name: 'bench', version: '0' } } }));
  if (!init.session) throw new Error(`initialize: HTTP ${init.status}`);
  await mcpPost(mcp, JSON.stringify({ jsonrpc: '2.0', method: 'notifications/initialized' }), init.session);
  return init.session;
}

/** An honest MCP client's initialize and ping, timed. */
async function honestMcp(mcp: { url: string; token: string }): Promise<number | undefined> {
  const t0 = performance.now();
  try {
    const session = await mcpSession(mcp);
    const ping = await mcpPost(mcp, JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'ping' }), session);
    return ping.status === 200 ? performance.now() - t0 : undefined;
  } catch {
    return undefined;
  }
}

async function bridgedCall(t: Target): Promise<{ outcome: string; ms: number | undefined }> {
  const t0 = performance.now();
  const outcome = await t.request<string>('call', { name: TOOL, args: {} }, ATTACK_BOUND_MS).catch((e: Error) => `error ${e.message}`);
  return { outcome, ms: outcome === 'answered' ? performance.now() - t0 : undefined };
}

const coreAttacks: ExtensionAttack[] = [
  { name: 'core: none (baseline: one call)', run: async ({ backend }) => ({ outcome: 'call answered', honestMs: await echo(backend as HostileBackend, 'honest') }) },
  {
    name: 'core: 100,000 argument members',
    run: async ({ backend }) => {
      const b = backend as HostileBackend;
      b.sendText(`{"type":"toolCallStarted","threadId":"t","runId":"r","callId":"c","toolName":"Echo","executor":"client","arguments":${members(100_000)}}`);
      return { outcome: 'refused before parsing', honestMs: await echo(b, 'honest') };
    },
  },
  ...[32 * 1024 * 1024, MAX_JSON_BYTES].map((bytes) => ({
    name: `core: a ${bytes === MAX_JSON_BYTES ? 'textDelta just under the JSON limit (4 MiB)' : '32 MiB textDelta'}`,
    run: async ({ backend, target }: Peer) => {
      const b = backend as HostileBackend;
      b.send({ type: 'runStarted', threadId: 't', runId: 'r', model: 'm' });
      b.sendText(JSON.stringify({ type: 'textDelta', threadId: 't', runId: 'r', text: 'a'.repeat(bytes - 200) }));
      const honestMs = await echo(b, 'honest');
      const { items } = await target.request<{ items: number }>('flush', undefined, ATTACK_BOUND_MS);
      const refused = await target.request<number>('refused');
      return { outcome: refused > 0 ? 'refused unread (MESSAGE_TOO_LARGE)' : `answer kept and rendered (${items} items)`, honestMs };
    },
  })),
  {
    name: 'core: OpenDiff, 1,000 lines of 4 KB',
    run: async ({ backend, target }) => {
      const b = backend as HostileBackend;
      const prefix = 'x'.repeat(4 * 1024);
      await target.request('write', { relative: 'big.txt', content: Array.from({ length: 1000 }, (_, i) => `${prefix}${i % 2}\n`).join('') });
      const newContent = Array.from({ length: 1000 }, (_, i) => `${prefix}${(i + 1) % 3}\n`).join('');
      b.send({ type: 'clientToolInvokeRequest', requestId: 'diff', toolName: 'OpenDiff', callId: 'diff', arguments: { path: 'big.txt', newContent } });
      const honestMs = await echo(b, 'honest');
      const r = (await b.next((m) => m.type === 'clientToolInvokeResponse' && m.requestId === 'diff', ATTACK_BOUND_MS)) as ClientToolInvokeResponse | undefined;
      return { outcome: r ? (r.success ? 'diff reviewed, accepted' : `refused ${r.errorCode}`) : 'no answer', honestMs };
    },
  },
];

const mcpServerAttacks: ExtensionAttack[] = [
  { name: 'MCP server: none (baseline: a ping)', run: async ({ mcp }) => ({ outcome: 'ping answered', honestMs: await honestMcp(mcp as { url: string; token: string }) }) },
  {
    name: 'MCP server: tools/call, 80,000 members',
    run: async ({ mcp }) => {
      const m = mcp as { url: string; token: string };
      const session = await mcpSession(m);
      const attack = mcpPost(m, `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"Echo","arguments":${members(80_000)}}}`, session);
      const honestMs = await honestMcp(m);
      return { outcome: `HTTP ${(await attack).status}`, honestMs };
    },
  },
  {
    name: 'MCP server: arguments 400,000 deep',
    run: async ({ mcp }) => {
      const m = mcp as { url: string; token: string };
      const session = await mcpSession(m);
      const attack = mcpPost(m, `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"Echo","arguments":{"a":${'['.repeat(400_000)}${']'.repeat(400_000)}}}}`, session);
      const honestMs = await honestMcp(m);
      return { outcome: `HTTP ${(await attack).status}`, honestMs };
    },
  },
];

const bridgeAttacks: ExtensionAttack[] = [
  { name: 'MCP bridge: none (baseline: a call)', run: async ({ target }) => { const c = await bridgedCall(target); return { outcome: c.outcome, honestMs: c.ms }; } },
  ...[32 * 1024 * 1024, MAX_MESSAGE_BYTES].map((bytes) => ({
    name: `MCP bridge: a ${bytes === MAX_MESSAGE_BYTES ? 'line just under the limit (4 MiB)' : '32 MiB line'}`,
    run: async ({ server, target }: Peer) => {
      const s = server as ServerSide;
      s.write(JSON.stringify({ jsonrpc: '2.0', method: 'notifications/message', params: { level: 'info', data: 'a'.repeat(bytes - 200) } }));
      const c = await bridgedCall(target);
      return { outcome: `then a call: ${c.outcome}`, honestMs: c.ms };
    },
  })),
  {
    name: 'MCP bridge: 100,000 members',
    run: async ({ server, target }) => {
      const s = server as ServerSide;
      s.write(`{"jsonrpc":"2.0","method":"notifications/message","params":{"level":"info","data":${members(100_000)}}}`);
      const c = await bridgedCall(target);
      return { outcome: `then a call: ${c.outcome}`, honestMs: c.ms };
    },
  },
];

async function runAll(attacks: ExtensionAttack[], start: () => Promise<Peer>, stop: (p: Peer) => Promise<void>): Promise<AttackResult[]> {
  const results: AttackResult[] = [];
  for (const attack of attacks) {
    const peer = await start();
    let frozen = false;
    try {
      await peer.target.request('loopDelay', { reset: true });
      const t0 = performance.now();
      const bound = new Promise<{ outcome: string; honestMs: undefined; hitBound: true }>((resolve) => setTimeout(() => resolve({ outcome: `nothing within ${ATTACK_BOUND_MS / 1000} s`, honestMs: undefined, hitBound: true }), ATTACK_BOUND_MS).unref());
      const done = await Promise.race([attack.run(peer).then((r) => ({ ...r, hitBound: false }), (e: unknown) => ({ outcome: `failed: ${e instanceof Error ? e.message : String(e)}`, honestMs: undefined, hitBound: false })), bound]);
      const attackMs = performance.now() - t0;
      const delay = await peer.target.request<LoopDelay>('loopDelay', undefined, done.hitBound ? 2_000 : 10_000).catch(() => undefined);
      frozen = delay === undefined;
      results.push({ name: attack.name, outcome: done.outcome, hitBound: done.hitBound, attackMs, honestHandshakeMs: done.honestMs, eventLoopDelay: delay });
      if (done.hitBound) process.stderr.write(`\n[bench] attack "${attack.name}" hit the ${ATTACK_BOUND_MS / 1000} s bound; its process was killed\n`);
    } finally {
      if (frozen) await peer.target.kill();
      await stop(peer);
    }
  }
  return results;
}

export async function benchExtensionAttacks(): Promise<AttackResult[]> {
  const backend = await HostileBackend.start();
  const core = await runAll(coreAttacks, async () => {
    const target = await Target.start('coreHost.ts', { url: backend.url, token: BACKEND_TOKEN });
    while (!backend.connected) await new Promise((r) => setTimeout(r, 10));
    return { target, backend };
  }, async (p) => {
    await p.target.stop();
    backend.clear();
  });
  await backend.close();
  const mcpServer = await runAll(mcpServerAttacks, async () => {
    const target = await Target.start('mcpServerHost.ts', {});
    return { target, mcp: { url: String(target.info.url), token: String(target.info.token) } };
  }, (p) => p.target.stop());
  const server = await ServerSide.start();
  const bridge = await runAll(bridgeAttacks, async () => {
    const target = await Target.start('mcpBridgeHost.ts', { port: server.port });
    for (let i = 0; i < 3000; i++) {
      const s = await target.request<{ kind?: string; tools: number }>('state');
      if (s.kind === 'running' && s.tools === 1) break;
      await new Promise((r) => setTimeout(r, 10));
    }
    return { target, server };
  }, (p) => p.target.stop());
  await server.close();
  return [...core, ...mcpServer, ...bridge];
}
