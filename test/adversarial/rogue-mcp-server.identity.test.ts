/**
 * One identity per tool (issue 26, item 1), attacked with MCP servers whose names are chosen to
 * collide: real server processes (the official SDK over stdio, test/fixtures/mcp-servers/) started
 * by the real supervisor, their groups built and registered as the extension's bridge does, called
 * through the real registry, permission gate and dispatcher with the fake host. Policies and grants
 * key on (source, tool), model-facing names follow from that identity alone, and a name that would
 * still meet another is refused with NAME_TAKEN, in the extension's registry and in the backend.
 */
import * as assert from 'node:assert/strict';
import { admitGroups } from '../../src/backend/toolset/registration';
import { createBackend, type Backend } from '../../src/backend';
import { parseStoredGrant, type Grant } from '../../src/core/consent/grants';
import type { PermissionStore } from '../../src/core/consent/permissionGate';
import type { ToolRegistry } from '../../src/core/registry';
import { storedPolicy, withStoredPolicy } from '../../src/core/consent/storedPolicies';
import { defineTool, textResult } from '../../src/core/tool';
import { CodedError, ErrorCode, toFunctionName, type ToolGroupDefinition } from '../../src/protocol';
import { registerBuiltinGroups } from '../../src/tools';
import { buildMcpGroup, mcpGroupName, mcpSource, mcpToolName } from '../../src/tools/mcpClient/group';
import { McpGroupRegistration } from '../../src/tools/mcpClient/groupRegistration';
import type { McpServerSupervisor } from '../../src/tools/mcpClient/supervisor';
import { TestClient } from '../support/backend-client';
import { DispatchHarness, RecordingLogger } from '../support/dispatch-harness';
import { createTempWorkspace, type TempWorkspace } from '../support/fake-host';
import { scriptedStats, startScriptedServer } from '../support/scripted-mcp-server';

/** Registers a running server's tools as the extension's bridge does (src/tools/mcpClient/groupRegistration.ts). */
function registerServer(registry: ToolRegistry, supervisor: McpServerSupervisor): { names: string[]; skipped: string[] } {
  const logger = new RecordingLogger();
  new McpGroupRegistration(registry, supervisor, logger).update(supervisor.state);
  const names = registry.snapshot().find((g) => g.name === mcpGroupName(supervisor.config.name))?.tools.map((t) => t.name) ?? [];
  return { names, skipped: logger.entries.filter((e) => e.message.includes('tool left out')).map((e) => e.message) };
}

function nameTaken(fn: () => unknown): string {
  try {
    fn();
  } catch (e) {
    assert.ok(e instanceof CodedError, String(e));
    return e.code;
  }
  return 'no error';
}

