/**
 * What the backend checks share: where the backend is, how to connect and say hello as an
 * extension would, the tool group the kit registers, and the state one check leaves for the next
 * (the thread on which the model expanded the group, a call still waiting for its answer).
 */
import { randomBytes } from 'node:crypto';
import type { ClientToolInvokeRequest, Hello, ServerToClient, ToolGroupDefinition, Welcome } from '../../protocol';
import { DEFAULT_LIMITS, PROTOCOL } from '../../protocol';
import type { Upgrade, UpgradeOptions } from '../backendPeer';
import { BackendPeer, upgrade } from '../backendPeer';
import { CheckFailed } from '../check';

export interface BackendTarget {
  /** ws:// or wss:// address of the backend. */
  url: string;
  token: string;
  /** Run the Origin and Host refusals even when the URL is not loopback (they always run on loopback). */
  originCheck: boolean;
  /** What the kit says to the model to make it read a file (it must call the ReadFile tool). */
  prompt: string;
  /** How long one expected answer may take. */
  waitMs: number;
  /** Only these checks (ids, or prefixes such as `limits`); all when absent. */
  checks?: readonly string[];
}

export const FILES_GROUP_NAME = 'ConformanceFiles';
export const READ_TOOL = 'ReadFile';

/** The group the kit registers: one tool the model can use to read a file, starting collapsed. */
export const FILES_GROUP: ToolGroupDefinition = {
  name: FILES_GROUP_NAME,
  description: 'Files of the conformance kit\'s pretend workspace.',
  tools: [
    {
      name: READ_TOOL,
      description: 'Read a file from the workspace.',
      parameters: { type: 'object', properties: { path: { type: 'string' } }, required: ['path'] },
    },
  ],
};

/** The bytes the kit's ReadFile returns: a PNG signature and a few bytes that are not valid UTF-8. */
export const IMAGE_BYTES = Uint8Array.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0x00, 0xff, 0xfe, 0x80, 0x01, 0x02, 0x03, 0x04]);

export function helloMessage(overrides: Partial<Hello> = {}): Hello {
  return {
    type: 'hello',
    protocol: PROTOCOL,
    client: { name: 'client-tools-conformance', version: '1', ide: 'conformance kit' },
    workspace: { folders: [], trusted: true },
    toolGroups: [FILES_GROUP],
    // What the kit takes, as an extension announces it: the protocol's defaults.
    limits: { maxMessageBytes: DEFAULT_LIMITS.maxMessageBytes, maxInFlight: DEFAULT_LIMITS.maxInFlight, replayWindowMs: DEFAULT_LIMITS.replayWindowMs },
    ...overrides,
  };
}

/** A thread on which the model expanded the kit's group, and the call it left waiting, if any. */
export interface ToolThread {
  peer: BackendPeer;
  /** The session's welcome, for resuming it. */
  welcome: Welcome;
  threadId: string;
  pending?: ClientToolInvokeRequest;
}

export class BackendContext {
  readonly peers: BackendPeer[] = [];
  /** Every connection of the run, for the final schema check. */
  readonly everyPeer: BackendPeer[] = [];
  /** Set by the expansion check; the invoke checks run on it. */
  thread: ToolThread | undefined;
  /** Why the expansion check could not run, so the checks that build on it say the same. */
  threadSkipped: string | undefined;

  constructor(readonly target: BackendTarget) {}

  get loopback(): boolean {
    const host = new URL(this.target.url).hostname;
    return host === '127.0.0.1' || host === 'localhost' || host === '[::1]' || host === '::1';
  }

  /** An upgrade with the right token unless `options` says otherwise; the peer is closed at the end. */
  async upgrade(options: Partial<UpgradeOptions> = {}): Promise<Upgrade> {
    const result = await upgrade(this.target.url, { token: this.target.token, timeoutMs: this.target.waitMs, ...options });
    if (result.kind === 'open') {
      this.peers.push(result.peer);
      this.everyPeer.push(result.peer);
    }
    return result;
  }

  /** An open connection; fails the check when the backend refuses a correct upgrade. */
  async connect(): Promise<BackendPeer> {
    const result = await this.upgrade();
    if (result.kind === 'refused') throw new CheckFailed(`a correct upgrade was refused with HTTP ${result.status}`);
    if (result.kind === 'failed') throw new CheckFailed(`a correct upgrade failed: ${result.message}`);
    return result.peer;
  }

  /** A connection that has said hello and got its welcome. */
  async session(hello: Partial<Hello> = {}): Promise<{ peer: BackendPeer; welcome: Welcome }> {
    const peer = await this.connect();
    peer.send(helloMessage(hello));
    const welcome = await this.wait(peer, (m): m is Welcome => m.type === 'welcome', 'welcome');
    return { peer, welcome };
  }

  /** Waits for a message; a timeout or a closed connection fails the check with what was seen. */
  async wait<T extends ServerToClient>(peer: BackendPeer, match: (m: ServerToClient) => m is T, what: string, since?: number): Promise<T>;
  async wait(peer: BackendPeer, match: (m: ServerToClient) => boolean, what: string, since?: number): Promise<ServerToClient>;
  async wait(peer: BackendPeer, match: (m: ServerToClient) => boolean, what: string, since = 0): Promise<ServerToClient> {
    try {
      return await peer.waitFor(match, what, this.target.waitMs, since);
    } catch (e) {
      throw new CheckFailed((e as Error).message);
    }
  }

  /** Closes the connections of the last check, keeping the thread later checks build on. */
  async closeSpent(): Promise<void> {
    const spent = this.peers.filter((p) => p !== this.thread?.peer);
    this.peers.splice(0, this.peers.length, ...this.peers.filter((p) => p === this.thread?.peer));
    await Promise.all(spent.map((p) => p.close()));
  }

  async close(): Promise<void> {
    this.thread = undefined;
    await this.closeSpent();
  }
}

export function uniqueId(prefix: string): string {
  return `${prefix}-${randomBytes(6).toString('hex')}`;
}

/** An error message with `code`, for `wait`. */
export function errorCoded(code: string, relatedId?: string): (m: ServerToClient) => boolean {
  return (m) => m.type === 'error' && m.code === code && (relatedId === undefined || m.relatedId === relatedId);
}

/** The first `error` message from `since` on, whatever its code: a check then says whether the code is right. */
export async function nextError(context: BackendContext, peer: BackendPeer, since: number): Promise<Extract<ServerToClient, { type: 'error' }>> {
  return context.wait(peer, (m): m is Extract<ServerToClient, { type: 'error' }> => m.type === 'error', 'an error message', since);
}
