import * as assert from 'node:assert/strict';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { CallToolResultSchema, ToolListChangedNotificationSchema, type CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { defineTool, textResult } from '../../../../src/core/tool';
import { until } from '../../../support/dispatch-harness';
import { PNG, probeCounts, startMcpHarness, type McpHarness } from '../../../support/mcp-harness';

async function call(client: Client, name: string, args: Record<string, unknown> = {}): Promise<CallToolResult> {
  return (await client.callTool({ name, arguments: args })) as CallToolResult;
}

/**
 * Resolves once the client's notification stream (its GET) is open: a notification sent before that
 * has nowhere to go, so the registry is poked until one arrives.
 */
async function listChangesHeard(h: McpHarness, client: Client): Promise<{ count: () => number }> {
  let count = 0;
  client.setNotificationHandler(ToolListChangedNotificationSchema, () => {
    count += 1;
  });
  const start = Date.now();
  while (count === 0) {
    if (Date.now() - start > 10_000) throw new Error('no notifications/tools/list_changed within 10 s');
    h.core.registry.setHidden(['Picture'], true);
    h.core.registry.setHidden(['Picture'], false);
    await new Promise((r) => setTimeout(r, 100));
  }
  await new Promise((r) => setTimeout(r, 100));
  count = 0;
  return { count: () => count };
}

function text(result: CallToolResult): string {
  return result.content.map((c) => (c.type === 'text' ? c.text : `[${c.type}]`)).join('\n');
}

describe('the editor MCP server: official SDK client over loopback Streamable HTTP', () => {
  let h: McpHarness;
  afterEach(async () => h?.close());

  describe('with background calls allowed (calls ask only where the tool asks)', () => {
    beforeEach(async () => {
      h = await startMcpHarness({ backgroundCalls: 'allow', files: { 'notes.txt': 'one\ntwo\n', 'logo.png': PNG } });
    });

    it('lists every callable tool with its JSON Schema and hints from its definition', async () => {
      const client = await h.connect();
      const { tools } = await client.listTools();
      const byName = new Map(tools.map((t) => [t.name, t]));
      for (const name of ['OpenFile', 'ReadFile', 'DeleteFile', 'GetDiagnostics', 'Echo', 'Guarded']) assert.ok(byName.has(name), `${name} listed`);
      assert.deepEqual(byName.get('Echo')?.inputSchema.required, ['text']);
      assert.equal(byName.get('ReadFile')?.annotations?.readOnlyHint, true);
      assert.equal(byName.get('DeleteFile')?.annotations?.destructiveHint, true);
      assert.equal(byName.get('OpenFile')?.annotations?.destructiveHint, false);
      assert.equal(byName.get('RunInTerminal')?.annotations?.openWorldHint, true);
    });

    it('leaves out hidden and switched-off tools, and says so with notifications/tools/list_changed', async () => {
      const client = await h.connect();
      const heard = await listChangesHeard(h, client);
      h.core.registry.setDisabled('Echo', { code: 'TOOL_DISABLED' as never, message: 'off' });
      h.core.registry.setHidden(['Stats'], true);
      await until(() => heard.count() > 0, 5000);
      const names = (await client.listTools()).tools.map((t) => t.name);
      assert.ok(!names.includes('Echo') && !names.includes('Stats'));
      const refused = await call(client, 'Stats');
      assert.equal(refused.isError, true);
      assert.match(text(refused), /^TOOL_HIDDEN: /);
    });

    it('returns text, JSON as text plus structuredContent, images as image content, other binary as a resource', async () => {
      const client = await h.connect();
      assert.equal(text(await call(client, 'Echo', { text: 'hi' })), 'hi');
      const json = await call(client, 'Stats');
      assert.deepEqual(json.structuredContent, { files: 3, ok: true });
      assert.deepEqual(JSON.parse(text(json)), { files: 3, ok: true });
      const image = await call(client, 'Picture');
      assert.deepEqual(image.content[0], { type: 'image', mimeType: 'image/png', data: PNG.toString('base64') });
      const archive = await call(client, 'Archive');
      const resource = archive.content[0];
      assert.equal(resource.type, 'resource');
      assert.ok(resource.type === 'resource' && 'blob' in resource.resource && resource.resource.blob === Buffer.from([80, 75, 3, 4]).toString('base64'));
    });

    it('reads a PNG of the workspace with the built-in ReadFile as MCP image content', async () => {
      const client = await h.connect();
      const result = await call(client, 'ReadFile', { path: 'logo.png' });
      const image = result.content.find((c) => c.type === 'image');
      assert.ok(image && image.type === 'image' && image.data === PNG.toString('base64'), JSON.stringify(result).slice(0, 300));
    });

    it('answers a failing tool, an unknown tool and bad arguments with isError and the coded message', async () => {
      const client = await h.connect();
      const broken = await call(client, 'Broken');
      assert.equal(broken.isError, true);
      assert.equal(text(broken), 'NOT_FOUND: nothing at that path');
      assert.match(text(await call(client, 'NoSuchTool')), /^UNKNOWN_TOOL: /);
      assert.match(text(await call(client, 'Echo', { text: 5 })), /^INVALID_ARGUMENTS: .*text/);
      assert.match(text(await call(client, 'ReadFile', { path: '../outside.txt' })), /^[A-Z_]+: /);
    });

    it('asks before a tool that needs permission, saying which MCP client asked; a denial is an isError result that ran nothing', async () => {
      h.ws.host.answerPrompts('deny');
      const client = await h.connect();
      const denied = await call(client, 'Guarded');
      assert.equal(denied.isError, true);
      assert.match(text(denied), /^PERMISSION_DENIED: /);
      assert.equal(probeCounts.guardedRuns, 0);
      assert.match(h.ws.host.prompts.at(-1)?.detail ?? '', /MCP server by MCP: probe-client/);
      h.ws.host.answerPrompts('allow');
      assert.equal(text(await call(client, 'Guarded')), 'guarded ran');
      assert.equal(probeCounts.guardedRuns, 1);
    });

    it('goes through the same permission gate as the backend: a Deny policy from the Tool Groups view refuses without a prompt', async () => {
      const guarded = h.core.registry.get('Guarded');
      h.core.permissions.setToolPolicies({ get: (key) => (key === guarded?.key ? 'deny' : undefined) });
      const client = await h.connect();
      const result = await call(client, 'Guarded');
      assert.match(text(result), /^PERMISSION_DENIED: the user set Guarded to Deny/);
      assert.equal(h.ws.host.prompts.length, 0);
      assert.equal(probeCounts.guardedRuns, 0);
    });

    it('cancellation (notifications/cancelled) reaches the running tool', async () => {
      const client = await h.connect();
      const controller = new AbortController();
      const pending = client.callTool({ name: 'Wait', arguments: {} }, CallToolResultSchema, { signal: controller.signal });
      await until(() => h.calls.inFlight === 1, 5000);
      controller.abort('enough');
      await assert.rejects(pending);
      await until(() => probeCounts.waitAborted === 1 && h.calls.inFlight === 0, 5000);
      assert.equal(h.records.at(-1)?.status, 'cancelled');
    });

    it('records each call for the chat, marked with the client name as plain text', async () => {
      const client = await h.connect('Claude [x](command:evil) \u202E');
      await call(client, 'Echo', { text: 'a' });
      const last = h.records.at(-1);
      assert.equal(last?.status, 'succeeded');
      assert.equal(last?.background, true);
      assert.equal(last?.caller, 'MCP: Claude ?x?(command?evil) ?');
    });
  });

  describe('with the default background policy (ask)', () => {
    beforeEach(async () => {
      h = await startMcpHarness({ files: { 'notes.txt': 'one\n' } });
    });

    it('asks even for a read-only tool, names the MCP client in the prompt, and offers no remembered grant', async () => {
      h.ws.host.holdPrompts();
      const client = await h.connect('gemini-cli');
      const pending = call(client, 'Echo', { text: 'x' });
      const prompt = await h.ws.host.nextPrompt();
      assert.match(prompt.prompt.message, /^MCP: gemini-cli request: /);
      assert.equal(prompt.prompt.offerAllowSession, false);
      prompt.answer('allow');
      assert.equal(text(await pending), 'x');
    });

    it('sends notifications/progress while waiting for permission when the client gave a progressToken', async () => {
      h.ws.host.holdPrompts();
      const client = await h.connect();
      const progress: { progress: number; message?: string }[] = [];
      const pending = client.callTool({ name: 'Guarded', arguments: {} }, CallToolResultSchema, { onprogress: (p) => progress.push(p) });
      const prompt = await h.ws.host.nextPrompt();
      await until(() => progress.length >= 2, 5000);
      assert.match(progress[0].message ?? '', /waiting for the user/);
      assert.ok(progress[1].progress > progress[0].progress);
      prompt.answer('allow');
      assert.equal(text((await pending) as CallToolResult), 'guarded ran');
    });

    it('cancellation while the prompt is open closes the prompt and runs nothing', async () => {
      h.ws.host.holdPrompts();
      const client = await h.connect();
      const controller = new AbortController();
      const pending = client.callTool({ name: 'Guarded', arguments: {} }, CallToolResultSchema, { signal: controller.signal });
      const prompt = await h.ws.host.nextPrompt();
      controller.abort('changed my mind');
      await assert.rejects(pending);
      assert.equal(await prompt.closed, 'aborted');
      assert.equal(probeCounts.guardedRuns, 0);
    });

    it('a tool registered later is listed after notifications/tools/list_changed', async () => {
      const client = await h.connect();
      const heard = await listChangesHeard(h, client);
      h.core.registry.register({ name: 'Late', description: 'later' }, [
        defineTool({ name: 'LateTool', group: 'Late', description: 'x', parameters: { type: 'object', properties: {} }, requiresPermission: false, declineStrategy: 'reject', run: async () => textResult('late') }),
      ]);
      await until(() => heard.count() > 0, 5000);
      assert.ok((await client.listTools()).tools.some((t) => t.name === 'LateTool'));
    });
  });

  describe('with background calls denied', () => {
    it('refuses every MCP call with PERMISSION_DENIED and runs nothing', async () => {
      h = await startMcpHarness({ backgroundCalls: 'deny' });
      const client = await h.connect();
      const result = await call(client, 'Guarded');
      assert.equal(result.isError, true);
      assert.match(text(result), /^PERMISSION_DENIED: background calls are off/);
      assert.equal(probeCounts.guardedRuns, 0);
    });
  });
});
