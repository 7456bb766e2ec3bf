/**
 * Named credentials for agents started outside the editor (src/core/mcpServer/mcpCredentials.ts)
 * against the editor's MCP server, wired as the extension wires it: a credential is accepted and
 * names its calls whatever the client claims to be; a revoked one opens nothing and its sessions
 * end; a session answers only the token it was opened with.
 */
import * as assert from 'node:assert/strict';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { McpCredentialSet } from '../../src/core/mcpServer/mcpCredentials';
import { newMcpToken } from '../../src/core/mcpServer/mcpToken';
import { startMcpHarness, type McpHarness } from '../support/mcp-harness';

const INIT = JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'rogue', version: '1' } } });

function post(url: string, token: string, headers: Record<string, string> = {}, body = INIT): Promise<Response> {
  return fetch(url, { method: 'POST', headers: { 'Content-Type': 'application/json', Accept: 'application/json, text/event-stream', Authorization: `Bearer ${token}`, ...headers }, body });
}

describe('rogue MCP client: named credentials of agents started outside the editor', () => {
  let h: McpHarness;
  let credentials: McpCredentialSet;
  const claude = newMcpToken();
  const gemini = newMcpToken();
  beforeEach(async () => {
    credentials = new McpCredentialSet();
    credentials.set([{ name: 'Claude Code', token: claude }, { name: 'Gemini CLI', token: gemini }]);
    h = await startMcpHarness({ backgroundCalls: 'allow', credentials });
  });
  afterEach(async () => {
    await h.close();
    credentials.dispose();
  });

  it('T-MCPC-01: a credential opens a session whose calls are named after it, not after the name the client claims', async () => {
    const client = await h.connect('Totally Visual Studio Code', claude);
    const result = (await client.callTool({ name: 'Echo', arguments: { text: 'hi' } })) as CallToolResult;
    assert.equal(result.isError, undefined);
    assert.equal(h.records.find((r) => r.toolName === 'Echo')?.caller, 'MCP: Claude Code');
  });

  it('T-MCPC-02: a revoked credential opens nothing, and its open session ends; the others go on', async () => {
    const revoked = await h.connect('claude', claude);
    const other = await h.connect('gemini', gemini);
    assert.equal(h.server.sessionCount, 2);
    credentials.set([{ name: 'Gemini CLI', token: gemini }]);
    assert.equal(h.server.sessionCount, 1);
    assert.equal((await post(h.server.url, claude)).status, 401);
    await assert.rejects(callEcho(revoked));
    assert.equal((await callEcho(other)).isError, undefined);
    assert.equal(h.records.filter((r) => r.toolName === 'Echo' && r.status === 'succeeded').length, 1);
  });

  it('T-MCPC-03: a session answers only the token it was opened with', async () => {
    const opened = await post(h.server.url, claude);
    assert.equal(opened.status, 200);
    const sessionId = opened.headers.get('mcp-session-id') ?? '';
    assert.notEqual(sessionId, '');
    await opened.text();
    const list = JSON.stringify({ jsonrpc: '2.0', id: 2, method: 'tools/list', params: {} });
    for (const other of [gemini, h.token]) {
      const reply = await post(h.server.url, other, { 'mcp-session-id': sessionId, 'mcp-protocol-version': '2025-06-18' }, list);
      assert.equal(reply.status, 404, `another token used the session: ${reply.status}`);
      await reply.text();
    }
  });

  it('T-MCPC-04: with credentials on offer, a wrong token, a credential cut short or lengthened is still 401', async () => {
    for (const token of [newMcpToken(), claude.slice(0, -1), `${claude}0`, claude.toUpperCase() === claude ? `${claude}x` : claude.toUpperCase()]) {
      const reply = await post(h.server.url, token);
      assert.equal(reply.status, 401, token);
      await reply.text();
    }
    assert.equal(h.server.sessionCount, 0);
  });
});

function callEcho(client: Client): Promise<CallToolResult> {
  return client.callTool({ name: 'Echo', arguments: { text: 'x' } }) as Promise<CallToolResult>;
}
