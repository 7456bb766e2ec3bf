/**
 * Entry point: the backend from an editor. Every client → backend message type
 * (`WireMessages.byDirection.clientToServer`) over a real WebSocket to the real backend in its own
 * process, its model the real `openai` SDK against the fake endpoint (test/support/fake-openai.ts):
 * a message that reaches the agent runs real turns, so what a run does with the value (history,
 * token counts, the request to the model) is measured too.
 *
 * Each case gets a connection and a session of its own (a session's rate allowances and threads do
 * not carry over), and the context its message needs: a run in progress for `cancel`, a call the
 * backend waits on for `clientToolInvokeResponse` and `clientToolProgress`. After a run ends, a
 * second turn on its thread reads the history back.
 */
import { randomUUID } from 'node:crypto';
import { WireMessages } from '../../../src/protocol/schemas';
import { DEFAULT_LIMITS, PROTOCOL, type ClientToolInvokeRequest, type Hello, type ServerToClient } from '../../../src/protocol';
import { startFakeOpenAI, type FakeOpenAI, type RecordedRequest, type Script } from '../../support/fake-openai';
import { describe as said, EditorPeer } from '../support/editorPeer';
import { planCases, type PlannedCase } from '../support/plan';
import type { EntryDriver } from '../support/runner';
import { Target } from '../support/target';
import { messageShapes } from '../support/zodShapes';

/** Makes the model call the Fuzz group's Echo tool. */
export const CALL_ECHO = 'please call Echo';

export function fuzzHello(): Hello {
  return {
    type: 'hello',
    protocol: PROTOCOL,
    client: { name: 'fuzzer', version: '0.0.0', ide: 'none' },
    workspace: { folders: [{ name: 'ws', uri: 'file:///tmp/ws' }], trusted: true },
    toolGroups: [{
      name: 'Fuzz',
      description: 'Tools of the fuzzer.',
      startCollapsed: false,
      tools: [{ name: 'Echo', description: 'Echoes its text.', parameters: { type: 'object', properties: { text: { type: 'string' } }, required: ['text'] } }],
    }],
  };
}

/** The model's side: Echo when the user asks for it, then a short answer; a short answer to anything else. */
export function scriptedModel(fake: FakeOpenAI): void {
  const answer = (request: RecordedRequest): Script => {
    fake.enqueue(answer);
    const last = request.body.messages?.at(-1) ?? request.body.input?.at(-1);
    if (last?.role === 'user' && typeof last.content === 'string' && last.content.includes(CALL_ECHO)) return { toolCalls: [{ name: 'Echo', arguments: { text: 'hi' } }] };
    return { text: 'Done.' };
  };
  fake.enqueue(answer);
}

const isType = <T extends ServerToClient['type']>(...types: T[]) => (m: ServerToClient): m is Extract<ServerToClient, { type: T }> => (types as string[]).includes(m.type);

