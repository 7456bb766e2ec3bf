/**
 * The fuzzer's end of an ACP agent (entries/agentToAcpClient.ts): newline-delimited JSON-RPC over a
 * loopback TCP port that the agent process the client under test starts (hosts/mcpRelay.mjs) pipes
 * its stdio to, so hostile lines reach the client's real stdio transport. It answers the client's
 * handshake validly; a `session/prompt` runs the case's lines (`turn`) and then answers the prompt
 * (with the case's own answer when it has one). Each line with an `id` and a `method` is a request
 * of the agent's: the client must answer every one, with a result or an error.
 */
import * as net from 'node:net';
import type { AddressInfo } from 'node:net';

export const SESSION_ID = 'fuzz-session';
const PROTOCOL_VERSION = 1;

export interface Answer {
  id: unknown;
  result?: unknown;
  error?: { code?: number; message?: string; data?: { code?: string } };
}

/** What one turn sends: the agent's lines in order, and the raw answer to the prompt (undefined: `end_turn`). */
export interface TurnScript {
  lines: string[];
  /** The ids of the requests among `lines` (a reused id counts once per request). */
  requests: string[];
  promptAnswer?: (id: unknown) => string;
}

export class AgentSide {
  private socket: net.Socket | undefined;
  private buffered = '';
  private script: TurnScript | undefined;
  private answers: Answer[] = [];
  private readonly onAnswer = new Set<() => void>();
  private turnDone: (() => void) | undefined;
  /** Connections the client opened (a restarted agent process opens another). */
  connections = 0;

  private constructor(readonly server: net.Server) {
    server.on('connection', (socket) => {
      this.socket?.destroy();
      this.socket = socket;
      this.buffered = '';
      this.connections++;
      socket.setEncoding('utf8');
      socket.on('data', (chunk: string) => this.onData(socket, chunk));
      socket.on('error', () => {});
    });
  }

  static async start(): Promise<AgentSide> {
    const server = net.createServer();
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    return new AgentSide(server);
  }

  get port(): number {
    return (this.server.address() as AddressInfo).port;
  }

  /** Sets what the next `session/prompt` sends; resolves once its lines are written and the prompt answered. */
  nextTurn(script: TurnScript): Promise<void> {
    this.script = script;
    this.answers = [];
    return new Promise<void>((resolve) => (this.turnDone = resolve));
  }

  /** The client's answers to the turn's requests once each has one, or those it had after `timeoutMs`. */
  async answersTo(requests: readonly string[], timeoutMs: number): Promise<{ answers: Answer[]; missing: string[] }> {
    const missing = () => {
      const left = [...requests];
      for (const a of this.answers) {
        const i = left.indexOf(String(a.id));
        if (i >= 0) left.splice(i, 1);
      }
      return left;
    };
    const deadline = Date.now() + timeoutMs;
    while (missing().length > 0 && Date.now() < deadline) {
      await new Promise<void>((resolve) => {
        const woken = () => (clearTimeout(timer), this.onAnswer.delete(woken), resolve());
        const timer = setTimeout(woken, Math.max(1, deadline - Date.now()));
        this.onAnswer.add(woken);
      });
    }
    return { answers: [...this.answers], missing: missing() };
  }

  async close(): Promise<void> {
    this.socket?.destroy();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }

  private write(text: string): void {
    this.socket?.write(`${text}\n`);
  }

  private onData(socket: net.Socket, chunk: string): void {
    if (socket !== this.socket) return;
    this.buffered += chunk;
    let newline: number;
    while ((newline = this.buffered.indexOf('\n')) >= 0) {
      const line = this.buffered.slice(0, newline);
      this.buffered = this.buffered.slice(newline + 1);
      let m: { id?: unknown; method?: unknown; result?: unknown; error?: Answer['error'] };
      try {
        m = JSON.parse(line) as typeof m;
      } catch {
        continue;
      }
      if (typeof m.method === 'string') {
        if (m.id !== undefined) this.onRequest(m.method, m.id);
      } else if (m.id !== undefined) {
        this.answers.push({ id: m.id, ...('result' in m ? { result: m.result } : {}), ...(m.error ? { error: m.error } : {}) });
        for (const wake of [...this.onAnswer]) wake();
      }
    }
  }

  private onRequest(method: string, id: unknown): void {
    const answer = (result: unknown) => this.write(JSON.stringify({ jsonrpc: '2.0', id, result }));
    if (method === 'initialize') answer({ protocolVersion: PROTOCOL_VERSION, agentCapabilities: {}, agentInfo: { name: 'fuzz-agent', version: '0' } });
    else if (method === 'session/new') answer({ sessionId: SESSION_ID });
    else if (method === 'session/prompt') {
      const script = this.script;
      this.script = undefined;
      for (const line of script?.lines ?? []) this.write(line);
      // The prompt's answer after the client has answered the turn's requests (or given up on them), as an agent ends a turn.
      void this.answersTo(script?.requests ?? [], 15_000).then(() => {
        this.write(script?.promptAnswer ? script.promptAnswer(id) : JSON.stringify({ jsonrpc: '2.0', id, result: { stopReason: 'end_turn' } }));
        const done = this.turnDone;
        this.turnDone = undefined;
        done?.();
      });
    } else answer({});
  }
}
