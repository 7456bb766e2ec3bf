/**
 * The bridge to the user's MCP servers under test in a process of its own, wired as
 * src/vscode/mcpServers/mcpServersBridge.ts wires it: `McpServerSupervisor` starting a real MCP
 * server process over stdio (hosts/mcpRelay.mjs, which pipes to the fuzzer), each tool list built
 * into the group `MCP: fuzz` (buildMcpGroup) and registered, the server's state and reason through
 * the door as the Tool Groups view shows them, and tool calls through a dispatcher of the same
 * core (as the backend's calls run), their answers encoded for the backend by the protocol codec
 * and their records through the chat's adapter.
 *
 *   argv: {"port": N}   the fuzzer's TCP port for the relay
 */
import * as path from 'node:path';
import { lineLogger } from '../../../src/base/logger';
import { ClientCore } from '../../../src/core/clientCore';
import { McpCalls } from '../../../src/core/mcpServer/mcpCalls';
import { CallerLifetime } from '../../../src/core/consent/callerLifetime';
import type { Disposable } from '../../../src/base/events';
import { uiText } from '../../../src/core/uiText';
import { encode } from '../../../src/protocol';
import { HostToWebview } from '../../../src/protocol/webview';
import { buildMcpGroup } from '../../../src/tools/mcpClient/group';
import { McpServerSupervisor, type McpServerState } from '../../../src/tools/mcpClient/supervisor';
import { toChatCallRecord } from '../../../src/vscode/chat/chatBridge';
import { workspace } from '../support/doorHost';
import { onRequest, ready, serveHealth } from '../support/hostAgent';

async function main(): Promise<void> {
  const { port } = JSON.parse(process.argv[2]) as { port: number };
  const { host } = await workspace();
  // Lines the bridge logs are formatted as the extension's log formats them, and counted: a line of
  // the server's that the transport dropped unread (a transport error) and a tools list refused (a
  // warning) are how the fuzzer knows a case was dealt with without a state change.
  let dropped = 0;
  let warnings = 0;
  const logger = lineLogger((level, line) => {
    if (level === 'debug' && line.startsWith('MCP server transport error')) dropped++;
    else if (level === 'warn' || level === 'error') warnings++;
  });
  const core = new ClientCore({ url: '', token: '', clientInfo: { name: 'fuzz', version: '0.0.0', ide: 'none' }, host, presenter: host, logger, permissions: { backgroundCalls: 'allow', barrage: { maxPromptsPerMinute: 1_000_000 } } });
  const calls = new McpCalls((o) => core.createDispatcher(o));
  calls.onCallRecord((r) => HostToWebview.safeParse(JSON.parse(JSON.stringify({ type: 'callRecord', record: toChatCallRecord(r, (b) => Buffer.from(b).toString('base64')) }))));

  let supervisor: McpServerSupervisor | undefined;
  let registration: Disposable | undefined;
  let signature = '';
  let changes = 0;
  const onState = (s: McpServerState, from: McpServerSupervisor) => {
    changes++;
    if (s.kind === 'running') {
      const next = JSON.stringify(s.tools);
      if (next !== signature || !registration) {
        registration?.dispose();
        registration = undefined;
        signature = next;
        const built = buildMcpGroup('fuzz', s.tools, (tool, args, signal) => from.callTool(tool, args, signal), (n) => core.registry.get(n) !== undefined);
        for (const skipped of built.skipped) logger.warn(`MCP server "fuzz": tool left out: ${skipped}`);
        try {
          registration = core.registry.register(built.group, built.tools);
        } catch (e) {
          logger.error(`MCP server "fuzz": could not register its tools: ${(e as Error).message}`);
        }
      }
    } else if (s.kind === 'failed' || s.kind === 'stopped') {
      registration?.dispose();
      registration = undefined;
      signature = '';
    }
    // The Tool Groups view: the group's state and reason, and each tool's name and description.
    if (s.kind === 'restarting' || s.kind === 'failed') uiText(s.reason);
    for (const g of core.registry.allDefinitions()) {
      for (const t of g.tools) {
        uiText(t.name);
        uiText(t.description);
      }
    }
  };
  const start = () => {
    const config = { name: 'fuzz', source: { kind: 'user' as const }, launch: { type: 'stdio' as const, command: process.execPath, args: [path.join(__dirname, 'mcpRelay.mjs'), String(port)], env: {} } };
    // Restarts and re-lists at once: a case waits for the work on its value, not for the burst guards (their own tests cover them).
    const s = new McpServerSupervisor(config, logger, { initialDelayMs: 10, maxDelayMs: 50, maxAttempts: 1_000_000, startTimeoutMs: 10_000, listChangedDelayMs: 1, minRelistIntervalMs: 0 });
    s.onDidChangeState((state) => onState(state, s));
    supervisor = s;
    s.start();
  };

  onRequest('state', () => ({ kind: supervisor?.state.kind, changes, dropped, warnings, tools: core.registry.allDefinitions().reduce((n, g) => n + g.tools.length, 0) }));
  onRequest('restart', async () => {
    await supervisor?.stop();
    start();
    return changes;
  });
  onRequest('call', async (payload) => {
    const { name, args } = payload as { name: string; args: Record<string, unknown> };
    const controller = new AbortController();
    const timer = setTimeout(() => controller.abort(), 10_000);
    const response = await calls.call(name, args, { caller: 'fuzz', lifetime: CallerLifetime.until(controller.signal) });
    clearTimeout(timer);
    encode(response);
    return response.success ? 'answered' : `refused ${response.errorCode}`;
  });
  start();
  ready({ healthUrl: await serveHealth() }, async () => {
    await supervisor?.stop();
    calls.dispose();
    core.dispose();
  });
}

void main();