export function editorToBackend(): EntryDriver {
  const token = `fuzz-${randomUUID()}`;
  let fake: FakeOpenAI | undefined;
  let url = '';
  let barriers = 0;

  /** A session with the Fuzz group; undefined when the handshake itself failed. */
  async function session(): Promise<EditorPeer> {
    const peer = await EditorPeer.connect(url, token);
    peer.send(fuzzHello());
    const welcome = await peer.next(isType('welcome'));
    if (typeof welcome === 'string') throw new Error(`handshake: ${welcome}`);
    return peer;
  }

  /** Resolves once the backend has handled everything sent before it (an unknown request id is answered in order). */
  async function barrier(peer: EditorPeer): Promise<string> {
    const requestId = `barrier-${++barriers}`;
    peer.send({ type: 'clientToolProgress', requestId, status: 'running' });
    return said(await peer.next((m) => m.type === 'error' && m.relatedId === requestId));
  }

  /** Waits for the run of `threadId` to end; then a second turn on it reads the history back. */
  async function finishRun(peer: EditorPeer, threadId?: string): Promise<string> {
    const end = await peer.next(isType('runFinished', 'runError'), 15_000);
    if (typeof end === 'string' || end.type === 'runError') return said(end);
    const thread = threadId ?? end.threadId;
    peer.send({ type: 'userMessage', threadId: thread, text: 'And now?' });
    const again = await peer.next((m) => (m.type === 'runFinished' || m.type === 'runError') && m.threadId === thread, 15_000);
    return `${said(end)}, then ${said(again)}`;
  }

  /** A run whose Echo call waits for the fuzzer's answer. */
  async function pendingCall(peer: EditorPeer, threadId: string): Promise<ClientToolInvokeRequest> {
    peer.send({ type: 'userMessage', threadId, text: CALL_ECHO });
    const request = await peer.next(isType('clientToolInvokeRequest'));
    if (typeof request === 'string') throw new Error(`no tool call: ${request}`);
    return request;
  }

  /** A message about the run in progress (a steer, its withdrawal) while its Echo call waits; then the run ends. */
  async function duringRun(c: PlannedCase, open: () => Promise<EditorPeer>): Promise<string> {
    const peer = await open();
    const request = await pendingCall(peer, 't1');
    const started = (await peer.next(isType('runStarted'), 1)) as Extract<ServerToClient, { type: 'runStarted' }> | string;
    const runId = typeof started === 'string' ? 'r' : started.runId;
    peer.sendText(c.text((s) => ({ ...(s as object), threadId: 't1', runId })));
    const answered = await barrier(peer);
    peer.send({ type: 'clientToolInvokeResponse', requestId: request.requestId, success: true, content: [{ type: 'text', text: 'ok' }] });
    return `${answered}; ${said(await peer.next(isType('runFinished', 'runError'), 15_000))}`;
  }

  const scenarios: Record<string, (c: PlannedCase, peer: () => Promise<EditorPeer>) => Promise<string>> = {
    async hello(c) {
      const peer = await EditorPeer.connect(url, token);
      try {
        peer.sendText(c.text());
        const first = await peer.next(isType('welcome', 'error'));
        return said(first);
      } finally {
        peer.terminate();
      }
    },
    async userMessage(c, open) {
      const peer = await open();
      peer.sendText(c.text((s) => ({ ...(s as object), threadId: 't1', text: 'Hello' })));
      const first = await peer.next(isType('runStarted', 'error'));
      if (typeof first === 'string' || first.type === 'error') return said(first);
      return finishRun(peer, first.threadId);
    },
    async clientToolInvokeResponse(c, open) {
      const peer = await open();
      const request = await pendingCall(peer, 't1');
      peer.sendText(c.text((s) => ({ ...(s as object), requestId: request.requestId, success: true })));
      const first = await peer.next(isType('toolCallEnded', 'error'));
      if (typeof first !== 'string' && first.type === 'error') peer.send({ type: 'clientToolInvokeResponse', requestId: request.requestId, success: true, content: [{ type: 'text', text: 'ok' }] });
      return `${said(first)}; ${await finishRun(peer, 't1')}`;
    },
    async clientToolProgress(c, open) {
      const peer = await open();
      const request = await pendingCall(peer, 't1');
      peer.sendText(c.text((s) => ({ ...(s as object), requestId: request.requestId })));
      const answered = await barrier(peer);
      peer.send({ type: 'clientToolInvokeResponse', requestId: request.requestId, success: true, content: [{ type: 'text', text: 'ok' }] });
      return `${answered}; ${await finishRun(peer, 't1')}`;
    },
    async cancel(c, open) {
      const peer = await open();
      const request = await pendingCall(peer, 't1');
      const started = (await peer.next(isType('runStarted'), 1)) as Extract<ServerToClient, { type: 'runStarted' }> | string;
      const runId = typeof started === 'string' ? 'r' : started.runId;
      peer.sendText(c.text((s) => ({ ...(s as object), threadId: 't1', runId })));
      const answered = await barrier(peer);
      peer.send({ type: 'clientToolInvokeResponse', requestId: request.requestId, success: true, content: [{ type: 'text', text: 'ok' }] });
      return `${answered}; ${said(await peer.next(isType('runFinished', 'runError')))}`;
    },
    async resetThread(c, open) {
      const peer = await open();
      peer.send({ type: 'userMessage', threadId: 't1', text: 'Hello' });
      await peer.next(isType('runFinished', 'runError'));
      peer.sendText(c.text((s) => ({ ...(s as object), threadId: 't1' })));
      return barrier(peer);
    },
    async steer(c, open) {
      return duringRun(c, open);
    },
    async withdrawSteer(c, open) {
      return duringRun(c, open);
    },
    async compactThread(c, open) {
      const peer = await open();
      peer.send({ type: 'userMessage', threadId: 't1', text: 'Hello' });
      await peer.next(isType('runFinished', 'runError'));
      peer.sendText(c.text((s) => ({ ...(s as object), threadId: 't1' })));
      const first = await peer.next(isType('runFinished', 'runError', 'error'));
      return `${said(first)}; ${await barrier(peer)}`;
    },
    async truncateThread(c, open) {
      // Two runs, so a hostile truncate that lands (the run id kept) cuts a real history; the thread id is the fuzzed one's.
      const peer = await open();
      peer.send({ type: 'userMessage', threadId: 't1', text: 'Hello' });
      const started = (await peer.next(isType('runStarted'))) as Extract<ServerToClient, { type: 'runStarted' }> | string;
      await peer.next(isType('runFinished', 'runError'));
      peer.send({ type: 'userMessage', threadId: 't1', text: 'Hello again' });
      await peer.next(isType('runFinished', 'runError'));
      const runId = typeof started === 'string' ? 'r' : started.runId;
      peer.sendText(c.text((s) => ({ ...(s as object), threadId: 't1', runId })));
      const first = await peer.next(isType('threadTruncated', 'error'));
      return `${said(first)}; ${await barrier(peer)}`;
    },
    async updateToolGroups(c, open) {
      const peer = await open();
      peer.sendText(c.text());
      const first = await peer.next(isType('toolGroupState', 'error'));
      const after = await barrier(peer);
      return `${said(first)}; ${after}`;
    },
  };

  return {
    name: 'backend from an editor',
    async start() {
      fake ??= await startFakeOpenAI();
      fake.requests.length = 0;
      scriptedModel(fake);
      const target = await Target.start('backendHost.ts', { token, baseURL: fake.baseURL, api: 'chat' });
      url = String(target.info.url);
      return target;
    },
    cases() {
      const plans = messageShapes(WireMessages.byDirection.clientToServer).map(({ type, shape }) => ({ message: type, shape, limit: DEFAULT_LIMITS.maxMessageBytes }));
      const missing = plans.filter((p) => !scenarios[p.message]).map((p) => p.message);
      if (missing.length) throw new Error(`no scenario for client → backend message types: ${missing.join(', ')}`);
      return planCases('backend from an editor', plans);
    },
    async run(c, target) {
      const peers: EditorPeer[] = [];
      const open = async () => {
        const p = await session();
        peers.push(p);
        return p;
      };
      try {
        return await scenarios[c.message](c, open);
      } finally {
        for (const p of peers) p.terminate();
        if (fake) fake.requests.length = 0;
        await target.request('settled');
      }
    },
    async stop() {
      await fake?.close();
      fake = undefined;
    },
  };
}