describe('rogue MCP servers: one identity per tool (T-ID)', function () {
  this.timeout(60_000);
  let ws: TempWorkspace;
  let h: DispatchHarness;
  const servers: McpServerSupervisor[] = [];
  /** The Tool Groups view's store (src/vscode/toolGroups/toolPolicies.ts keeps the same entries in workspace state). */
  let stored: Record<string, unknown>;
  /** Remembered grants in workspace storage, as src/vscode/context.ts reads them back. */
  let storedGrants: unknown[];

  beforeEach(async () => {
    ws = await createTempWorkspace(['ws'], { 'a.txt': 'a' });
    stored = {};
    storedGrants = [];
    const store: PermissionStore = {
      list: () => storedGrants.map(parseStoredGrant).filter((g): g is Grant => g !== undefined),
      add: (g) => void storedGrants.push(g),
      remove: () => undefined,
      clear: () => void (storedGrants = []),
    };
    const filler = defineTool({ name: 'Filler', group: 'Fillers', description: 'x', parameters: { type: 'object' }, requiresPermission: false, declineStrategy: 'reject', run: async () => textResult('') });
    h = new DispatchHarness({ host: ws.host, tools: [filler], gate: { store } });
    registerBuiltinGroups(h.registry);
    h.gate.setToolPolicies({ get: (key, name) => storedPolicy(stored, key, name) });
  });
  afterEach(async () => {
    h.dispose();
    await Promise.all(servers.splice(0).map((s) => s.stop()));
    await ws.dispose();
  });

  /** What the view's context menu does: the policy goes under the tool's identity key. */
  const setPolicy = (toolName: string, policy: 'allow' | 'deny' | 'ask') => {
    const entry = h.registry.get(toolName);
    assert.ok(entry, toolName);
    stored = withStoredPolicy(stored, entry.key, entry.tool.name, policy);
  };

  it('T-ID-01: server github_create with tool issue and server github with tool create_issue get two names, whichever starts first, and Allow Without Asking on one never runs the other', async () => {
    const first = await startScriptedServer('github_create', [{ name: 'issue' }]);
    const second = await startScriptedServer('github', [{ name: 'create_issue' }]);
    servers.push(first, second);

    const a = registerServer(h.registry, first);
    const b = registerServer(h.registry, second);
    assert.deepEqual([a.skipped, b.skipped], [[], []], 'both servers\' tools are registered');
    const issue = mcpToolName('github_create', 'issue');
    const createIssue = mcpToolName('github', 'create_issue');
    assert.notEqual(issue, createIssue);
    assert.ok(a.names.includes(issue) && b.names.includes(createIssue));
    assert.equal(createIssue, 'mcp_github_create_issue', 'a server name without "_" keeps the readable name');
    assert.match(issue, /^mcp_github_create_issue_[0-9a-f]{12}$/);
    // The names follow from (server, tool) alone: the other start order gives the same ones.
    const reversed = buildMcpGroup('github', [{ name: 'create_issue' }], async () => [], () => false);
    assert.equal(reversed.tools[0]?.name, createIssue);

    setPolicy(issue, 'allow');
    ws.host.answerPrompts('deny');
    const other = await h.call(createIssue, {});
    assert.equal(other.errorCode, ErrorCode.PermissionDenied, 'the other server\'s tool asked, and the user said no');
    assert.deepEqual(ws.host.prompts.map((p) => p.toolName), [createIssue]);
    assert.equal((await scriptedStats(second)).calls.create_issue, undefined, 'nothing ran on server github');

    const allowed = await h.call(issue, {});
    assert.equal(allowed.success, true, allowed.errorMessage);
    assert.deepEqual(allowed.content, [{ type: 'text', text: 'ran github_create/issue' }]);
    assert.equal(ws.host.prompts.length, 1, 'the allowed tool ran without a prompt');
  });

  it('T-ID-02: servers "a b" and "a_b" get two container functions; a name that still meets another is refused with NAME_TAKEN by the registry and by the backend', async () => {
    const spaced = await startScriptedServer('a b', [{ name: 't' }]);
    const underscored = await startScriptedServer('a_b', [{ name: 't' }]);
    servers.push(spaced, underscored);
    registerServer(h.registry, spaced);
    registerServer(h.registry, underscored);
    const containers = [toFunctionName(mcpGroupName('a b')), toFunctionName(mcpGroupName('a_b'))];
    assert.notEqual(containers[0], containers[1]);
    for (const c of containers) assert.ok(h.registry.holdsFunctionName(c), c);

    // The backend names containers with the same rule and admits both groups.
    const defs = h.registry.definitions().filter((g) => g.name.startsWith('MCP: '));
    const admitted = admitGroups(defs, new Set());
    assert.deepEqual(admitted.problems, []);

    // A group whose container would be a registered tool's name, or a second tool with an identity taken: refused, not renamed.
    const tool = (name: string, group: string) => defineTool({ name, group, description: 'x', parameters: { type: 'object' }, requiresPermission: false, declineStrategy: 'reject', run: async () => textResult('') });
    assert.equal(nameTaken(() => h.registry.register({ name: 'DeleteFile', description: 'x' }, [tool('Other', 'DeleteFile')])), ErrorCode.NameTaken);
    assert.equal(nameTaken(() => h.registry.register({ name: 'Mine', description: 'x' }, [tool(containers[0], 'Mine')])), ErrorCode.NameTaken);
    assert.equal(nameTaken(() => h.registry.register({ name: 'MCP: a b', description: 'x' }, [])), ErrorCode.NameTaken);
    assert.equal(nameTaken(() => h.registry.register({ name: 'Again', description: 'x' }, [{ ...tool('mcp_other', 'Again'), sourceName: 't' }], { source: mcpSource('a b') })), ErrorCode.NameTaken, 'one identity, two tools');
    assert.equal(h.registry.get('Other'), undefined);

    const backend: Backend = await createBackend({ token: 'identity-token-0123456789' });
    const client = await TestClient.connect(backend.url, 'identity-token-0123456789');
    try {
      const group = (name: string, tools: string[]): ToolGroupDefinition => ({ name, description: name, tools: tools.map((t) => ({ name: t, description: t, parameters: { type: 'object' } })) });
      await client.hello({ toolGroups: [group('Files', ['ReadIt']), group('ReadIt', ['Other']), group('Files2', ['Files'])] });
      const state = await client.next('toolGroupState');
      const errors = client.received.filter((m) => m.type === 'error');
      assert.deepEqual(errors.map((e) => (e as { code: string }).code), [ErrorCode.NameTaken, ErrorCode.NameTaken]);
      assert.deepEqual(state.groups.map((g) => [g.name, g.containerName, g.tools.map((t) => t.name)]), [['Files', 'Files', ['ReadIt']], ['Files2', 'Files2', []]]);
      assert.ok(!JSON.stringify(state).includes('_2'), 'nothing renamed');
    } finally {
      await client.drop();
      await backend.close();
    }
  });

  it('T-ID-03: a policy or grant stored under a bare name before identities never widens: an Allow for mcp_github_create_issue answers no server\'s tool, a Deny still applies, a built-in\'s carries over', async () => {
    const github = await startScriptedServer('github', [{ name: 'create_issue' }, { name: 'close_issue' }]);
    servers.push(github);
    registerServer(h.registry, github);
    stored = { mcp_github_create_issue: 'allow', mcp_github_close_issue: 'deny', DeleteFile: 'allow' };
    storedGrants = [{ toolName: 'mcp_github_create_issue', kind: 'tool', path: '', shown: '' }];
    ws.host.answerPrompts('deny');

    const create = await h.call('mcp_github_create_issue', {});
    assert.equal(create.errorCode, ErrorCode.PermissionDenied);
    assert.deepEqual(ws.host.prompts.map((p) => p.toolName), ['mcp_github_create_issue'], 'asked, although a bare-name Allow and a bare-name grant were stored');

    const close = await h.call('mcp_github_close_issue', {});
    assert.equal(close.errorCode, ErrorCode.PermissionDenied);
    assert.match(close.errorMessage ?? '', /Deny in the Tool Groups view/);
    assert.equal(ws.host.prompts.length, 1, 'the stored Deny answered without a prompt');
    const stats = await scriptedStats(github);
    assert.deepEqual(stats.calls, { stats: 1 }, 'nothing ran on the server');

    const deleted = await h.call('DeleteFile', { path: 'a.txt' });
    assert.equal(deleted.success, true, deleted.errorMessage);
    assert.equal(ws.host.prompts.length, 1, 'a built-in tool\'s stored Allow carries over (its key is its name)');

    // Setting the policy again replaces the bare entry: Ask now asks for close_issue.
    setPolicy('mcp_github_close_issue', 'ask');
    assert.equal(Object.hasOwn(stored, 'mcp_github_close_issue'), false);
    await h.call('mcp_github_close_issue', {});
    assert.equal(ws.host.prompts.length, 2);
  });
});
