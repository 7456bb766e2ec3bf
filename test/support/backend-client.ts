/**
 * A scripted client for backend tests: a real `ws` socket on loopback that speaks the protocol
 * through the codec, records everything it receives, and can answer tool requests automatically.
 */
import { WebSocket } from 'ws';
import type { ClientToServer, ClientToolInvokeRequest, ClientToolInvokeResponse, Hello, ServerToClient, ToolGroupDefinition, Welcome } from '../../src/protocol';
import { decodeFromServer, encode, PROTOCOL, TOKEN_HEADER } from '../../src/protocol';

export type Msg<T extends ServerToClient['type']> = Extract<ServerToClient, { type: T }>;

/** What an auto-responder returns: a response (without type/requestId), or undefined to leave the request alone. */
export type Responder = (req: ClientToolInvokeRequest, client: TestClient) => Omit<ClientToolInvokeResponse, 'type' | 'requestId'> | undefined | Promise<Omit<ClientToolInvokeResponse, 'type' | 'requestId'> | undefined>;

export class TestClient {
  readonly received: ServerToClient[] = [];
  /** Raw frames that did not decode (should stay empty). */
  readonly undecodable: string[] = [];
  private readonly consumed = new Set<number>();
  private readonly waiters: (() => void)[] = [];
  private responder: Responder | undefined;
  readonly closed: Promise<{ code: number; reason: string }>;

  private constructor(readonly ws: WebSocket) {
    ws.on('message', (data, isBinary) => {
      const decoded = decodeFromServer(data as Buffer, isBinary);
      if (!decoded.ok) {
        this.undecodable.push(`${decoded.error.code}: ${decoded.error.message}`);
        return;
      }
      this.received.push(decoded.message);
      for (const w of this.waiters.splice(0)) w();
      if (decoded.message.type === 'clientToolInvokeRequest' && this.responder) void this.autoRespond(decoded.message);
    });
    this.closed = new Promise((resolve) => ws.once('close', (code, reason) => resolve({ code, reason: reason.toString() })));
  }

  static connect(url: string, token: string, headers: Record<string, string> = {}): Promise<TestClient> {
    return new Promise((resolve, reject) => {
      const ws = new WebSocket(url, { headers: { [TOKEN_HEADER]: token, ...headers }, perMessageDeflate: false });
      const client = new TestClient(ws);
      ws.once('open', () => resolve(client));
      ws.once('error', reject);
      ws.once('unexpected-response', (_req, res) => reject(new Error(`HTTP ${res.statusCode}`)));
    });
  }

  /** Connects and completes the handshake. */
  static async open(url: string, token: string, hello: Partial<Hello> = {}): Promise<{ client: TestClient; welcome: Welcome }> {
    const client = await TestClient.connect(url, token);
    const welcome = await client.hello(hello);
    return { client, welcome };
  }

  async hello(overrides: Partial<Hello> = {}): Promise<Welcome> {
    this.send(helloMessage(overrides));
    return this.next('welcome');
  }

  send(message: ClientToServer | string): void {
    if (typeof message === 'string') {
      this.ws.send(message);
      return;
    }
    const frame = encode(message);
    this.ws.send(frame.data, { binary: frame.binary });
  }

  respond(requestId: string, response: Omit<ClientToolInvokeResponse, 'type' | 'requestId'>): void {
    this.send({ type: 'clientToolInvokeResponse', requestId, ...response });
  }

  /** Answers every tool request (also those already received and not yet consumed) with `responder`. */
  autoAnswer(responder: Responder): void {
    this.responder = responder;
    for (let i = 0; i < this.received.length; i++) {
      const m = this.received[i];
      if (m.type === 'clientToolInvokeRequest' && !this.consumed.has(i)) void this.autoRespond(m);
    }
  }

  /** The first message of `type` (matching `where`) not consumed yet, waiting for it if needed. */
  next<T extends ServerToClient['type']>(type: T, where: (m: Msg<T>) => boolean = () => true, timeoutMs = 5000): Promise<Msg<T>> {
    return new Promise((resolve, reject) => {
      // What was looked at did not match and never will: each look starts where the last ended
      // (from the start every time, 40,000 text deltas took seconds of this process's time).
      let from = 0;
      const find = (): boolean => {
        for (let i = from; i < this.received.length; i++) {
          const m = this.received[i];
          if (!this.consumed.has(i) && m.type === type && where(m as Msg<T>)) {
            this.consumed.add(i);
            resolve(m as Msg<T>);
            return true;
          }
        }
        from = this.received.length;
        return false;
      };
      if (find()) return;
      const timer = setTimeout(() => {
        reject(new Error(`no "${type}" message within ${timeoutMs} ms; received: ${this.received.map((m) => m.type).join(', ')}`));
      }, timeoutMs);
      const retry = () => {
        if (find()) clearTimeout(timer);
        else this.waiters.push(retry);
      };
      this.waiters.push(retry);
    });
  }

