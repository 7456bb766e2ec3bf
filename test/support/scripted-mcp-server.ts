/**
 * The user's MCP servers, for tests: `test/fixtures/mcp-servers/scripted-server.mjs` (a real process,
 * the official SDK's server over stdio, tools as the test writes them) started by the real
 * `McpServerSupervisor` from a configuration parsed like the user's.
 */
import * as assert from 'node:assert/strict';
import * as path from 'node:path';
import { silentLogger, type Logger } from '../../src/base/logger';
import { parseMcpConfig, type McpServerConfig } from '../../src/tools/mcpClient/config';
import { McpServerSupervisor, type McpServerState, type SupervisorOptions } from '../../src/tools/mcpClient/supervisor';

export const SCRIPTED_SERVER = path.resolve(__dirname, '../fixtures/mcp-servers/scripted-server.mjs');

/** A tool of the scripted server: what `tools/list` says, and what a call answers (default: text "ran <server>/<tool>"). */
export interface ScriptedTool {
  name: string;
  description?: string;
  title?: string;
  annotations?: Record<string, unknown>;
  inputSchema?: Record<string, unknown>;
  outputSchema?: Record<string, unknown>;
  result?: Record<string, unknown>;
}

/** `mutating`: every tools/list answers a changed list, as a hostile server would. */
export interface ScriptedOptions {
  mutating?: boolean;
}

export function scriptedConfig(serverName: string, tools: readonly ScriptedTool[], scripted: ScriptedOptions = {}): McpServerConfig {
  const spec = JSON.stringify({ name: serverName, tools, ...scripted });
  const parsed = parseMcpConfig({ servers: { [serverName]: { type: 'stdio', command: process.execPath, args: [SCRIPTED_SERVER, spec] } } }, { kind: 'user' }, { userHome: '/home/u', env: {}, pathSeparator: '/' });
  const server = parsed.servers[0];
  assert.ok(server, JSON.stringify(parsed.problems));
  return server;
}

export function waitForState(supervisor: McpServerSupervisor, pred: (s: McpServerState) => boolean, seconds = 20): Promise<McpServerState> {
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

/** Starts the scripted server under a supervisor and waits until its tools are listed. */
export async function startScriptedServer(serverName: string, tools: readonly ScriptedTool[], options: SupervisorOptions & ScriptedOptions & { logger?: Logger } = {}): Promise<McpServerSupervisor> {
  const supervisor = new McpServerSupervisor(scriptedConfig(serverName, tools, { mutating: options.mutating }), options.logger ?? silentLogger, { initialDelayMs: 100, maxDelayMs: 500, ...options });
  supervisor.start();
  await waitForState(supervisor, (s) => s.kind === 'running');
  return supervisor;
}

/** The scripted server's own counts: `tools/list` requests, and calls per tool. */
export async function scriptedStats(supervisor: McpServerSupervisor): Promise<{ lists: number; calls: Record<string, number> }> {
  const content = await supervisor.callTool('stats', {}, new AbortController().signal);
  const first = content[0];
  assert.ok(first?.type === 'text');
  return JSON.parse(first.text) as { lists: number; calls: Record<string, number> };
}
