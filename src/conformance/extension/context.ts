/**
 * What the extension checks share: where the kit listens, the connected extension, its hello, and
 * the tools the kit calls (a harmless probe tool, one with required parameters, a file reader).
 */
import { randomBytes } from 'node:crypto';
import type { ClientToolInvokeResponse, Hello, ToolDefinition, ToolGroupState, Welcome } from '../../protocol';
import { DEFAULT_LIMITS, PROTOCOL, toFunctionName } from '../../protocol';
import { CheckFailed, skip } from '../check';
import type { ExtensionPeer } from './peer';
import type { ConformanceServer, UpgradeFacts } from './server';

export interface ExtensionTarget {
  host: string;
  port: number;
  /** The token the extension must present; without one any token is accepted. */
  token: string | undefined;
  /** How long the kit waits for the extension to connect. */
  connectMs: number;
  /** How long one answer may take (a permission prompt a person answers counts). */
  waitMs: number;
  /** The harmless tool to call, and its arguments; default GetWorkspaceFolders or the first tool needing neither permission nor arguments. */
  tool?: string;
  args?: Record<string, unknown>;
  /** A binary file of the open workspace for the binary-result check (e.g. an image). */
  readPath?: string;
}

export class ExtensionContext {
  peer: ExtensionPeer | undefined;
  upgrade: UpgradeFacts | undefined;
  hello: Hello | undefined;
  /** The probe call's request id and answer, for the duplicate check. */
  probeAnswer: { requestId: string; toolName: string; args: Record<string, unknown>; response: ClientToolInvokeResponse } | undefined;
  private requests = 0;
  private readonly prefix = `conformance-${randomBytes(4).toString('hex')}`;

  constructor(readonly target: ExtensionTarget, readonly server: ConformanceServer) {}

  connected(): { peer: ExtensionPeer; hello: Hello } {
    if (!this.peer) return skip('no extension connected');
    if (!this.hello) return skip('the extension sent no valid hello');
    return { peer: this.peer, hello: this.hello };
  }

  tools(): ToolDefinition[] {
    return this.connected().hello.toolGroups.flatMap((g) => g.tools);
  }

  /** The tool the kit calls to see a call succeed. */
  probe(): { name: string; args: Record<string, unknown> } {
    const tools = this.tools();
    if (this.target.tool) {
      if (!tools.some((t) => t.name === this.target.tool)) throw new CheckFailed(`the extension registered no tool ${this.target.tool}`);
      return { name: this.target.tool, args: this.target.args ?? {} };
    }
    const plain = tools.find((t) => t.name === 'GetWorkspaceFolders') ?? tools.find((t) => !t.requiresPermission && !t.hidden && !hasRequired(t));
    if (!plain) return skip('the extension offers no tool that needs neither permission nor arguments; name one with --tool and --args');
    return { name: plain.name, args: {} };
  }

  nextRequestId(): string {
    return `${this.prefix}-${++this.requests}`;
  }

  /** Sends a clientToolInvokeRequest and waits for its answer. */
  async invoke(toolName: string, args: Record<string, unknown>, requestId = this.nextRequestId()): Promise<ClientToolInvokeResponse> {
    const { peer } = this.connected();
    const since = peer.mark();
    peer.send({ type: 'clientToolInvokeRequest', requestId, toolName, callId: `call-${requestId}`, arguments: args });
    return this.answer(requestId, since);
  }

  async answer(requestId: string, since: number): Promise<ClientToolInvokeResponse> {
    try {
      return await this.connected().peer.response(requestId, this.target.waitMs, since);
    } catch (e) {
      throw new CheckFailed((e as Error).message);
    }
  }
}

export function hasRequired(tool: ToolDefinition): boolean {
  return Array.isArray(tool.parameters.required) && tool.parameters.required.length > 0;
}

/** What the kit, as a backend, tells the extension it shows the model: every group expanded. */
export function groupStateFor(hello: Hello): ToolGroupState {
  return {
    type: 'toolGroupState',
    collapsing: false,
    groups: hello.toolGroups.map((g) => ({
      name: g.name,
      description: g.description,
      expanded: true,
      containerName: toFunctionName(g.name),
      tools: g.tools.map((t) => ({ name: t.name, visible: !t.hidden, requiresPermission: t.requiresPermission ?? false })),
      skills: (g.skills ?? []).map((s) => ({ name: s.name, active: false })),
    })),
  };
}

export function welcomeFor(): Welcome {
  return {
    type: 'welcome',
    protocol: PROTOCOL,
    sessionId: `conformance-session-${randomBytes(6).toString('hex')}`,
    resumeSecret: randomBytes(32).toString('base64url'),
    resumed: false,
    server: { name: 'client-tools-conformance', version: '1', model: { name: 'conformance-script', offline: true } },
    limits: { maxMessageBytes: DEFAULT_LIMITS.maxMessageBytes, maxInFlight: DEFAULT_LIMITS.maxInFlight, invokeTimeoutMs: DEFAULT_LIMITS.invokeTimeoutMs },
  };
}
