import * as assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { CodedError, DEFAULT_LIMITS, ErrorCode, type BinaryContent, type ClientToolProgress, type RunEvent, type ToolGroupState, type UpdateToolGroups } from '../../../src/protocol';
import { ClientCore, MAX_JSON_BYTES, type ClientCoreOptions } from '../../../src/core/clientCore';
import type { ConnectionState } from '../../../src/core/connection';
import { defineTool, textResult } from '../../../src/core/tool';
import { ideToolGroup } from '../../../src/tools/ide/group';
import { RecordingLogger, until } from '../../support/dispatch-harness';
import { ScriptedBackend } from '../../support/scripted-backend';
import { createTempWorkspace, type TempWorkspace } from '../../support/fake-host';
import { makePng } from '../../support/png';

describe('ClientCore end to end (real sockets, IDE tools, fake host)', () => {
  let ws: TempWorkspace;
  let b: ScriptedBackend;
  let core: ClientCore;
  let logger: RecordingLogger;
  const extraBackends: ScriptedBackend[] = [];

  function makeCore(url: string, extra: Partial<ClientCoreOptions> = {}): ClientCore {
    logger = new RecordingLogger();
    const c = new ClientCore({
      url,
      token: b.token,
      clientInfo: { name: 'test-client', version: '1.0.0', ide: 'Fake IDE' },
      host: ws.host,
      presenter: ws.host,
      logger,
      connection: { handshakeTimeoutMs: 500, heartbeatMs: 200, reconnect: { initialDelayMs: 20, maxDelayMs: 50, maxAttempts: 20 } },
      limits: { progressIntervalMs: 1000 },
      ...extra,
      // These tests call tools with no chat run; the background-call tests set their own policy.
      permissions: { backgroundCalls: 'allow', ...extra.permissions },
    });
    const ide = ideToolGroup();
    c.registry.register(ide.group, ide.tools);
    return c;
  }

  function stateOf(kind: ConnectionState['kind'], match: (s: ConnectionState) => boolean = () => true): Promise<ConnectionState> {
    return new Promise((resolve) => {
      const sub = core.onDidChangeState((s) => {
        if (s.kind === kind && match(s)) {
          sub.dispose();
          resolve(s);
        }
      });
    });
  }

  async function connected(): Promise<void> {
    const ready = stateOf('connected');
    core.start();
    await ready;
  }

  beforeEach(async () => {
    ws = await createTempWorkspace(['ws'], { 'src/a.ts': 'export const a = 1;\n', 'img/shot.png': makePng(16, 16), 'old.txt': 'bye' });
    b = await ScriptedBackend.start();
    core = makeCore(b.url);
  });
  afterEach(async () => {
    core.dispose();
    await b.close();
    for (const extra of extraBackends.splice(0)) await extra.close();
    await ws.dispose();
  });

  it('sends hello with the IDE group, workspace folders and trust, and reports connected', async () => {
    await connected();
    const hello = b.hellos[0];
    assert.deepEqual(hello.client, { name: 'test-client', version: '1.0.0', ide: 'Fake IDE' });
    assert.deepEqual(hello.workspace.folders, [{ name: 'ws', uri: `file://${ws.folders[0].path}` }]);
    assert.equal(hello.workspace.trusted, true);
    assert.deepEqual(hello.toolGroups.map((g) => g.name), ['IDE']);
    assert.equal(hello.toolGroups[0].tools.find((t) => t.name === 'DeleteFile')?.requiresPermission, true);
    assert.equal(core.state.kind, 'connected');
  });

  it('announces in hello.limits the limits it enforces: its message size, its in-flight cap, its replay window, the JSON of a message (4 MiB, at most the message size)', async () => {
    await connected();
    assert.deepEqual(b.hellos[0].limits, { maxMessageBytes: DEFAULT_LIMITS.maxMessageBytes, maxInFlight: DEFAULT_LIMITS.maxInFlight, replayWindowMs: DEFAULT_LIMITS.replayWindowMs, maxJsonBytes: MAX_JSON_BYTES });
    assert.equal(MAX_JSON_BYTES, 4 * 1024 * 1024);
    core.dispose();
    core = makeCore(b.url, { limits: { maxMessageBytes: 100_000.7, maxInFlight: 3, replayWindowMs: 60_000 } });
    await connected();
    assert.deepEqual(b.hellos[1].limits, { maxMessageBytes: 100_000, maxInFlight: 3, replayWindowMs: 60_000, maxJsonBytes: 100_000 });
  });

  it('ReadFile of a PNG travels as a binary frame and arrives with image/png and the same bytes', async () => {
    await connected();
    const r = await b.call('ReadFile', { path: 'img/shot.png' });
    assert.equal(r.success, true, r.errorMessage);
    const item = r.content[0] as BinaryContent;
    assert.equal(item.mimeType, 'image/png');
    assert.equal(item.filename, 'shot.png');
    assert.ok(Buffer.from(item.bytes).equals(makePng(16, 16)));
    assert.equal(b.frames.find((f) => f.type === 'clientToolInvokeResponse')?.binary, true);
  });

  it('a request replayed after a reconnect gets the stored answer; the delete is not run or asked again', async () => {
    ws.host.answerPrompts('allow');
    await connected();
    const first = await b.call('DeleteFile', { path: 'old.txt' }, { requestId: 'del-1' });
    assert.equal(first.success, true, first.errorMessage);
    assert.equal(existsSync(ws.file('old.txt')), false);
    const session = core.state.kind === 'connected' ? core.state.sessionId : '';

    const back = stateOf('connected', (s) => s.kind === 'connected' && s.resumed);
    b.dropClients();
    await back;
    const replay = await b.call('DeleteFile', { path: 'old.txt' }, { requestId: 'del-1' });
    assert.deepEqual(replay, first);
    assert.equal(ws.host.deleted.length, 1);
    assert.equal(ws.host.prompts.length, 1);
    assert.equal(b.hellos[1].resumeSession, session);
  });

  it('an answer produced while disconnected is sent after the session resumes', async () => {
    ws.host.holdPrompts();
    await connected();
    const id = b.invoke('DeleteFile', { path: 'old.txt' });
    const prompt = await ws.host.nextPrompt();
    const back = stateOf('connected', (s) => s.kind === 'connected' && s.resumed);
    const lost = stateOf('reconnecting');
    b.dropClients();
    await lost;
    prompt.answer('allow'); // the user answers while the socket is down
    const fromIndex = b.received.length;
    await back;
    const answer = await b.waitFor((m) => m.type === 'clientToolInvokeResponse' && m.requestId === id, 3000, fromIndex);
    assert.equal(answer.type === 'clientToolInvokeResponse' && answer.success, true);
    assert.equal(existsSync(ws.file('old.txt')), false);
  });

  it('survives a backend restart on the same port and resumes when the backend knows the session', async () => {
    await connected();
    const session = core.state.kind === 'connected' ? core.state.sessionId : '';
    const lost = stateOf('reconnecting');
    const sessions = b.sessions;
    const port = b.port;
    await b.close();
    await lost;
    const back = stateOf('connected');
    b = await ScriptedBackend.start({ port, sessions });
    const s = await back;
    assert.ok(s.kind === 'connected' && s.resumed && s.sessionId === session);
    assert.equal((await b.call('OpenFile', { path: 'src/a.ts' })).success, true);
  });

  it('the backend cannot switch off a prompt: toolGroupState and injected definitions are ignored for permission', async () => {
    ws.host.answerPrompts('deny');
    await connected();
    const state: ToolGroupState = {
      type: 'toolGroupState',
      collapsing: false,
      groups: [{ name: 'IDE', description: 'x', expanded: true, containerName: 'IDE', tools: [{ name: 'DeleteFile', visible: true, requiresPermission: false }], skills: [] }],
    };
    const got = new Promise<ToolGroupState>((resolve) => core.onToolGroupState(resolve));
    b.send(state);
    await got;
    const r = await b.call('DeleteFile', { path: 'old.txt', approved: true });
    assert.equal(r.errorCode, ErrorCode.InvalidArguments, 'an "approved" argument is not even accepted');
    const r2 = await b.call('DeleteFile', { path: 'old.txt' });
    assert.equal(r2.errorCode, ErrorCode.PermissionDenied);
    assert.equal(ws.host.prompts.length, 1);
    assert.equal(existsSync(ws.file('old.txt')), true);
  });

  it('reports awaiting-permission progress over the wire and closes the prompt on clientToolCancel', async () => {
    ws.host.holdPrompts();
    await connected();
    const id = b.invoke('DeleteFile', { path: 'old.txt' });
    const progress = (await b.waitFor((m) => m.type === 'clientToolProgress' && m.requestId === id)) as ClientToolProgress;
    assert.equal(progress.status, 'awaiting-permission');
    const prompt = await ws.host.nextPrompt();
    b.send({ type: 'clientToolCancel', requestId: id, reason: 'run stopped' });
    const r = await b.response(id);
    assert.equal(r.errorCode, ErrorCode.Cancelled);
    assert.equal(await prompt.closed, 'aborted');
    assert.equal(existsSync(ws.file('old.txt')), true);
  });

  it('answers a malformed request that has an id with a coded error, and keeps serving', async () => {
    await connected();
    b.sendRaw(JSON.stringify({ type: 'clientToolInvokeRequest', requestId: 'bad-1', toolName: 'ReadFile', callId: 'c', arguments: 'not an object' }));
    const r = await b.response('bad-1');
    assert.deepEqual([r.success, r.errorCode], [false, ErrorCode.InvalidMessage]);
    b.sendRaw(JSON.stringify({ type: 'clientToolInvokeRequest', requestId: 'bad-2', toolName: 'DeleteFіle', callId: 'c', arguments: {} }));
    assert.equal((await b.response('bad-2')).errorCode, ErrorCode.InvalidMessage);
    assert.equal((await b.call('OpenFile', { path: 'src/a.ts' })).success, true);
  });

  it('trust changes switch tools off, tell the backend with updateToolGroups, and refuse calls', async () => {
    await connected();
    const update = b.waitFor((m) => m.type === 'updateToolGroups');
    core.setWorkspaceTrusted(false);
    const msg = (await update) as UpdateToolGroups;
    const ide = msg.augmentation.injectGroups?.find((g) => g.name === 'IDE');
    assert.deepEqual(ide?.tools.map((t) => t.name).sort(), ['GetSelection', 'OpenFile', 'ShowMessage']);
    assert.equal((await b.call('ReadFile', { path: 'src/a.ts' })).errorCode, ErrorCode.WorkspaceUntrusted);
    assert.equal((await b.call('DeleteFile', { path: 'old.txt' })).errorCode, ErrorCode.WorkspaceUntrusted);
  });

  it('visibility follows the backend without re-sending groups (which would collapse them)', async () => {
    const base = { group: 'Extra', description: 'x', parameters: { type: 'object' }, requiresPermission: false, declineStrategy: 'reject' as const };
    core.registry.register(
      { name: 'Extra', description: 'extra tools', skills: [{ name: 'Reveal', description: 'shows Secret', tools: ['Secret'] }] },
      [
        defineTool({ ...base, name: 'Secret', hidden: true, run: async () => textResult('secret ran') }),
        defineTool({ ...base, name: 'Revealer', run: async () => ({ content: [], augmentation: { showTools: ['Secret'] } }) }),
      ],
    );
    await connected();
    assert.equal((await b.call('Secret', {})).errorCode, ErrorCode.ToolHidden);
    // A skill made it visible in an expanded group: the backend's state says so.
    b.send({
      type: 'toolGroupState',
      collapsing: true,
      groups: [{ name: 'Extra', description: 'x', expanded: true, containerName: 'Extra', tools: [{ name: 'Secret', visible: true, requiresPermission: false }], skills: [] }],
    });
    await until(() => core.registry.lookup('Secret').ok);
    assert.equal((await b.call('Secret', {})).success, true);
    // A tool's own augmentation hides and shows too, and neither sends updateToolGroups.
    core.registry.setHidden(['Secret'], true);
    assert.equal((await b.call('Revealer', {})).success, true);
    assert.equal((await b.call('Secret', {})).success, true);
    await new Promise((r) => setTimeout(r, 20));
    assert.equal(b.received.filter((m) => m.type === 'updateToolGroups').length, 0);
  });

  it('forwards run events, tool group state and backend errors', async () => {
    await connected();
    const events: RunEvent[] = [];
    const errors: string[] = [];
    core.onRunEvent((e) => events.push(e));
    core.onServerError((e) => errors.push(e.code));
    b.send({ type: 'runStarted', threadId: 't', runId: 'r', model: 'm' });
    b.send({ type: 'textDelta', threadId: 't', runId: 'r', text: 'hi' });
    b.send({ type: 'runFinished', threadId: 't', runId: 'r', reason: 'completed' });
    b.send({ type: 'error', code: ErrorCode.RunBusy, message: 'busy' });
    await until(() => events.length === 3 && errors.length === 1);
    assert.deepEqual(events.map((e) => e.type), ['runStarted', 'textDelta', 'runFinished']);
    assert.deepEqual(errors, [ErrorCode.RunBusy]);
  });

  it('sends user messages, cancel and reset; refuses them with coded errors when invalid or disconnected', async () => {
    assert.throws(() => core.sendUserMessage('t', 'hello'), (e: unknown) => e instanceof CodedError && e.code === ErrorCode.Disconnected);
    await connected();
    core.sendUserMessage('t', 'hello', { file: 'src/a.ts' });
    core.cancel('t');
    core.resetThread('t');
    await until(() => ['userMessage', 'cancel', 'resetThread'].every((type) => b.received.some((m) => m.type === type)));
    const user = b.received.find((m) => m.type === 'userMessage');
    assert.deepEqual(user, { type: 'userMessage', threadId: 't', text: 'hello', context: { file: 'src/a.ts' } });
    assert.throws(() => core.sendUserMessage('t', ''), (e: unknown) => e instanceof CodedError && e.code === ErrorCode.InvalidMessage);
  });

  it('an insecure URL does not throw: the state becomes stopped with FORBIDDEN', () => {
    core.dispose();
    core = makeCore('ws://agent.example.com:8080');
    const states: ConnectionState[] = [];
    core.onDidChangeState((s) => states.push(s));
    core.start();
    assert.equal(states.length, 1);
    const s = states[0];
    assert.ok(s.kind === 'stopped' && s.code === ErrorCode.Forbidden && /wss:\/\//.test(s.reason), JSON.stringify(s));
  });

  it('stop() goes idle and ends calls in flight with DISCONNECTED (the prompt closes)', async () => {
    ws.host.holdPrompts();
    await connected();
    b.invoke('DeleteFile', { path: 'old.txt' });
    const prompt = await ws.host.nextPrompt();
    core.stop();
    assert.equal(core.state.kind, 'idle');
    assert.equal(await prompt.closed, 'aborted');
    assert.equal(existsSync(ws.file('old.txt')), true);
    assert.ok(logger.entries.some((e) => e.fields?.code === ErrorCode.Disconnected));
  });

  /** Starts a second scripted backend, points the core at it and waits until it is connected there. */
  async function switchToAnotherBackend(): Promise<ScriptedBackend> {
    const other = await ScriptedBackend.start({ token: b.token });
    extraBackends.push(other);
    const there = stateOf('connected', (s) => s.kind === 'connected' && s.target.endsWith(`:${other.port}`));
    core.setEndpoint(other.url, other.token);
    await there;
    return other;
  }

  it('setEndpoint switches to another backend and connects there', async () => {
    await connected();
    const other = await switchToAnotherBackend();
    assert.equal(other.hellos.length, 1);
    assert.equal(other.hellos[0].resumeSession, undefined, 'a new backend gets a new session');
  });

  it('state and welcome listeners subscribed once hear each connection in turn, across setEndpoint', async () => {
    const kinds: string[] = [];
    const welcomes: string[] = [];
    core.onDidChangeState((s) => {
      if (kinds[kinds.length - 1] !== s.kind) kinds.push(s.kind);
    });
    core.onWelcome((w) => {
      // Heard after the core took the welcome in: the connection is up and tools can be told.
      assert.equal(core.state.kind, 'connected');
      welcomes.push(w.sessionId);
    });
    await connected();
    await switchToAnotherBackend();
    await until(() => welcomes.length === 2);
    assert.deepEqual(kinds, ['connecting', 'connected', 'idle', 'connecting', 'connected']);
    assert.notEqual(welcomes[0], welcomes[1], 'a welcome from each backend');
    core.stop();
    assert.equal(core.state.kind, 'idle');
    assert.equal(kinds[kinds.length - 1], 'idle');
  });

  it('never logs the token', async () => {
    await connected();
    await b.call('OpenFile', { path: 'src/a.ts' });
    assert.ok(!logger.text().includes(b.token));
  });
});
