/**
 * The supervisor and group against the official reference server `@modelcontextprotocol/server-everything`
 * (stdio, a real child process, the official SDK client): tools listed, a text tool and an image
 * tool called through the registry's tools, the child killed and the restart seen; and the same
 * server's Streamable HTTP transport, reached by URL with headers.
 */
import * as assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import * as net from 'node:net';
import * as path from 'node:path';
import type { Logger } from '../../../../src/base/logger';
import { ToolRegistry } from '../../../../src/core/registry';
import { CodedError } from '../../../../src/protocol';
import type { ToolContext } from '../../../../src/core/tool';
import { parseMcpConfig, type McpServerConfig } from '../../../../src/tools/mcpClient/config';
import { buildMcpGroup } from '../../../../src/tools/mcpClient/group';
import { McpServerSupervisor, type McpServerState } from '../../../../src/tools/mcpClient/supervisor';

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
  return { signal: new AbortController().signal, requestId: 'r1', recordId: 'rec-1', maxResultBytes: 1 << 24, permissionGranted: true, progress() {}, resolvePath: () => Promise.reject(new Error('no paths')), host: {} as never };
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

  it('a server that exits before answering is restarted with backoff and then failed, never left "starting"', async () => {
    await supervisor.stop();
    const quitter: McpServerConfig = { name: 'quitter', source: { kind: 'user' }, launch: { type: 'stdio', command: process.execPath, args: ['-e', 'process.stderr.write("bad config\\n"); process.exit(3)'], env: {} } };
    supervisor = new McpServerSupervisor(quitter, logger, { initialDelayMs: 50, maxDelayMs: 100, maxAttempts: 3 });
    const kinds: string[] = [];
    supervisor.onDidChangeState((s) => kinds.push(s.kind));
    supervisor.start();
    const failed = await waitFor(supervisor, (s) => s.kind === 'failed');
    assert.ok(failed.kind === 'failed');
    assert.match(failed.reason, /could not start: .*closed.*gave up after 3 attempts/i);
    assert.deepEqual(kinds, ['starting', 'restarting', 'starting', 'restarting', 'starting', 'failed']);
    assert.ok(lines.some((l) => l === '[quitter] bad config'), `stderr reaches the log: ${lines.join(' | ')}`);
  });
});

describe('MCP servers: the reference "everything" server over Streamable HTTP', function () {
  this.timeout(60_000);
  let child: ChildProcess | undefined;
  let supervisor: McpServerSupervisor | undefined;

  afterEach(async () => {
    await supervisor?.stop();
    child?.kill('SIGKILL');
  });

  /** Starts the server's HTTP transport on a free loopback port; resolves with its /mcp URL. */
  async function startHttpServer(reusePort?: number): Promise<string> {
    const port = reusePort ?? await new Promise<number>((resolve) => {
      const probe = net.createServer().listen(0, '127.0.0.1', () => {
        const { port: p } = probe.address() as net.AddressInfo;
        probe.close(() => resolve(p));
      });
    });
    child = spawn(process.execPath, [EVERYTHING, 'streamableHttp'], { env: { ...process.env, PORT: String(port) }, stdio: ['ignore', 'ignore', 'pipe'] });
    let stderr = '';
    await new Promise<void>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`the server did not start: ${stderr}`)), 20_000);
      child!.stderr!.on('data', (chunk: Buffer) => {
        stderr += chunk.toString();
        if (/listening on port/.test(stderr)) {
          clearTimeout(timer);
          resolve();
        }
      });
      child!.once('exit', () => reject(new Error(`the server exited: ${stderr}`)));
    });
    return `http://127.0.0.1:${port}/mcp`;
  }

  it('connects by URL, lists the tools and calls one; after the server dies a call fails, and the supervisor connects again once it is back', async () => {
    const url = await startHttpServer();
    const parsed = parseMcpConfig({ servers: { web: { type: 'http', url, headers: { 'X-Client-Tools-Test': '${env:T}' } } } }, { kind: 'user' }, { userHome: '/h', env: { T: 'yes' }, pathSeparator: '/' });
    const config = parsed.servers[0];
    assert.ok(config, JSON.stringify(parsed.problems));
    supervisor = new McpServerSupervisor(config, { info() {}, warn() {}, error() {} }, { initialDelayMs: 200, maxDelayMs: 1000, maxAttempts: 30 });
    supervisor.start();
    const running = await waitFor(supervisor, (s) => s.kind === 'running');
    assert.ok(running.kind === 'running' && running.tools.some((t) => t.name === 'get-sum'));
    const sum = await supervisor.callTool('get-sum', { a: 2, b: 3 }, new AbortController().signal);
    assert.match(JSON.stringify(sum), /5/);

    const dead = child!;
    const exited = new Promise((resolve) => dead.once('exit', resolve));
    dead.kill('SIGKILL');
    await exited;
    await assert.rejects(supervisor.callTool('get-sum', { a: 1, b: 1 }, new AbortController().signal), (e: unknown) => e instanceof CodedError && e.code === 'TOOL_FAILED');
    assert.equal(supervisor.state.kind, 'restarting');
    await startHttpServer(Number(new URL(url).port));
    await waitFor(supervisor, (s) => s.kind === 'running', 30);
    assert.match(JSON.stringify(await supervisor.callTool('get-sum', { a: 4, b: 5 }, new AbortController().signal)), /9/);
  });
});
