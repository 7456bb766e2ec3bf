/**
 * The editor's MCP server for one agent session: the same server as the window's own
 * (src/core/mcpServer/mcpHttpServer.ts: 127.0.0.1, Origin/Host checks, bearer token in constant time),
 * started for the session with a token of its own and closed with it, so the token dies with the
 * session and nothing else can use it. It is passed to the agent in `session/new` (HTTP with
 * `Authorization: Bearer`); its calls go through a dispatcher over the one registry, gate and host,
 * belong to the user's run while the agent's turn runs, and carry the agent's name on their cards.
 */
import { randomBytes } from 'node:crypto';
import type * as acp from '@agentclientprotocol/sdk';
import type { Disposable } from '../base/events';
import type { Logger } from '../base/logger';
import type { CallRecord } from '../core/callRecord';
import type { Dispatcher, DispatcherOptions } from '../core/dispatcher';
import { McpCalls, type DispatcherFactory, type McpCallOptions } from '../core/mcpServer/mcpCalls';
import type { McpListingMode } from '../core/mcpServer/mcpGroups';
import { McpHttpServer } from '../core/mcpServer/mcpHttpServer';
import { newMcpToken } from '../core/mcpServer/mcpToken';
import type { ToolRegistry } from '../core/registry';
import type { AgentCaller } from './agentCallbacks';

/**
 * What the name the agent sees the server under starts with (its tools become
 * `mcp__clienttools-k3f9qa7b__ReadFile`, …). The rest is random per session, so that no MCP server a
 * repository configures for the agent can take the name: a permission request naming this server is
 * then one the editor's own gate decides when the call arrives (editorToolRequest.ts).
 */
export const AGENT_MCP_NAME = 'clienttools';

/** `clienttools-` and eight random characters of base32's lowercase alphabet (40 bits): valid in every agent's tool names. */
export function newAgentMcpName(): string {
  const alphabet = 'abcdefghijklmnopqrstuvwxyz234567';
  return `${AGENT_MCP_NAME}-${Array.from(randomBytes(8), (b) => alphabet[b % 32]).join('')}`;
}

export interface AgentMcpCore {
  readonly registry: ToolRegistry;
  createDispatcher(options: Pick<DispatcherOptions, 'send'>): Dispatcher;
}

export interface AgentMcp extends Disposable {
  /** The entry for `session/new`: HTTP with this session's token. */
  readonly server: acp.McpServer;
  /** The server's name in that entry (newAgentMcpName). */
  readonly name: string;
  readonly url: string;
}

/** MCP calls named after the agent, whatever name its MCP client gives itself, and the user's while its turn runs. */
class AgentMcpCalls extends McpCalls {
  constructor(createDispatcher: DispatcherFactory, private readonly agent: string, userRun: () => boolean) {
    super(createDispatcher, userRun, 'agent');
  }

  override call(toolName: string, args: Record<string, unknown>, options: McpCallOptions) {
    return super.call(toolName, args, { ...options, caller: this.agent });
  }
}

export async function startAgentMcp(core: AgentMcpCore, caller: AgentCaller, options: { serverVersion: string; logger: Logger; onRecord: (record: CallRecord) => void; listing?: McpListingMode }): Promise<AgentMcp> {
  const calls = new AgentMcpCalls((o) => core.createDispatcher(o), caller.agent, () => caller.isRunning());
  const records = calls.onCallRecord(options.onRecord);
  const token = newMcpToken();
  let server: McpHttpServer;
  try {
    server = await McpHttpServer.start({ registry: core.registry, calls, token, serverVersion: options.serverVersion, logger: options.logger, listing: options.listing ?? 'flat' });
  } catch (e) {
    records.dispose();
    calls.dispose();
    throw e;
  }
  const name = newAgentMcpName();
  return {
    url: server.url,
    name,
    server: { type: 'http', name, url: server.url, headers: [{ name: 'Authorization', value: `Bearer ${token}` }] },
    dispose() {
      records.dispose();
      calls.dispose();
      void server.close();
    },
  };
}
