/**
 * A deliberately wrong backend for the kit's own tests: a real `ws` server on loopback that says
 * hello back but gets chosen rules wrong, so the matching checks must fail. With `readsFile` its
 * "model" does what the kit's prompt asks (expands the kit's group, then calls ReadFile), so the
 * checks that need a model run against its faults too.
 */
import * as http from 'node:http';
import type { AddressInfo } from 'node:net';
import { WebSocketServer } from 'ws';
import type { ServerToClient } from '../../../src/protocol';
import { decodeFromClient, encode, ErrorCode, PROTOCOL, SUBPROTOCOL, TOKEN_HEADER } from '../../../src/protocol';

export interface Faults {
  /** Upgrades without looking at the token. */
  acceptsAnyToken?: boolean;
  /** Completes the upgrade without selecting the subprotocol. */
  noSubprotocol?: boolean;
  /** Answers every message it cannot use with INTERNAL instead of the documented code. */
  wrongCodes?: boolean;
  /** Its model expands the kit's group and calls ReadFile, and it echoes every result whole, whatever hello.limits says. */
  readsFile?: boolean;
  /** With readsFile: refuses the ReadFile call itself but announces it with executor client (the extension then drew no card). */
  refusesAsClient?: boolean;
  /** With readsFile: sends the thread's toolGroupState after the ReadFile request instead of before. */
  stateAfterRequest?: boolean;
  /** Reports a repeated tool name without naming the group and tool. */
  unnamedRegistrationErrors?: boolean;
  /** Answers a text frame that is not UTF-8 with PARSE_ERROR and keeps the connection (RFC 6455 says close with 1007). */
  keepsInvalidUtf8?: boolean;
  /** Answers a plain GET with 200 instead of 426. */
  servesPlainHttp?: boolean;
}

export interface BrokenBackend {
  url: string;
  token: string;
  close(): Promise<void>;
}

/** The broken backend's "model": expand the kit's group, call ReadFile, echo the result whole, complete the run. */
class FileReader {
  private calls = 0;
  private readonly waiting = new Map<string, { threadId: string; runId: string; callId: string }>();

  constructor(
    private readonly send: (m: ServerToClient) => void,
    private readonly faults: Faults,
  ) {}

  run(threadId: string): void {
    const n = ++this.calls;
    const runId = `run-${n}`;
    const ref = { threadId, runId };
    const send = this.send;
    send({ type: 'runStarted', ...ref, model: 'broken' });
    send({ type: 'toolCallStarted', ...ref, callId: `expand-${n}`, toolName: 'ConformanceFiles', arguments: {}, executor: 'server', group: 'ConformanceFiles' });
    send({ type: 'groupExpanded', ...ref, group: 'ConformanceFiles', tools: ['ReadFile'] });
    send({ type: 'toolCallEnded', ...ref, callId: `expand-${n}`, outcome: 'succeeded', content: [{ type: 'text', text: 'ConformanceFiles expanded. Available functions: ReadFile' }], durationMs: 0 });
    const state: ServerToClient = { type: 'toolGroupState', threadId, collapsing: true, groups: [{ name: 'ConformanceFiles', description: 'x', expanded: true, containerName: 'ConformanceFiles', tools: [{ name: 'ReadFile', visible: true, requiresPermission: false }], skills: [] }] };
    if (!this.faults.stateAfterRequest) send(state);
    const callId = `read-${n}`;
    send({ type: 'toolCallStarted', ...ref, callId, toolName: 'ReadFile', arguments: { path: 'conformance.png' }, executor: 'client', group: 'ConformanceFiles' });
    if (this.faults.refusesAsClient) {
      send({ type: 'toolCallEnded', ...ref, callId, outcome: 'failed', content: [], errorMessage: 'refused by the backend', durationMs: 0 });
      send({ type: 'runFinished', ...ref, reason: 'completed' });
      return;
    }
    const requestId = `broken-req-${n}`;
    this.waiting.set(requestId, { ...ref, callId });
    send({ type: 'clientToolInvokeRequest', requestId, toolName: 'ReadFile', callId, arguments: { path: 'conformance.png' }, threadId });
    if (this.faults.stateAfterRequest) send(state);
  }

