/**
 * A lean client for the soak benchmark: a real `ws` socket that speaks the protocol through the
 * codec, answers every tool request as the extension would (at once, successfully), and counts
 * rather than records, so that 200 of them in one process for a minute stay small. Its figures:
 * turns (user message → runFinished) with their latency, tool calls answered and how the backend
 * reported them, and anything that went missing.
 */
import { WebSocket } from 'ws';
import type { ClientToServer, ServerToClient, ToolGroupDefinition } from '../../src/protocol';
import { assertNever, decodeFromServer, encode, TOKEN_HEADER } from '../../src/protocol';
import { helloMessage, ideGroup } from '../../test/support/backend-client';

export interface SoakCounts {
  turnsStarted: number;
  turnsCompleted: number;
  /** Runs that ended other than `completed`, or with a runError. */
  turnsFailed: number;
  callsRequested: number;
  callsAnswered: number;
  /** Client calls the backend reported as succeeded after the client answered. */
  callsSucceeded: number;
  /** Client calls that ended any other way. */
  callsFailed: number;
  /** Protocol errors and undecodable frames the backend sent. */
  errors: number;
}

export class SoakClient {
  readonly counts: SoakCounts = { turnsStarted: 0, turnsCompleted: 0, turnsFailed: 0, callsRequested: 0, callsAnswered: 0, callsSucceeded: 0, callsFailed: 0, errors: 0 };
  /** How many runs failed with each runError code. */
  readonly runErrors = new Map<string, number>();
  /** Turn latencies in µs. */
  readonly latenciesUs: number[] = [];
  /** Client-executed calls under way (server-side ones, such as expanding a group, are not counted). */
  private readonly clientCalls = new Set<string>();
  private turnStartedAt = 0;
  private turn = 0;
  private running = false;
  private stopping = false;
  private idle: (() => void) | undefined;

  private constructor(
    private readonly ws: WebSocket,
    private readonly name: string,
  ) {
    ws.on('message', (data: Buffer, isBinary: boolean) => this.receive(data, isBinary));
  }

  /** Connects and completes the handshake with the IDE group the demo model uses (or `groups`). */
  static connect(url: string, token: string, name: string, timeoutMs = 30_000, groups: ToolGroupDefinition[] = [ideGroup()]): Promise<SoakClient> {
    return new Promise((resolve, reject) => {
      const ws = new WebSocket(url, { headers: { [TOKEN_HEADER]: token }, perMessageDeflate: false });
      const client = new SoakClient(ws, name);
      const timer = setTimeout(() => reject(new Error(`${name}: no welcome within ${timeoutMs} ms`)), timeoutMs);
      ws.once('error', (e) => {
        clearTimeout(timer);
        reject(e);
      });
      ws.once('unexpected-response', (_req, res) => {
        clearTimeout(timer);
        reject(new Error(`${name}: HTTP ${res.statusCode}`));
      });
      ws.once('open', () => client.send(helloMessage({ toolGroups: groups })));
      client.onWelcome = () => {
        clearTimeout(timer);
        resolve(client);
      };
    });
  }

  /** Runs turns back to back until `stop()`. */
  start(): void {
    this.stopping = false;
    this.next();
  }

  /** Starts no new turn; resolves when the current one has finished, or after `drainMs`. */
  stop(drainMs: number): Promise<boolean> {
    this.stopping = true;
    if (!this.running) return Promise.resolve(true);
    return new Promise((resolve) => {
      const timer = setTimeout(() => resolve(false), drainMs);
      this.idle = () => {
        clearTimeout(timer);
        resolve(true);
      };
    });
  }

  close(): void {
    this.ws.terminate();
  }

  private onWelcome: () => void = () => {};

  private next(): void {
    if (this.stopping) {
      this.running = false;
      this.idle?.();
      return;
    }
    this.running = true;
    this.counts.turnsStarted++;
    this.turnStartedAt = performance.now();
    // One thread per client, as in a chat: each turn the model sees the thread's history.
    this.send({ type: 'userMessage', threadId: `${this.name}-chat`, text: ++this.turn % 2 ? 'open README.md' : 'read notes.md' });
  }

  private receive(data: Buffer, isBinary: boolean): void {
    const decoded = decodeFromServer(data, isBinary);
    if (!decoded.ok) {
      this.counts.errors++;
      return;
    }
    const m: ServerToClient = decoded.message;
    switch (m.type) {
      case 'welcome':
        this.onWelcome();
        break;
      case 'clientToolInvokeRequest':
        this.counts.callsRequested++;
        this.send({ type: 'clientToolInvokeResponse', requestId: m.requestId, success: true, content: [{ type: 'text', text: `${m.toolName} done: ${String(m.arguments.path)}` }] });
        this.counts.callsAnswered++;
        break;
      case 'toolCallStarted':
        if (m.executor === 'client') this.clientCalls.add(m.callId);
        break;
      case 'toolCallEnded':
        if (!this.clientCalls.delete(m.callId)) break;
        if (m.outcome === 'succeeded') this.counts.callsSucceeded++;
        else this.counts.callsFailed++;
        break;
      case 'runError':
        this.counts.turnsFailed++;
        this.runErrors.set(m.code, (this.runErrors.get(m.code) ?? 0) + 1);
        break;
      case 'runFinished':
        if (m.reason === 'completed') this.counts.turnsCompleted++;
        else this.counts.turnsFailed++;
        this.latenciesUs.push((performance.now() - this.turnStartedAt) * 1000);
        this.next();
        break;
      case 'error':
        this.counts.errors++;
        break;
      case 'clientToolCancel':
      case 'runStarted':
      case 'textDelta':
      case 'toolCallUpdated':
      case 'groupExpanded':
      case 'contextCompacted':
      case 'steerUpdated':
      case 'contextUsage':
      case 'modelRetry':
      case 'threadTruncated':
      case 'toolGroupState':
        // Nothing to count.
        break;
      default:
        assertNever(m, 'message from the backend');
    }
  }

  private send(message: ClientToServer): void {
    if (this.ws.readyState !== WebSocket.OPEN) return;
    const frame = encode(message);
    this.ws.send(frame.data, { binary: frame.binary });
  }
}
