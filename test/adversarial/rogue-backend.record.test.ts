/**
 * A rogue backend tries to act in the editor without it showing in the chat, or to show one call
 * while making another. The chat's cards for client tools come from the extension's own record of
 * what its dispatcher executed; calls outside a run the user started are background calls and
 * follow `clientTools.permissions.backgroundCalls` (ask by default).
 *
 * Each test runs the real ClientCore against a scripted backend on a loopback socket, and feeds
 * what the core emits through the chat's real message schemas and reducer, as the chat view does.
 */
import * as assert from 'node:assert/strict';
import type { BackgroundCallPolicy, CallRecord } from '../../src/core/callRecord';
import { ErrorCode, type RunEvent } from '../../src/protocol';
import { HostToWebview } from '../../src/protocol/webview';
import { toChatCallRecord, toChatRunEvent } from '../../src/vscode/chat/chatBridge';
import { CardStream } from '../../src/vscode/chat/cardStream';
import { initialState, reduce, type ChatState, type ToolItem } from '../../src/webview/state';
import { assertNoLeak, assertRefused, CoreRig, SECRET, until } from './support/core-rig';

const THREAD = 'thread-user';
const toBase64 = (b: Uint8Array): string => Buffer.from(b).toString('base64');

/** What the chat view would show: the core's run events and call records through the host's card stream, the view's own parsing and reducer. */
class ChatMirror {
  state: ChatState = initialState();
  readonly records: CallRecord[] = [];
  private readonly stream = new CardStream();

  constructor(rig: CoreRig) {
    rig.core.onRunEvent((e: RunEvent) => this.stream.runEvent(toChatRunEvent(e, toBase64)).forEach((m) => this.apply(m)));
    rig.core.onCallRecord((r) => {
      this.records.push(r);
      this.stream.record(toChatCallRecord(r, toBase64)).forEach((m) => this.apply(m));
    });
  }

  private apply(message: unknown): void {
    this.state = reduce(this.state, HostToWebview.parse(JSON.parse(JSON.stringify(message))));
  }

  get cards(): ToolItem[] {
    return this.state.items.filter((i): i is ToolItem => i.kind === 'tool');
  }

  last(requestId: string): CallRecord | undefined {
    return this.records.filter((r) => r.requestId === requestId).at(-1);
  }
}

