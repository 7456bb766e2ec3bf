/**
 * No call runs for a caller who is gone (issue 26, item 3). A real MCP client process (the official
 * SDK over Streamable HTTP, test/fixtures/mcp-clients/call-tool.mjs) asks the editor's MCP server to
 * delete a file and is killed while the prompt is open; a raw client drops its connection; a backend
 * never comes back within the resume window. Each time the prompt closes as cancelled, and an Allow
 * clicked afterwards deletes nothing; the card says cancelled. Through the real ClientCore,
 * dispatcher and permission gate with the fake host (test/support/mcp-harness.ts, core-rig.ts).
 */
import * as assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync } from 'node:fs';
import * as http from 'node:http';
import * as path from 'node:path';
import { ErrorCode } from '../../src/protocol';
import type { HeldPrompt } from '../support/fake-host';
import { startMcpHarness, type McpHarness } from '../support/mcp-harness';
import { CoreRig, delay } from './support/core-rig';

const CLIENT = path.resolve(__dirname, '../fixtures/mcp-clients/call-tool.mjs');

/** Resolves with how the prompt closed, or 'still open' after `ms`: the old code never closed it. */
function closedWithin(held: HeldPrompt, ms: number): Promise<'answered' | 'aborted' | 'still open'> {
  return Promise.race([held.closed, delay(ms).then(() => 'still open' as const)]);
}

function startClient(h: McpHarness, args: Record<string, unknown>): ChildProcess {
  const child = spawn(process.execPath, [CLIENT, h.server.url, h.token, 'DeleteFile', JSON.stringify(args)], { stdio: ['ignore', 'pipe', 'pipe'] });
  child.stderr?.resume();
  return child;
}

/** A session's POST of tools/call on a raw socket the test can destroy (the client process stays). */
async function rawCall(h: McpHarness, body: unknown): Promise<http.ClientRequest> {
  const headers = { Authorization: `Bearer ${h.token}`, 'Content-Type': 'application/json', Accept: 'application/json, text/event-stream' };
  const post = (payload: unknown, extra: Record<string, string> = {}) =>
    new Promise<{ req: http.ClientRequest; res: http.IncomingMessage }>((resolve, reject) => {
      const req = http.request(h.server.url, { method: 'POST', headers: { ...headers, ...extra } }, (res) => resolve({ req, res }));
      req.on('error', reject);
      req.end(JSON.stringify(payload));
    });
  const init = await post({ jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'raw-client', version: '1' } } });
  init.res.resume();
  const session = String(init.res.headers['mcp-session-id']);
  const initialized = await post({ jsonrpc: '2.0', method: 'notifications/initialized' }, { 'mcp-session-id': session, 'mcp-protocol-version': '2025-06-18' });
  initialized.res.resume();
  const req = http.request(h.server.url, { method: 'POST', headers: { ...headers, 'mcp-session-id': session, 'mcp-protocol-version': '2025-06-18' } });
  req.on('error', () => {});
  req.end(JSON.stringify(body));
  return req;
}

describe('callers that go away: no call runs for a caller who is gone (T-GONE)', function () {
  this.timeout(60_000);

  describe('through the editor MCP server', () => {
    let h: McpHarness;
    let child: ChildProcess | undefined;

    beforeEach(async () => {
      h = await startMcpHarness({ backgroundCalls: 'allow', files: { 'victim.txt': 'keep me\n' } });
      h.ws.host.holdPrompts();
    });
    afterEach(async () => {
      child?.kill('SIGKILL');
      child = undefined;
      await h.close();
    });

    const victim = () => path.join(h.ws.host.folders[0].path, 'victim.txt');
    const deleteRecord = () => h.records.filter((r) => r.toolName === 'DeleteFile').at(-1);

    async function killWhilePromptOpen(signal: NodeJS.Signals): Promise<void> {
      child = startClient(h, { path: 'victim.txt' });
      const held = await h.ws.host.nextPrompt();
      assert.match(held.prompt.message, /victim\.txt/);
      child.kill(signal);
      const how = await closedWithin(held, 5000);
      held.answer('allow');
      await delay(300);
      assert.equal(how, 'aborted', 'the prompt stayed open after the client was gone');
      assert.equal(existsSync(victim()), true, 'the file was deleted for a client that was gone');
      assert.deepEqual(h.ws.host.deleted, []);
      const record = deleteRecord();
      assert.equal(record?.status, 'cancelled');
      assert.equal(record?.errorCode, ErrorCode.Cancelled);
      assert.match(record?.errorMessage ?? '', /MCP client went away/);
      assert.equal(h.calls.inFlight, 0);
    }

    it('T-GONE-01: an MCP client process killed (SIGKILL) while its DeleteFile prompt is open: the prompt closes as cancelled, Allow afterwards deletes nothing', async () => {
      await killWhilePromptOpen('SIGKILL');
    });

    it('T-GONE-02: an MCP client process ended with SIGTERM while its DeleteFile prompt is open: the same', async () => {
      await killWhilePromptOpen('SIGTERM');
    });

    it('T-GONE-03: a client whose tools/call connection drops (its process stays): the prompt closes as cancelled, Allow afterwards deletes nothing; a live client still gets its answer', async () => {
      const req = await rawCall(h, { jsonrpc: '2.0', id: 2, method: 'tools/call', params: { name: 'DeleteFile', arguments: { path: 'victim.txt' } } });
      const held = await h.ws.host.nextPrompt();
      req.destroy();
      const how = await closedWithin(held, 5000);
      held.answer('allow');
      await delay(300);
      assert.equal(how, 'aborted');
      assert.equal(existsSync(victim()), true);
      assert.equal(deleteRecord()?.status, 'cancelled');

      // The same call from a client that stays: Allow deletes, the answer arrives.
      const client = await h.connect('staying-client');
      const pending = client.callTool({ name: 'DeleteFile', arguments: { path: 'victim.txt' } });
      (await h.ws.host.nextPrompt()).answer('allow');
      const result = await pending;
      assert.equal(result.isError, undefined, JSON.stringify(result));
      assert.equal(existsSync(victim()), false);
    });
  });

  describe('through the backend connection', () => {
    let rig: CoreRig;
    afterEach(async () => rig.dispose());

    it('T-GONE-04: a backend that does not come back within the resume window: its open prompt closes, Allow afterwards deletes nothing; within the window the answer waits for the resume', async () => {
      rig = await CoreRig.start({ core: { resumeWindowMs: 1500 } });
      rig.host.holdPrompts();
      await rig.connect();

      // Within the window: the backend is back in time, Allow runs, the kept answer is delivered.
      const first = rig.backend.invoke('DeleteFile', { path: 'old.txt' });
      const early = await rig.host.nextPrompt();
      await rig.restartBackend();
      await rig.resumed();
      early.answer('allow');
      assert.equal((await rig.answer(first)).success, true);
      assert.equal(existsSync(rig.file('old.txt')), false);

      // Beyond the window: the backend is gone for good.
      const second = rig.backend.invoke('DeleteFile', { path: 'notes.txt' });
      const late = await rig.host.nextPrompt();
      await rig.backend.close();
      const how = await closedWithin(late, 5000);
      late.answer('allow');
      await delay(300);
      assert.equal(how, 'aborted', 'the prompt stayed open for a backend that cannot resume its session');
      assert.equal(existsSync(rig.file('notes.txt')), true, 'deleted for a backend that was gone');
      assert.deepEqual(rig.outcomes(second), ['cancelled']);
    });
  });
});
