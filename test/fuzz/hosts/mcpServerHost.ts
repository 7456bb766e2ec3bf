/**
 * The editor's MCP server under test in a process of its own, wired as the extension wires it
 * (test/support/mcp-harness.ts does the same in the test's process): `ClientCore`'s registry, gate
 * and host with every built-in group and the fuzzer's tools, `McpCalls` through the core's
 * dispatcher, `McpHttpServer` on a loopback port with its token, and each call's record through
 * the chat's adapter as the extension shows MCP calls in the chat.
 *
 *   argv: {}
 */
import { lineLogger } from '../../../src/base/logger';
import { ClientCore } from '../../../src/core/clientCore';
import { McpCalls } from '../../../src/core/mcpServer/mcpCalls';
import { McpHttpServer } from '../../../src/core/mcpServer/mcpHttpServer';
import { newMcpToken } from '../../../src/core/mcpServer/mcpToken';
import { HostToWebview } from '../../../src/protocol/webview';
import { registerBuiltinGroups } from '../../../src/tools';
import { toChatCallRecord } from '../../../src/vscode/chat/chatBridge';
import { fuzzTools, workspace } from '../support/doorHost';
import { onRequest, ready, serveHealth } from '../support/hostAgent';

async function main(): Promise<void> {
  const { host, restoreFiles } = await workspace();
  const logger = lineLogger(() => {});
  const core = new ClientCore({ url: '', token: '', clientInfo: { name: 'fuzz', version: '0.0.0', ide: 'none' }, host, logger, permissions: { backgroundCalls: 'allow', barrage: { maxPromptsPerMinute: 1_000_000 } } });
  registerBuiltinGroups(core.registry);
  core.registry.register({ name: 'Fuzz', description: 'Tools of the fuzzer.' }, fuzzTools());
  const calls = new McpCalls((o) => core.createDispatcher(o));
  calls.onCallRecord((r) => HostToWebview.safeParse(JSON.parse(JSON.stringify({ type: 'callRecord', record: toChatCallRecord(r, (b) => Buffer.from(b).toString('base64')) }))));
  const token = newMcpToken();
  const server = await McpHttpServer.start({ registry: core.registry, calls, token, serverVersion: '0.0.0-fuzz', logger });
  onRequest('flush', async () => {
    await restoreFiles();
    return server.sessionCount;
  });
  ready({ healthUrl: await serveHealth(), url: server.url, token }, async () => {
    await server.close();
    calls.dispose();
    core.dispose();
  });
}

void main();