  /** Every message received so far of `type` (consumed or not). */
  all<T extends ServerToClient['type']>(type: T, where: (m: Msg<T>) => boolean = () => true): Msg<T>[] {
    return this.received.filter((m): m is Msg<T> => m.type === type && where(m as Msg<T>));
  }

  /** Sends a user message and waits for its run to finish; returns the run's id and events. */
  async run(threadId: string, text: string, timeoutMs = 8000): Promise<{ runId: string; finished: Msg<'runFinished'>; events: ServerToClient[] }> {
    this.send({ type: 'userMessage', threadId, text });
    const started = await this.next('runStarted', (m) => m.threadId === threadId, timeoutMs);
    const finished = await this.next('runFinished', (m) => m.runId === started.runId, timeoutMs);
    return { runId: started.runId, finished, events: this.runEvents(started.runId) };
  }

  runEvents(runId: string): ServerToClient[] {
    return this.received.filter((m) => 'runId' in m && m.runId === runId);
  }

  /** The streamed text of a run. */
  text(runId: string): string {
    return this.all('textDelta', (m) => m.runId === runId).map((m) => m.text).join('');
  }

  close(): Promise<void> {
    if (this.ws.readyState === WebSocket.CLOSED) return Promise.resolve();
    this.ws.close();
    return this.closed.then(() => undefined);
  }

  /** Drops the connection without a closing handshake (a crash or a network loss). */
  drop(): Promise<void> {
    this.ws.terminate();
    return this.closed.then(() => undefined);
  }

  private async autoRespond(req: ClientToolInvokeRequest): Promise<void> {
    const index = this.received.indexOf(req);
    this.consumed.add(index);
    const response = await this.responder?.(req, this);
    if (response && this.ws.readyState === WebSocket.OPEN) this.respond(req.requestId, response);
  }
}

/** The HTTP status of a refused upgrade (or 101 when it was accepted). */
export function upgradeStatus(url: string, headers: Record<string, string>): Promise<number> {
  return new Promise((resolve, reject) => {
    const ws = new WebSocket(url, { headers, perMessageDeflate: false });
    ws.once('unexpected-response', (_req, res) => {
      resolve(res.statusCode ?? 0);
      ws.terminate();
    });
    ws.once('open', () => {
      resolve(101);
      ws.close();
    });
    ws.once('error', (e) => {
      if (!/Unexpected server response/.test(e.message)) reject(e);
    });
  });
}

export function helloMessage(overrides: Partial<Hello> = {}): Hello {
  return {
    type: 'hello',
    protocol: PROTOCOL,
    client: { name: 'test-client', version: '0.0.0', ide: 'mocha' },
    workspace: { folders: [{ name: 'ws', uri: 'file:///tmp/ws' }], trusted: true },
    toolGroups: [ideGroup()],
    ...overrides,
  };
}

/** The IDE group the demo model and many tests use. */
export function ideGroup(overrides: Partial<ToolGroupDefinition> = {}): ToolGroupDefinition {
  const path = { type: 'object', properties: { path: { type: 'string', description: 'Workspace-relative path' } }, required: ['path'], additionalProperties: false };
  return {
    name: 'IDE',
    description: 'Editor tools.',
    systemPrompt: 'IDE RULES: prefer OpenFile over ReadFile when the user wants to see a file.',
    functionResult: 'Tip: GetSelection first when the user mentions a selection.',
    tools: [
      { name: 'OpenFile', description: 'Open a file in the editor', parameters: { type: 'object', properties: { path: { type: 'string' }, line: { type: 'integer' }, preview: { type: 'boolean' } }, required: ['path'] } },
      { name: 'GetSelection', description: 'The current selection', parameters: { type: 'object', properties: {} } },
      { name: 'ShowMessage', description: 'Show a message', parameters: { type: 'object', properties: { message: { type: 'string' }, severity: { type: 'string', enum: ['info', 'warning', 'error'] } }, required: ['message'] } },
      { name: 'ReadFile', description: 'Read a file', parameters: path },
      { name: 'DeleteFile', description: 'Delete a file', parameters: path, requiresPermission: true, declineStrategy: 'reject' },
    ],
    ...overrides,
  };
}

export function delay(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}
