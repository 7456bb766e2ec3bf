/**
 * The supervisor and group against the official reference server `@modelcontextprotocol/server-everything`
 * (stdio, a real child process, the official SDK client): tools listed, a text tool and an image
 * tool called through the registry's tools, the child killed and the restart seen.
 */
import * as assert from 'node:assert/strict';
import * as path from 'node:path';
import type { Logger } from '../../../../src/base/logger';
import { ToolRegistry } from '../../../../src/core/registry';
import type { ToolContext } from '../../../../src/core/tool';
import { parseMcpConfig, type McpServerConfig } from '../../../../src/tools/mcpServers/config';
import { buildMcpGroup } from '../../../../src/tools/mcpServers/group';
import { McpServerSupervisor, type McpServerState } from '../../../../src/tools/mcpServers/supervisor';

const EVERYTHING = path.resolve(__dirname, '../../../../node_modules/@modelcontextprotocol/server-everything/dist/index.js');

function everythingConfig(): McpServerConfig {
  const parsed = parseMcpConfig({ servers: { everything: { type: 'stdio', command: process.execPath, args: [EVERYTHING, 'stdio'] } } }, { kind: 'user' }, { userHome: '/home/u', env: {}, pathSeparator: '/' });
  const server = parsed.servers[0];
  assert.ok(server, JSON.stringify(parsed.problems));
  return server;
}

function waitFor(supervisor: McpServerSupervisor, pred: (s: McpServerState) => boolean, seconds = 20): Promise<McpServerState> {
  if (pred(supervisor.state)) return Promise.resolve(supervisor.state);
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`state stayed ${JSON.stringify(supervisor.state)}`)), seconds * 1000);
    const sub = supervisor.onDidChangeState((s) => {
      if (!pred(s)) return;
      clearTimeout(timer);
      sub.dispose();
      resolve(s);
    });
  });
}

function ctx(): ToolContext {
  return { signal: new AbortController().signal, requestId: 'r1', maxResultBytes: 1 << 24, permissionGranted: true, progress() {}, resolvePath: () => Promise.reject(new Error('no paths')), host: {} as never };
}

describe('MCP servers: the reference "everything" server over stdio', function () {
  this.timeout(60_000);
  const lines: string[] = [];
  const logger: Logger = { info: (m) => lines.push(m), warn: (m) => lines.push(m), error: (m) => lines.push(m) };
  let supervisor: McpServerSupervisor;

  beforeEach(() => {
    supervisor = new McpServerSupervisor(everythingConfig(), logger, { initialDelayMs: 200, maxDelayMs: 1000 });
    supervisor.start();
  });
  afterEach(async () => supervisor.stop());

  it('lists its tools, calls a text tool and an image tool through a registered group', async () => {
    const running = await waitFor(supervisor, (s) => s.kind === 'running');
    assert.ok(running.kind === 'running');
    const names = running.tools.map((t) => t.name);
    assert.ok(names.includes('echo') && names.includes('get-tiny-image'), names.join(', '));

    const registry = new ToolRegistry();
    const built = buildMcpGroup('everything', running.tools, (n, a, s) => supervisor.callTool(n, a, s), () => false);
    registry.register(built.group, built.tools);
    assert.equal(registry.snapshot()[0]?.name, 'MCP: everything');
    assert.equal(registry.definitions()[0]?.startCollapsed, true);

    const echo = registry.get('mcp_everything_echo');
    assert.ok(echo);
    assert.equal(echo.tool.requiresPermission, true);
    assert.equal(registry.validateArguments('mcp_everything_echo', { message: 'hi' }), undefined);
    const echoed = await echo.tool.run({ message: 'hello from the test' }, ctx(), undefined);
    assert.deepEqual(echoed.content, [{ type: 'text', text: 'Echo: hello from the test' }]);

    const image = registry.get('mcp_everything_get-tiny-image');
    assert.ok(image);
    const result = await image.tool.run({}, ctx(), undefined);
    const binary = result.content.find((c) => c.type === 'binary');
    assert.ok(binary && binary.type === 'binary');
    assert.equal(binary.mimeType, 'image/png');
    assert.deepEqual([...binary.bytes.subarray(0, 4)], [0x89, 0x50, 0x4e, 0x47]);
    registry.dispose();
  });

  it('starts the server again after its process is killed', async () => {
    await waitFor(supervisor, (s) => s.kind === 'running');
    const pid = (supervisor as unknown as { client: { transport: { pid: number | null } } }).client.transport.pid;
    assert.ok(typeof pid === 'number' && pid > 0);
    process.kill(pid, 'SIGKILL');
    const restarting = await waitFor(supervisor, (s) => s.kind === 'restarting');
    assert.ok(restarting.kind === 'restarting');
    assert.match(restarting.reason, /closed/);
    await waitFor(supervisor, (s) => s.kind === 'running');
    const newPid = (supervisor as unknown as { client: { transport: { pid: number | null } } }).client.transport.pid;
    assert.ok(typeof newPid === 'number' && newPid !== pid);
    const echoed = await supervisor.callTool('echo', { message: 'again' }, new AbortController().signal);
    assert.deepEqual(echoed, [{ type: 'text', text: 'Echo: again' }]);
    assert.ok(lines.some((l) => l.includes('restarting')), lines.join('\n'));
  });

  it('ends in the failed state, with the reason, when the command cannot start', async () => {
    await supervisor.stop();
    const broken: McpServerConfig = { name: 'broken', source: { kind: 'user' }, launch: { type: 'stdio', command: '/nonexistent/mcp-server', args: [], env: {} } };
    supervisor = new McpServerSupervisor(broken, logger, { initialDelayMs: 50, maxDelayMs: 100, maxAttempts: 3 });
    supervisor.start();
    const failed = await waitFor(supervisor, (s) => s.kind === 'failed');
    assert.ok(failed.kind === 'failed');
    assert.match(failed.reason, /could not start.*ENOENT.*gave up after 3 attempts/);
  });
});
