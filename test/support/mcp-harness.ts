/**
 * The editor's MCP server in plain Node, wired as the extension wires it: a ClientCore (registry,
 * permission gate, host) over a temporary workspace with the fake host, the built-in tools plus a
 * `Probe` group of test tools, `McpCalls` from `core.createDispatcher`, and `McpHttpServer` on a
 * loopback port. `connect()` gives an official SDK client over Streamable HTTP with the token.
 */
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { ClientCore } from '../../src/core/clientCore';
import type { CallRecord } from '../../src/core/callRecord';
import { McpCalls } from '../../src/core/mcpServer/mcpCalls';
import type { McpCredentialSet } from '../../src/core/mcpServer/mcpCredentials';
import type { McpListingMode } from '../../src/core/mcpServer/mcpGroups';
import { McpHttpServer } from '../../src/core/mcpServer/mcpHttpServer';
import { newMcpToken } from '../../src/core/mcpServer/mcpToken';
import type { BackgroundCallPolicy } from '../../src/core/callRecord';
import { CodedError, ErrorCode } from '../../src/protocol';
import { defineTool, jsonResult, textResult, type ClientTool } from '../../src/core/tool';
import { registerBuiltinGroups } from '../../src/tools';
import { RecordingLogger } from './dispatch-harness';
import { createTempWorkspace, type TempWorkspace } from './fake-host';
import { makePng } from './png';
import * as conformanceFixtures from '../fixtures/mcp-conformance-extension/fixtureTools';

export const PNG = makePng(2, 2);
const PNG_BYTES = new Uint8Array(PNG);

/** Tools whose results and behaviour the MCP tests need, beside the built-ins. */
export function probeTools(): ClientTool[] {
  const tool = (t: Omit<ClientTool, 'group' | 'declineStrategy'> & Partial<Pick<ClientTool, 'declineStrategy'>>): ClientTool =>
    defineTool({ group: 'Probe', declineStrategy: 'reject', availableWhenUntrusted: true, ...t });
  const none = { type: 'object', properties: {}, additionalProperties: false };
  return [
    tool({ name: 'Echo', description: 'Echoes its text.', parameters: { type: 'object', properties: { text: { type: 'string' } }, required: ['text'], additionalProperties: false }, requiresPermission: false, effects: { readOnly: true }, run: async (a) => textResult(String((a as { text: string }).text)) }),
    tool({ name: 'Stats', description: 'A JSON result.', parameters: none, requiresPermission: false, effects: { readOnly: true }, run: async () => jsonResult({ files: 3, ok: true }) }),
    tool({ name: 'Picture', description: 'An image result.', parameters: none, requiresPermission: false, effects: { readOnly: true }, run: async () => ({ content: [{ type: 'binary', mimeType: 'image/png', bytes: PNG_BYTES, filename: 'p.png' }] }) }),
    tool({ name: 'Archive', description: 'A non-image binary result.', parameters: none, requiresPermission: false, run: async () => ({ content: [{ type: 'binary', mimeType: 'application/zip', bytes: new Uint8Array([80, 75, 3, 4]), filename: 'a.zip' }] }) }),
    tool({ name: 'Broken', description: 'Always fails with a code.', parameters: none, requiresPermission: false, run: async () => { throw new CodedError(ErrorCode.NotFound, 'nothing at that path'); } }),
    tool({ name: 'Wait', description: 'Runs until cancelled.', parameters: none, requiresPermission: false, run: (_a, ctx) => new Promise((_resolve, reject) => ctx.signal.addEventListener('abort', () => { probeCounts.waitAborted += 1; reject(new CodedError(ErrorCode.Cancelled, 'stopped')); }, { once: true })) }),
    tool({ name: 'Guarded', description: 'Asks first.', parameters: none, requiresPermission: true, effects: { readOnly: false, destructive: true }, run: async () => { probeCounts.guardedRuns += 1; return textResult('guarded ran'); } }),
  ];
}

/** How often the probe tools got that far (module state: one harness at a time). */
export const probeCounts = { waitAborted: 0, guardedRuns: 0 };
export function resetProbeCounters(): void {
  probeCounts.waitAborted = 0;
  probeCounts.guardedRuns = 0;
}

export interface McpHarness {
  ws: TempWorkspace;
  core: ClientCore;
  calls: McpCalls;
  server: McpHttpServer;
  token: string;
  logger: RecordingLogger;
  records: CallRecord[];
  /** An official SDK client; `token` defaults to the window's. */
  connect(name?: string, token?: string): Promise<Client>;
  close(): Promise<void>;
}

/**
 * `listing`: flat (the default) or collapsed groups (mcpGroups.ts).
 * `conformanceFixtures`: also register the official conformance suite's fixture tools
 * (test/fixtures/mcp-conformance-extension/fixtureTools.js), the test-only group the suite's tool
 * scenarios call, as another extension's group would be.
 */
export async function startMcpHarness(options: { backgroundCalls?: BackgroundCallPolicy; files?: Record<string, string | Uint8Array>; conformanceFixtures?: boolean; listing?: McpListingMode; credentials?: McpCredentialSet } = {}): Promise<McpHarness> {
  const ws = await createTempWorkspace(['ws'], options.files ?? {});
  const logger = new RecordingLogger();
  const core = new ClientCore({
    url: '',
    token: '',
    clientInfo: { name: 'test', version: '1.0.0', ide: 'Fake IDE' },
    host: ws.host,
    presenter: ws.host,
    logger,
    limits: { progressIntervalMs: 200 },
    permissions: { backgroundCalls: options.backgroundCalls ?? 'ask' },
  });
  registerBuiltinGroups(core.registry);
  core.registry.register({ name: 'Probe', description: 'test tools' }, probeTools());
  if (options.conformanceFixtures) core.registry.register(conformanceFixtures.group, conformanceFixtures.tools());
  resetProbeCounters();
  const calls = new McpCalls((o) => core.createDispatcher(o));
  const records: CallRecord[] = [];
  calls.onCallRecord((r) => records.push(r));
  const token = newMcpToken();
  const server = await McpHttpServer.start({ registry: core.registry, calls, token, serverVersion: '0.0.0-test', logger, ...(options.listing ? { listing: options.listing } : {}), ...(options.credentials ? { credentials: options.credentials } : {}) });
  const clients: Client[] = [];
  return {
    ws,
    core,
    calls,
    server,
    token,
    logger,
    records,
    async connect(name = 'probe-client', bearer = token) {
      const client = new Client({ name, version: '1.0.0' });
      const transport = new StreamableHTTPClientTransport(new URL(server.url), { requestInit: { headers: { Authorization: `Bearer ${bearer}` } } });
      await client.connect(transport);
      clients.push(client);
      return client;
    },
    async close() {
      for (const c of clients) await c.close().catch(() => {});
      await server.close();
      calls.dispose();
      core.dispose();
      await ws.dispose();
    },
  };
}
