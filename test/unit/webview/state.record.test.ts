import assert from 'node:assert/strict';
import { initialState, reduce, restoreState, type ChatAction, type ChatState, type ToolItem } from '../../../src/webview/state';
import { CardStream } from '../../../src/vscode/chat/cardStream';
import { ev, hostEvent, PNG_1X1, record, RUN, THREAD } from './fixtures';

/** What the host posts for these (src/vscode/chat/cardStream.ts: a client call's events become at most its record), reduced by the view. */
const play = (actions: ChatAction[], from: ChatState = initialState(), stream = new CardStream()): ChatState => actions
  .flatMap((a): ChatAction[] => (a.type === 'runEvent' ? stream.runEvent(a.event) : a.type === 'callRecord' ? stream.record(a.record) : [a]))
  .reduce(reduce, from);
const cards = (s: ChatState): ToolItem[] => s.items.filter((i): i is ToolItem => i.kind === 'tool');
const only = (s: ChatState): ToolItem => {
  const all = cards(s);
  assert.equal(all.length, 1, `expected one card, got ${all.map((c) => c.toolName).join(', ') || 'none'}`);
  return all[0];
};

describe('chat state: cards from the extension\'s record', () => {
  it('a client tool card comes from the record: pending → awaiting permission → running → succeeded, with its result', () => {
    const args = { path: 'README.md' };
    let s = play([ev.started()]);
    const seen: string[] = [];
    for (const a of [
      record('r1', 'OpenFile', { arguments: args }),
      record('r1', 'OpenFile', { arguments: args, status: 'awaiting-permission' }),
      record('r1', 'OpenFile', { arguments: args, status: 'running', permission: { decision: 'allowed', via: 'prompt' } }),
      record('r1', 'OpenFile', { arguments: args, status: 'succeeded', durationMs: 42, target: 'README.md', permission: { decision: 'allowed', via: 'prompt' }, content: [{ type: 'text', text: 'Opened' }] }),
    ]) {
      s = reduce(s, a);
      seen.push(only(s).status);
    }
    assert.deepEqual(seen, ['pending', 'awaiting-permission', 'running', 'succeeded']);
    const c = only(s);
    assert.deepEqual([c.requestId, c.toolName, c.group, c.executor, c.runId, c.background], ['r1', 'OpenFile', 'IDE', 'ide', RUN, false]);
    assert.equal(c.argsSummary, 'path: "README.md"');
    assert.equal(c.target, 'README.md');
    assert.equal(c.durationMs, 42);
    assert.equal(c.permissionNote, 'Allowed by you');
    assert.deepEqual(c.result, [{ kind: 'text', text: 'Opened' }]);
  });

  it('a client tool call the backend announced as succeeded but the extension never executed gets no card (the backend cannot claim an editor action)', () => {
    const s = play([
      ev.started(),
      ev.toolStarted('c1', 'DeleteFile', { path: 'a.txt' }, { executor: 'client' }),
      ev.toolUpdated('c1', 'running'),
      ev.toolEnded('c1', 'succeeded', 5, [{ type: 'text', text: 'Deleted a.txt' }]),
    ]);
    assert.deepEqual(cards(s), []);
  });

  it('a client call the backend announced and ended without success before any request reached the extension gets one card, marked not sent, with the code and reason and no result', () => {
    const s = play([
      ev.started(),
      ev.toolStarted('c1', 'ReadFile', { path: 'a.txt' }, { executor: 'client', group: 'IDE' }),
      hostEvent({ type: 'toolCallEnded', threadId: THREAD, runId: RUN, callId: 'c1', outcome: 'cancelled', content: [{ type: 'text', text: 'backend words' }], errorCode: 'CANCELLED', errorMessage: 'The run was cancelled before ReadFile was sent.', durationMs: 0 }),
    ]);
    const c = only(s);
    assert.deepEqual([c.toolName, c.group, c.executor, c.status, c.notSent, c.requestId, c.argsSummary], ['ReadFile', 'IDE', 'backend', 'cancelled', true, undefined, 'path: "a.txt"']);
    assert.equal(c.details, 'CANCELLED: The run was cancelled before ReadFile was sent.');
    assert.deepEqual(c.result, [], 'nothing ran in the editor: no result is shown');
  });

  it('a client call\'s events that reach the view anyway (a host of an older build) make no card and change none', () => {
    const events = [
      ev.started(),
      ev.toolStarted('c1', 'DeleteFile', { path: 'a.txt' }, { executor: 'client' }),
      hostEvent({ type: 'toolCallEnded', threadId: THREAD, runId: RUN, callId: 'c1', outcome: 'failed', content: [], errorMessage: 'x', durationMs: 0 }),
    ];
    assert.deepEqual(cards(events.reduce(reduce, initialState())), []);
  });

  it('the host keeps a client call\'s events from the view: only its records, with what the events add, are posted', () => {
    const stream = new CardStream();
    const posted = [
      ev.started(),
      ev.toolStarted('call-r1', 'GetSelection', {}, { executor: 'client' }),
      ev.toolUpdated('call-r1', 'running'),
      record('r1', 'ReadFile'),
      ev.toolEnded('call-r1', 'succeeded', 1, [{ type: 'text', text: 'x' }]),
      ev.toolStarted('c2', 'Grep', {}, { executor: 'server' }),
    ].flatMap((a) => (a.type === 'runEvent' ? stream.runEvent(a.event) : a.type === 'callRecord' ? stream.record(a.record) : []));
    assert.deepEqual(posted.map((m) => (m.type === 'runEvent' ? `${m.type}:${m.event.type}` : m.type)), ['runEvent:runStarted', 'callRecord', 'runEvent:toolCallStarted']);
    assert.equal(posted[1].type === 'callRecord' && posted[1].record.announcedAs, 'GetSelection');
  });

  it('a call the backend refused itself (executor server) is a backend card with the code and reason', () => {
    const s = play([
      ev.started(),
      ev.toolStarted('c1', 'DeleteFile', { path: 'a.txt' }, { executor: 'server', group: 'Files' }),
      hostEvent({ type: 'toolCallEnded', threadId: THREAD, runId: RUN, callId: 'c1', outcome: 'failed', content: [], errorCode: 'TOOL_HIDDEN', errorMessage: '"DeleteFile" belongs to the collapsed tool group "Files"; call the function "Files" first to expand it.', durationMs: 0 }),
    ]);
    const c = only(s);
    assert.deepEqual([c.toolName, c.executor, c.status, c.notSent, c.refused], ['DeleteFile', 'backend', 'failed', undefined, undefined]);
    assert.match(c.details ?? '', /collapsed tool group "Files"/);
  });

  it('a call the extension refused before running it gets a card from its record, marked refused', () => {
    const s = play([
      ev.started(),
      ev.toolStarted('call-r1', 'OpenFile', {}, { executor: 'client' }),
      record('r1', 'OpenFile', { status: 'failed', refused: true, durationMs: 0, errorCode: 'INVALID_ARGUMENTS', errorMessage: 'path: is required' }),
      hostEvent({ type: 'toolCallEnded', threadId: THREAD, runId: RUN, callId: 'call-r1', outcome: 'failed', content: [], errorCode: 'INVALID_ARGUMENTS', errorMessage: 'path: is required', durationMs: 1 }),
    ]);
    const c = only(s);
    assert.deepEqual([c.requestId, c.status, c.refused, c.notSent, c.details], ['r1', 'failed', true, undefined, 'path: is required']);
  });

  it('a call the extension executed that the backend never announced still gets a card', () => {
    const s = play([ev.started(), record('r1', 'ReadFile', { arguments: { path: '.env' }, status: 'succeeded', durationMs: 3 })]);
    assert.equal(only(s).toolName, 'ReadFile');
    assert.equal(only(s).status, 'succeeded');
  });

  it('the backend announces X but the extension ran Y: the card shows Y and says what was announced, whichever comes first', () => {
    const announcedFirst = play([
      ev.started(),
      ev.toolStarted('call-r1', 'GetSelection', { q: 1 }, { executor: 'client' }),
      record('r1', 'DeleteFile', { arguments: { path: 'old.txt' } }),
    ]);
    const recordedFirst = play([
      ev.started(),
      record('r1', 'DeleteFile', { arguments: { path: 'old.txt' } }),
      ev.toolStarted('call-r1', 'GetSelection', { q: 1 }, { executor: 'client' }),
    ]);
    for (const s of [announcedFirst, recordedFirst]) {
      const c = only(s);
      assert.equal(c.toolName, 'DeleteFile');
      assert.equal(c.argsSummary, 'path: "old.txt"');
      assert.equal(c.announcedAs, 'GetSelection');
    }
    const honest = play([ev.started(), ev.toolStarted('call-r1', 'DeleteFile', {}, { executor: 'client' }), record('r1', 'DeleteFile')]);
    assert.equal(only(honest).announcedAs, undefined);
  });

  it('the backend\'s updates and end for a recorded call change nothing the card says', () => {
    const s = play([
      ev.started(),
      record('r1', 'DeleteFile', { status: 'awaiting-permission' }),
      ev.toolUpdated('call-r1', 'running'),
      ev.toolEnded('call-r1', 'succeeded', 1, [{ type: 'text', text: 'Deleted' }]),
    ]);
    assert.equal(only(s).status, 'awaiting-permission');
    assert.deepEqual(only(s).result, []);
  });

  it('a background call gets a card outside any run, marked background, and the run ending does not close it', () => {
    let s = play([record('b1', 'ReadFile', { background: true, status: 'awaiting-permission', arguments: { path: 'notes.txt' } })]);
    assert.deepEqual([only(s).background, only(s).runId, only(s).status], [true, '', 'awaiting-permission']);
    s = play([ev.started(), ev.finished('cancelled')], s);
    assert.equal(only(s).status, 'awaiting-permission', 'its status comes from the extension');
    s = reduce(s, record('b1', 'ReadFile', { background: true, status: 'denied', permission: { decision: 'denied', via: 'user' }, errorMessage: 'the user declined to run ReadFile' }));
    assert.deepEqual([only(s).status, only(s).permissionNote, only(s).details], ['denied', 'Denied by you', 'the user declined to run ReadFile']);
  });

  it('a call through the MCP server is marked with the MCP client that asked for it', () => {
    const s = play([record('m1', 'ReadFile', { background: true, caller: 'MCP: claude-code', status: 'succeeded' })]);
    assert.deepEqual([only(s).caller, only(s).background], ['MCP: claude-code', true]);
    assert.equal(only(play([record('b1', 'ReadFile', { background: true })])).caller, undefined);
  });

  it('says when a remembered grant let the call through, with the grant\'s label when there is one', () => {
    const labelled = play([record('r1', 'DeleteFile', { status: 'succeeded', permission: { decision: 'allowed', via: 'remembered', grantLabel: 'Delete files in src/ for this session' } })]);
    assert.equal(only(labelled).permissionNote, 'Allowed by your earlier choice: Delete files in src/ for this session');
    const plain = play([record('r1', 'DeleteFile', { status: 'succeeded', permission: { decision: 'allowed', via: 'remembered' } })]);
    assert.equal(only(plain).permissionNote, 'Allowed by your earlier choice');
    const off = play([record('r1', 'ReadFile', { background: true, status: 'denied', permission: { decision: 'denied', via: 'backgroundCalls' } })]);
    assert.match(only(off).permissionNote ?? '', /background calls are off/);
  });

  it('a timed-out call says so; an image result is kept inline', () => {
    const t = play([record('r1', 'RunTask', { status: 'failed', errorCode: 'TIMEOUT', errorMessage: 'RunTask did not finish within 600 s' })]);
    assert.equal(only(t).details, 'Timed out: RunTask did not finish within 600 s');
    const img = play([record('r2', 'Screenshot', { status: 'succeeded', content: [{ type: 'binary', mimeType: 'image/png', bytes: PNG_1X1 }] })]);
    assert.equal(only(img).result[0].kind, 'image');
  });

  it('after a reload, a card whose call the extension no longer runs is closed as cancelled; calls still running stay open', () => {
    const saved = play([record('r1', 'ReadFile', { background: true, status: 'awaiting-permission' }), record('r2', 'ReadFile', { background: true, status: 'running' })]);
    const s = reduce(restoreState(JSON.parse(JSON.stringify(saved))), { type: 'sync', activeRunId: null, openCallIds: ['rec-r2'] });
    const [r1, r2] = cards(s);
    assert.equal(r1.status, 'cancelled');
    assert.match(r1.details ?? '', /reloaded/);
    assert.equal(r2.status, 'running');
    assert.equal(reduce(saved, { type: 'sync', activeRunId: null }), saved, 'a host that says nothing about open calls changes nothing');
  });

  it('a saved state with record cards is restored; one saved with the announcements the view used to keep still loads', () => {
    const s = play([ev.started(), ev.toolStarted('c9', 'GetSelection', {}, { executor: 'client' }), record('r1', 'ReadFile', { background: true })]);
    const back = restoreState(JSON.parse(JSON.stringify(s)));
    assert.deepEqual(back, s);
    const old = JSON.parse(JSON.stringify({ ...s, announced: [{ callId: 'c9', toolName: 'GetSelection', argsSummary: '', argsJson: '' }] })) as unknown;
    assert.deepEqual(restoreState(old), s);
    assert.equal(cards(restoreState(old)).length, 1);
  });
});