  /** True when `data` was the answer to one of its requests (then the call ends, echoed whole, and the run completes). */
  answered(data: Buffer, isBinary: boolean): boolean {
    const decoded = decodeFromClient(data, isBinary);
    if (!decoded.ok || decoded.message.type !== 'clientToolInvokeResponse') return false;
    const call = this.waiting.get(decoded.message.requestId);
    if (!call) return false;
    this.waiting.delete(decoded.message.requestId);
    const { threadId, runId, callId } = call;
    const r = decoded.message;
    this.send({ type: 'toolCallEnded', threadId, runId, callId, outcome: r.success ? 'succeeded' : 'failed', content: r.content, ...(r.errorMessage ? { errorMessage: r.errorMessage } : {}), durationMs: 1 });
    this.send({ type: 'runFinished', threadId, runId, reason: 'completed' });
    return true;
  }
}

export async function startBrokenBackend(faults: Faults): Promise<BrokenBackend> {
  const token = 'broken-backend-token-0123456789';
  const server = http.createServer((_req, res) => {
    res.writeHead(faults.servesPlainHttp ? 200 : 426);
    res.end();
  });
  const wss = new WebSocketServer({ noServer: true, skipUTF8Validation: faults.keepsInvalidUtf8 === true, handleProtocols: (offered) => (faults.noSubprotocol || !offered.has(SUBPROTOCOL) ? false : SUBPROTOCOL) });
  server.on('upgrade', (req, socket, head) => {
    if (!faults.acceptsAnyToken && req.headers[TOKEN_HEADER] !== token) {
      socket.end('HTTP/1.1 401 Unauthorized\r\nConnection: close\r\nContent-Length: 0\r\n\r\n');
      return;
    }
    wss.handleUpgrade(req, socket, head, (ws) => {
      const send = (m: ServerToClient) => {
        const frame = encode(m);
        ws.send(frame.data, { binary: frame.binary });
      };
      let sessions = 0;
      const reads = new FileReader(send, faults);
      // ws fails the connection itself on a frame it refuses (invalid UTF-8: close 1007) and reports it here.
      ws.on('error', () => undefined);
      ws.on('message', (data, isBinary) => {
        if (faults.keepsInvalidUtf8 && !isBinary && !Buffer.from(data as Buffer).equals(Buffer.from(Buffer.from(data as Buffer).toString('utf8')))) {
          send({ type: 'error', code: ErrorCode.ParseError, message: 'not UTF-8' });
          return;
        }
        let message: { type?: string; threadId?: string; toolGroups?: { name: string; tools: { name: string }[] }[] } | undefined;
        try {
          message = isBinary ? undefined : (JSON.parse(String(data)) as { type?: string });
        } catch {
          message = undefined;
        }
        if (message?.type === 'hello') {
          send({ type: 'welcome', protocol: PROTOCOL, sessionId: `broken-${++sessions}`, resumed: false, server: { name: 'broken', version: '0', model: { name: 'none', offline: true } }, limits: { maxMessageBytes: 1 << 20, maxInFlight: 8, invokeTimeoutMs: 30_000 } });
          const names = (message.toolGroups ?? []).flatMap((g) => g.tools.map((t) => t.name));
          if (faults.unnamedRegistrationErrors && new Set(names).size < names.length) send({ type: 'error', code: ErrorCode.NameTaken, message: 'a tool name is used twice' });
          send({ type: 'toolGroupState', collapsing: true, groups: [{ name: 'ConformanceFiles', description: 'x', expanded: false, containerName: 'ConformanceFiles', tools: [{ name: 'ReadFile', visible: false, requiresPermission: false }], skills: [] }] });
        } else if (faults.readsFile && message?.type === 'userMessage' && message.threadId) {
          reads.run(message.threadId);
        } else if (faults.readsFile && reads.answered(data as Buffer, isBinary)) {
          // the result of its ReadFile
        } else if (message?.type === 'userMessage' && message.threadId) {
          // A backend whose model never calls a tool: the model-dependent checks must be skipped, not failed.
          send({ type: 'runStarted', threadId: message.threadId, runId: 'run-1', model: 'none' });
          send({ type: 'textDelta', threadId: message.threadId, runId: 'run-1', text: 'I do not use tools.' });
          send({ type: 'runFinished', threadId: message.threadId, runId: 'run-1', reason: 'completed' });
        } else if (faults.wrongCodes) {
          send({ type: 'error', code: 'INTERNAL', message: 'something went wrong' });
        }
      });
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `ws://127.0.0.1:${(server.address() as AddressInfo).port}`,
    token,
    async close() {
      for (const c of wss.clients) c.terminate();
      wss.close();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
