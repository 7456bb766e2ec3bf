import * as assert from 'node:assert/strict';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { ToolListChangedNotificationSchema, type CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { RELIST_SETTLE_MS } from '../../../../src/core/mcpServer/mcpGroups';
import { probeCounts, startMcpHarness, type McpHarness } from '../../../support/mcp-harness';

function text(result: CallToolResult): string {
  return result.content.map((c) => (c.type === 'text' ? c.text : `[${c.type}]`)).join('\n');
}

async function names(client: Client): Promise<string[]> {
  return (await client.listTools()).tools.map((t) => t.name);
}

/** Re-lists on every `list_changed`, as Gemini CLI, opencode and Claude Code do; `lists` says when. */
function relistOnChange(client: Client): { lists: { at: number; names: string[] }[] } {
  const lists: { at: number; names: string[] }[] = [];
  client.setNotificationHandler(ToolListChangedNotificationSchema, async () => {
    lists.push({ at: Date.now(), names: await names(client) });
  });
  return { lists };
}

describe('the editor MCP server with collapsed groups (mcpGroups.ts)', () => {
  let h: McpHarness;
  afterEach(async () => h?.close());

  it('flat by default: every tool, no container', async () => {
    h = await startMcpHarness({ backgroundCalls: 'allow' });
    const listed = await names(await h.connect());
    for (const name of ['ReadFile', 'GetDiagnostics', 'Echo']) assert.ok(listed.includes(name), name);
    assert.ok(!listed.includes('Probe') && !listed.includes('Workspace'));
  });

  it('lists one container per group and none of their tools', async () => {
    h = await startMcpHarness({ backgroundCalls: 'allow', listing: 'collapsed' });
    const { tools } = await (await h.connect()).listTools();
    const listed = tools.map((t) => t.name);
    for (const name of ['IDE', 'Workspace', 'Editor', 'Terminal', 'Probe']) assert.ok(listed.includes(name), `${name}: ${listed.join(', ')}`);
    for (const name of ['ReadFile', 'GetDiagnostics', 'Echo', 'RunInTerminal']) assert.ok(!listed.includes(name), `${name} is listed`);
    const probe = tools.find((t) => t.name === 'Probe');
    assert.deepEqual(probe?.inputSchema, { type: 'object', properties: {} });
    assert.match(probe?.description ?? '', /Echo, Stats, Picture, Archive, Broken, Wait, Guarded\.$/);
    assert.equal(probe?.annotations?.readOnlyHint, true);
  });

  it('a container call expands its group for that session: list_changed on the call, and the answer waits for the re-list', async () => {
    h = await startMcpHarness({ backgroundCalls: 'allow', listing: 'collapsed' });
    const client = await h.connect();
    const { lists } = relistOnChange(client);
    const result = (await client.callTool({ name: 'Probe', arguments: {} })) as CallToolResult;
    const answered = Date.now();
    assert.equal(result.isError, undefined);
    assert.match(text(result), /^Probe expanded\. Available tools: Echo, Stats, Picture, Archive, Broken, Wait, Guarded\.$/);
    assert.equal(lists.length, 1, 'one list_changed, re-listed while the call was open');
    const relist = lists[0] as { at: number; names: string[] };
    assert.ok(answered - relist.at >= RELIST_SETTLE_MS - 50, `answered ${answered - relist.at} ms after the re-list`);
    for (const name of ['Echo', 'Guarded', 'Workspace', 'IDE']) assert.ok(relist.names.includes(name), `${name}: ${relist.names.join(', ')}`);
    assert.ok(!relist.names.includes('Probe') && !relist.names.includes('ReadFile'), 'only that group expands');
    // Another session (another agent, a second connection) still sees the group collapsed.
    const other = await names(await h.connect('other'));
    assert.ok(other.includes('Probe') && !other.includes('Echo'));
    // Expanding again says so and changes nothing.
    assert.match(text((await client.callTool({ name: 'Probe', arguments: {} })) as CallToolResult), /^Probe is already expanded\./);
    assert.equal(h.records.length, 0, 'an expansion is no tool call: no record, no prompt');
  });

  it('a client that does not re-list gets the answer anyway, after the wait', async () => {
    h = await startMcpHarness({ backgroundCalls: 'allow', listing: 'collapsed' });
    const client = await h.connect();
    const start = Date.now();
    const result = (await client.callTool({ name: 'Workspace', arguments: {} })) as CallToolResult;
    assert.match(text(result), /^Workspace expanded\./);
    assert.ok(Date.now() - start < 10_000);
    assert.ok((await names(client)).includes('GetWorkspaceFolders'));
  });

  it('a collapsed group\'s tool called by name goes through the gate as any call', async () => {
    h = await startMcpHarness({ backgroundCalls: 'ask', listing: 'collapsed' });
    const client = await h.connect();
    h.ws.host.holdPrompts();
    const pending = client.callTool({ name: 'Guarded', arguments: {} }) as Promise<CallToolResult>;
    const held = await h.ws.host.nextPrompt();
    assert.equal(held.prompt.toolName, 'Guarded');
    held.answer('deny');
    const result = await pending;
    assert.equal(result.isError, true);
    assert.match(text(result), /^PERMISSION_DENIED/);
    assert.equal(probeCounts.guardedRuns, 0);
  });

  it('a group with no callable tool has no container; a hidden tool stays out of an expanded group', async () => {
    h = await startMcpHarness({ backgroundCalls: 'allow', listing: 'collapsed' });
    h.core.registry.setHidden(['GetWorkspaceFolders'], true);
    h.core.registry.setHidden(['RunInTerminal'], true);
    const client = await h.connect();
    const listed = await names(client);
    assert.ok(!listed.includes('Terminal'), 'the Terminal group has no callable tool');
    const result = (await client.callTool({ name: 'Workspace', arguments: {} })) as CallToolResult;
    assert.doesNotMatch(text(result), /GetWorkspaceFolders/);
    assert.ok(!(await names(client)).includes('GetWorkspaceFolders'));
  });
});