describe('rogue backend: the extension\'s own record of what ran', () => {
  let rig: CoreRig;
  let chat: ChatMirror;

  /** `undefined`: the core's own default, as the extension has it with the setting untouched. */
  async function start(backgroundCalls: BackgroundCallPolicy | undefined): Promise<void> {
    rig = await CoreRig.start({ core: { permissions: { backgroundCalls } } });
    chat = new ChatMirror(rig);
    await rig.connect();
  }
  afterEach(() => rig.dispose());

  /** The user sends a chat message on THREAD and the backend starts its run. */
  async function userRun(runId: string): Promise<void> {
    const from = rig.backend.received.length;
    rig.core.sendUserMessage(THREAD, 'what is in notes.txt?');
    await rig.backend.waitFor((m) => m.type === 'userMessage', 5000, from);
    rig.backend.send({ type: 'runStarted', threadId: THREAD, runId, model: 'none' });
  }

  it('T-REC-01 with default settings, ReadFile while no run is active asks the user (saying it is a background request) and the chat shows it as a background card', async () => {
    await start(undefined);
    rig.host.holdPrompts();
    const id = rig.backend.invoke('ReadFile', { path: 'notes.txt' });
    const prompt = await rig.host.nextPrompt();
    assert.match(prompt.prompt.message, /^Background request: /);
    assert.match(prompt.prompt.detail ?? '', /no chat run you started/);
    assert.equal(prompt.prompt.offerAllowSession, false);
    assert.equal(rig.host.io.filter((o) => o.op === 'readFile').length, 0, 'nothing read before the user answered');
    await until(() => chat.cards[0]?.status === 'awaiting-permission', 'the awaiting card');
    assert.equal(chat.cards[0].background, true);

    prompt.answer('deny');
    assertRefused(await rig.answer(id), ErrorCode.PermissionDenied);
    await until(() => chat.cards[0]?.status === 'denied', 'the denied card');
    assert.deepEqual([chat.cards.length, chat.cards[0].toolName, chat.cards[0].permissionNote], [1, 'ReadFile', 'Denied by you']);
    assert.equal(rig.host.io.filter((o) => o.op === 'readFile').length, 0);

    const again = rig.backend.invoke('ReadFile', { path: 'notes.txt' });
    (await rig.host.nextPrompt()).answer('allow');
    const r = await rig.answer(again);
    assert.equal(r.success, true, r.errorMessage);
    await until(() => chat.cards.length === 2 && chat.cards[1].status === 'succeeded', 'the second card');
    assert.deepEqual([chat.cards[1].background, chat.cards[1].target, chat.cards[1].permissionNote], [true, 'notes.txt', 'Allowed by you']);
    assert.match(chat.cards[1].result.map((p) => ('text' in p ? p.text : '')).join(''), /notes/);
  });

  it('T-REC-02 with backgroundCalls "deny", a background ReadFile is refused with PERMISSION_DENIED before any prompt or read, and still shows in the chat', async () => {
    await start('deny');
    const id = rig.backend.invoke('ReadFile', { path: '.env' });
    const r = await rig.answer(id);
    assertRefused(r, ErrorCode.PermissionDenied);
    assert.match(r.errorMessage ?? '', /background calls are off/);
    assert.equal(rig.host.prompts.length, 0);
    assert.deepEqual(rig.host.io, [], 'no file was even looked at');
    await until(() => chat.cards[0]?.status === 'denied', 'the denied card');
    assert.equal(chat.cards[0].background, true);
    assert.match(chat.cards[0].permissionNote ?? '', /background calls are off/);
  });

  it('T-REC-03 a backend that announces GetSelection but requests ReadFile: the record and the only card show ReadFile', async () => {
    await start('ask');
    await userRun('run-1');
    rig.backend.send({ type: 'toolCallStarted', threadId: THREAD, runId: 'run-1', callId: 'call-x', toolName: 'GetSelection', arguments: {}, executor: 'client' });
    const id = rig.backend.invoke('ReadFile', { path: 'notes.txt' }, { callId: 'call-x', threadId: THREAD });
    const r = await rig.answer(id);
    assert.equal(r.success, true, r.errorMessage);
    assert.equal(rig.host.prompts.length, 0, 'a read-only call of the user\'s run does not ask');
    rig.backend.send({ type: 'toolCallEnded', threadId: THREAD, runId: 'run-1', callId: 'call-x', outcome: 'succeeded', content: [{ type: 'text', text: 'no selection' }], durationMs: 1 });
    rig.backend.send({ type: 'runFinished', threadId: THREAD, runId: 'run-1', reason: 'completed' });
    await until(() => chat.state.run === null && chat.cards[0]?.status === 'succeeded', 'the run to end');

    assert.equal(chat.last(id)?.toolName, 'ReadFile');
    assert.equal(chat.last(id)?.background, false);
    assert.equal(chat.cards.length, 1, 'no card for the announced GetSelection');
    const card = chat.cards[0];
    assert.deepEqual([card.toolName, card.argsSummary, card.announcedAs], ['ReadFile', 'path: "notes.txt"', 'GetSelection']);
    assert.notDeepEqual(card.result, [{ kind: 'text', text: 'no selection' }], 'the backend\'s result does not replace what ran');
  });

  it('T-REC-04 a backend that reads silently during the user\'s run (no display event) still leaves a card', async () => {
    await start('ask');
    await userRun('run-2');
    const id = rig.backend.invoke('ReadFile', { path: 'src/a.ts' }, { threadId: THREAD });
    assert.equal((await rig.answer(id)).success, true);
    await until(() => chat.cards[0]?.status === 'succeeded', 'the card');
    assert.deepEqual([chat.cards[0].toolName, chat.cards[0].background, chat.cards[0].runId], ['ReadFile', false, 'run-2']);
  });

  it('T-REC-05 only a run the user started counts: after it ends, on another thread, or a run the backend starts by itself, calls are background and ask', async () => {
    await start('ask');
    rig.host.answerPrompts('deny');
    // A run the backend starts on its own, on the user's thread and on another, before any message.
    rig.backend.send({ type: 'runStarted', threadId: THREAD, runId: 'fake-1', model: 'none' });
    rig.backend.send({ type: 'runStarted', threadId: 'elsewhere', runId: 'fake-2', model: 'none' });
    assertRefused(await rig.backend.call('ReadFile', { path: 'notes.txt' }, { threadId: THREAD }), ErrorCode.PermissionDenied);
    assertRefused(await rig.backend.call('ReadFile', { path: 'notes.txt' }, { threadId: 'elsewhere' }), ErrorCode.PermissionDenied);
    assert.equal(rig.host.prompts.length, 2);

    await userRun('run-3');
    assert.equal((await rig.backend.call('ReadFile', { path: 'notes.txt' }, { threadId: THREAD })).success, true, 'the user\'s run');
    assertRefused(await rig.backend.call('ReadFile', { path: 'notes.txt' }, { threadId: 'elsewhere' }), ErrorCode.PermissionDenied);
    assertRefused(await rig.backend.call('ReadFile', { path: 'notes.txt' }), ErrorCode.PermissionDenied);
    assert.equal(rig.host.prompts.length, 4);

    rig.backend.send({ type: 'runFinished', threadId: THREAD, runId: 'run-3', reason: 'completed' });
    const after = await rig.backend.call('ReadFile', { path: '.env' }, { threadId: THREAD });
    assertRefused(after, ErrorCode.PermissionDenied);
    assertNoLeak(after);
    assert.equal(rig.host.prompts.length, 5);
    assert.match(rig.host.prompts[4].message, /^Background request: /);
    assert.ok(!JSON.stringify(chat.state).includes(SECRET), 'the secret reached the chat');
    assert.deepEqual(chat.cards.map((c) => c.background), [true, true, false, true, true, true]);
  });

  it('T-REC-06 a remembered "allow for this session" does not let a background call through under "ask"', async () => {
    await start('ask');
    rig.host.answerPrompts('allowSession');
    await userRun('run-4');
    assert.equal((await rig.backend.call('DeleteFile', { path: 'notes.txt' }, { threadId: THREAD })).success, true);
    rig.backend.send({ type: 'runFinished', threadId: THREAD, runId: 'run-4', reason: 'completed' });
    rig.host.answerPrompts('deny');
    assertRefused(await rig.backend.call('DeleteFile', { path: 'old.txt' }, { threadId: THREAD }), ErrorCode.PermissionDenied);
    assert.equal(rig.host.prompts.length, 2);
    assert.equal(rig.host.deletesOf(rig.file('old.txt')), 0);
  });

  it('T-REC-07 turning background calls off while connected applies to the very next call, and a new backend session forgets the user\'s runs', async () => {
    await start('allow');
    assert.equal((await rig.backend.call('ReadFile', { path: 'notes.txt' })).success, true);
    rig.core.setBackgroundCalls('deny');
    assertRefused(await rig.backend.call('ReadFile', { path: 'notes.txt' }), ErrorCode.PermissionDenied);

    await userRun('run-5');
    assert.equal((await rig.backend.call('ReadFile', { path: 'notes.txt' }, { threadId: THREAD })).success, true);
    // The backend restarts and hands out a new session: the old run is gone with it.
    const reconnected = rig.stateOf('connected', (s) => s.kind === 'connected' && !s.resumed);
    rig.sessions.clear();
    rig.backend.dropClients();
    await reconnected;
    assertRefused(await rig.backend.call('ReadFile', { path: 'notes.txt' }, { threadId: THREAD }), ErrorCode.PermissionDenied);
    assert.equal(rig.host.prompts.length, 0);
  });
});
