/**
 * A rogue MCP client (a web page, a DNS-rebinding page, a local process without the token, a
 * client that floods or lies about itself) against the editor's MCP server, wired as the extension
 * wires it (test/support/mcp-harness.ts). Every refusal is an HTTP status before the SDK sees the
 * request; no session is made for it; no tool runs; the token never reaches a log.
 */
import * as assert from 'node:assert/strict';
import * as http from 'node:http';
import { probeCounts, startMcpHarness, type McpHarness } from '../support/mcp-harness';

const INIT = JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'rogue', version: '1' } } });

interface Reply {
  status: number;
  body: string;
  headers: http.IncomingHttpHeaders;
}

function post(port: number, headers: Record<string, string>, body = INIT, path = '/mcp'): Promise<Reply> {
  return new Promise((resolve, reject) => {
    const req = http.request({ host: '127.0.0.1', port, path, method: 'POST', headers: { 'Content-Type': 'application/json', Accept: 'application/json, text/event-stream', ...headers } }, (res) => {
      let data = '';
      res.setEncoding('utf8');
      res.on('data', (c: string) => (data += c));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body: data, headers: res.headers }));
    });
    req.on('error', reject);
    req.end(body);
  });
}

describe('rogue MCP client: the editor MCP server', () => {
  let h: McpHarness;
  let bearer: Record<string, string>;

  beforeEach(async () => {
    h = await startMcpHarness({ backgroundCalls: 'allow' });
    bearer = { Authorization: `Bearer ${h.token}` };
  });
  afterEach(async () => {
    assert.ok(!h.logger.text().includes(h.token), 'the token reached a log');
    await h.close();
  });

  it('refuses a request without a token, with a wrong token, with a token of another length, or with the token in the URL (401)', async () => {
    const port = h.server.port;
    assert.equal((await post(port, {})).status, 401);
    assert.equal((await post(port, { Authorization: `Bearer ${'0'.repeat(64)}` })).status, 401);
    assert.equal((await post(port, { Authorization: `Bearer ${h.token.slice(0, 63)}` })).status, 401);
    assert.equal((await post(port, { Authorization: `Basic ${h.token}` })).status, 401);
    const inUrl = await post(port, {}, INIT, `/mcp?token=${h.token}`);
    assert.equal(inUrl.status, 401);
    assert.equal(inUrl.headers['www-authenticate'], 'Bearer');
    assert.equal(h.server.sessionCount, 0);
  });

  it('refuses any Origin, even with the right token (403): a web page may never call the tools', async () => {
    for (const origin of ['https://evil.example', 'http://127.0.0.1', 'null', 'vscode-webview://x']) {
      const reply = await post(h.server.port, { ...bearer, Origin: origin });
      assert.equal(reply.status, 403, origin);
      assert.match(reply.body, /Origin/);
    }
    assert.equal(h.server.sessionCount, 0);
  });

  it('refuses a Host that is not loopback, even with the right token (403): DNS rebinding', async () => {
    for (const host of ['evil.example', '127.0.0.1.evil.example', 'localhost.evil.example:80', 'user@127.0.0.1', '0.0.0.0', '127.0.0.1:80 evil']) {
      const reply = await post(h.server.port, { ...bearer, Host: host });
      assert.equal(reply.status, 403, host);
    }
    assert.equal(h.server.sessionCount, 0);
  });

  it('refuses a body over the cap (413) and another path (404) without making a session', async () => {
    const big = JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'Echo', arguments: { text: 'x'.repeat(2 * 1024 * 1024) } } });
    assert.equal((await post(h.server.port, bearer, big)).status, 413);
    assert.equal((await post(h.server.port, bearer, INIT, '/other')).status, 404);
    assert.equal(h.server.sessionCount, 0);
  });

  it('a made-up session id gets 404 and runs nothing; a call before initialize gets 400', async () => {
    const call = JSON.stringify({ jsonrpc: '2.0', id: 2, method: 'tools/call', params: { name: 'Guarded', arguments: {} } });
    assert.equal((await post(h.server.port, { ...bearer, 'mcp-session-id': 'f'.repeat(36) }, call)).status, 404);
    assert.equal((await post(h.server.port, bearer, call)).status, 400);
    assert.equal(probeCounts.guardedRuns, 0);
    assert.equal(h.server.sessionCount, 0);
  });

  it('caps sessions: a flood of initializes keeps at most 16, and the server still answers', async () => {
    for (let i = 0; i < 40; i++) assert.equal((await post(h.server.port, bearer)).status, 200);
    assert.equal(h.server.sessionCount, 16);
    const client = await h.connect();
    assert.ok((await client.listTools()).tools.length > 0);
  });
});
