import assert from 'node:assert/strict';
import { errorActions } from '../../../src/webview/errorActions';
import { describeBinary, describeExpansion, formatDuration } from '../../../src/webview/format';
import {
  initialState, MAX_ITEMS, MAX_KEPT_IMAGE_CHARS, reduce, restoreState, summarizeArguments,
  type ChatAction, type ChatItem, type ChatState, type ToolItem,
} from '../../../src/webview/state';
import { ev, hostEvent, PNG_1X1, RUN, THREAD } from './fixtures';

const play = (actions: ChatAction[], from: ChatState = initialState()): ChatState => actions.reduce(reduce, from);
const cards = (s: ChatState): ToolItem[] => s.items.filter((i): i is ToolItem => i.kind === 'tool');
const card = (s: ChatState, callId: string): ToolItem => {
  const c = cards(s).find((x) => x.callId === callId);
  assert.ok(c, `no card for ${callId}`);
  return c;
};
const kinds = (s: ChatState): string[] => s.items.map((i) => i.kind);
const user = (text: string): ChatAction => ({ type: 'userMessage', text });

describe('chat state: tool call cards', () => {
  it('walks a permission-gated call through pending → awaiting permission → running → succeeded', () => {
    const seen: string[] = [];
    let s = play([user('open the readme'), ev.started()]);
    for (const a of [
      ev.toolStarted('c1', 'OpenFile', { path: 'README.md', preview: true }, { group: 'IDE' }),
      ev.toolUpdated('c1', 'awaiting-permission'),
      ev.toolUpdated('c1', 'running'),
      ev.toolEnded('c1', 'succeeded', 42, [{ type: 'text', text: 'Opened README.md' }]),
    ]) {
      s = reduce(s, a);
      seen.push(card(s, 'c1').status);
    }
    assert.deepEqual(seen, ['pending', 'awaiting-permission', 'running', 'succeeded']);
    const c = card(s, 'c1');
    assert.equal(c.toolName, 'OpenFile');
    assert.equal(c.group, 'IDE');
    assert.equal(c.executor, 'backend');
    assert.equal(c.argsSummary, 'path: "README.md", preview: true');
    assert.equal(c.argsJson, '{\n  "path": "README.md",\n  "preview": true\n}');
    assert.equal(c.durationMs, 42);
    assert.equal(formatDuration(c.durationMs ?? 0), '42 ms');
    assert.deepEqual(c.result, [{ kind: 'text', text: 'Opened README.md' }]);
  });

  it('shows a denied call as denied with the reason', () => {
    const s = play([
      ev.started(),
      ev.toolStarted('c2', 'DeleteFile', { path: 'src/index.ts' }),
      ev.toolUpdated('c2', 'awaiting-permission'),
      ev.toolEnded('c2', 'denied', 3100, [], 'The user denied DeleteFile.'),
    ]);
    assert.equal(card(s, 'c2').status, 'denied');
    assert.equal(card(s, 'c2').details, 'The user denied DeleteFile.');
    assert.equal(formatDuration(card(s, 'c2').durationMs ?? 0), '3.1 s');
  });

  for (const outcome of ['failed', 'skipped', 'cancelled'] as const) {
    it(`shows a ${outcome} call as ${outcome}`, () => {
      const s = play([ev.started(), ev.toolStarted('c', 'ReadFile', { path: 'a' }), ev.toolEnded('c', outcome, 5, [], `it was ${outcome}`)]);
      assert.equal(card(s, 'c').status, outcome);
      assert.equal(card(s, 'c').details, `it was ${outcome}`);
    });
  }

  it('shows a timed-out call as failed and says it timed out', () => {
    const s = play([ev.started(), ev.toolStarted('c', 'RunTask', {}), ev.toolUpdated('c', 'running'), ev.toolEnded('c', 'timedOut', 30_000, [], 'no answer in 30 s')]);
    assert.equal(card(s, 'c').status, 'failed');
    assert.equal(card(s, 'c').details, 'Timed out: no answer in 30 s');
    assert.equal(formatDuration(30_000), '30.0 s');
  });

  it('keeps a call running through progress updates and shows the latest details', () => {
    const s = play([
      ev.started(),
      ev.toolStarted('c', 'Search', { query: 'foo' }),
      ev.toolUpdated('c', 'running'),
      ev.toolUpdated('c', 'progress', '10 files searched'),
      ev.toolUpdated('c', 'progress', '20 files searched'),
    ]);
    assert.equal(card(s, 'c').status, 'running');
    assert.equal(card(s, 'c').details, '20 files searched');
  });

  it('ignores updates that arrive after the call ended', () => {
    const s = play([ev.started(), ev.toolStarted('c', 'OpenFile', {}), ev.toolEnded('c', 'succeeded', 1), ev.toolUpdated('c', 'awaiting-permission')]);
    assert.equal(card(s, 'c').status, 'succeeded');
  });

  it('labels backend-executed tools as backend', () => {
    const s = play([ev.started(), ev.toolStarted('c', 'WebSearch', { q: 'x' }, { executor: 'server' })]);
    assert.equal(card(s, 'c').executor, 'backend');
  });

  it('cancels calls still open when the run is stopped, and says so', () => {
    const s = play([ev.started(), ev.toolStarted('c', 'OpenFile', {}), ev.toolUpdated('c', 'awaiting-permission'), ev.finished('cancelled')]);
    assert.equal(card(s, 'c').status, 'cancelled');
    assert.equal(s.run, null);
    const last = s.items[s.items.length - 1];
    assert.deepEqual(last.kind === 'notice' && last.text, 'Stopped.');
  });

  it('keeps results: text, pretty JSON, inline PNG as base64, other binaries by size', () => {
    const s = play([
      ev.started(),
      ev.toolStarted('c', 'Screenshot', {}),
      ev.toolEnded('c', 'succeeded', 12, [
        { type: 'text', text: 'done' },
        { type: 'json', value: { a: 1 } },
        { type: 'binary', mimeType: 'image/png', bytes: PNG_1X1, filename: 'shot.png' },
        { type: 'binary', mimeType: 'image/svg+xml', bytes: new Uint8Array(10) },
        { type: 'binary', mimeType: 'application/pdf', bytes: new Uint8Array(1234) },
      ]),
    ]);
    const [text, json, png, svg, pdf] = card(s, 'c').result;
    assert.deepEqual(text, { kind: 'text', text: 'done' });
    assert.deepEqual(json, { kind: 'json', text: '{\n  "a": 1\n}' });
    assert.deepEqual(png, { kind: 'image', mimeType: 'image/png', byteLength: PNG_1X1.byteLength, filename: 'shot.png', data: Buffer.from(PNG_1X1).toString('base64') });
    assert.deepEqual(svg, { kind: 'binary', mimeType: 'image/svg+xml', byteLength: 10 }, 'SVG is never shown inline');
    assert.deepEqual(pdf, { kind: 'binary', mimeType: 'application/pdf', byteLength: 1234 });
    assert.equal(describeBinary(1234, 'application/pdf'), '1,234 bytes of application/pdf');
  });

  it('summarizes arguments on one short line', () => {
    const summary = summarizeArguments({ path: 'src/a.ts', content: 'line one\nline two\n'.repeat(50), options: { force: true }, list: [1, 2] });
    assert.ok(!summary.includes('\n'));
    assert.ok(summary.length <= 80, summary);
    assert.match(summary, /^path: "src\/a.ts", content: "line one line two/);
    assert.equal(summarizeArguments({ options: { force: true }, list: [1, 2], none: [] }), 'options: {…}, list: [2 items], none: []');
  });
});

describe('chat state: answers, expansions, input and errors', () => {
  it('streams text deltas into one answer, and a tool call between them starts a new answer', () => {
    const s = play([
      user('hi'),
      ev.started(),
      ev.text('Let me '),
      ev.text('check.'),
      ev.toolStarted('c', 'OpenFile', { path: 'a' }),
      ev.toolEnded('c', 'succeeded', 1),
      ev.text('Done: **ok**'),
      ev.finished('completed'),
    ]);
    assert.deepEqual(kinds(s), ['user', 'answer', 'tool', 'answer']);
    const answers = s.items.filter((i) => i.kind === 'answer');
    assert.deepEqual(answers.map((a) => a.kind === 'answer' && [a.text, a.streaming]), [['Let me check.', false], ['Done: **ok**', false]]);
    assert.equal(s.run, null);
  });

  it('changes only the active answer while streaming (other items keep their identity)', () => {
    const before = play([user('hi'), ev.started(), ev.text('a')]);
    const after = reduce(before, ev.text('b'));
    assert.equal(after.items[0], before.items[0]);
    assert.notEqual(after.items[1], before.items[1]);
  });

  it('shows a group expansion as an inline event', () => {
    const s = play([ev.started(), ev.expanded('IDE', ['OpenFile', 'ReadFile'])]);
    const item = s.items[0];
    assert.equal(item.kind, 'expansion');
    if (item.kind !== 'expansion') return;
    assert.equal(describeExpansion(item.group, item.tools, item.skill), 'IDE expanded: OpenFile, ReadFile');
    assert.equal(describeExpansion('Git', ['A', 'B', 'C', 'D', 'E', 'F', 'G', 'H', 'I', 'J'], 'review'),
      'Git expanded (skill review): A, B, C, D, E, F, G, H, +2 more');
  });

  it('shows a compaction of the context as a one-line notice in the transcript', () => {
    const s = play([ev.started(), hostEvent({ type: 'contextCompacted', threadId: THREAD, runId: RUN, mode: 'summarized', messages: 14, tokensBefore: 131072, tokensAfter: 41210, contextWindow: 128000 })]);
    assert.deepEqual(kinds(s), ['notice']);
    const item = s.items[0];
    assert.ok(item.kind === 'notice');
    assert.equal(item.text, "To fit the model's context window, 14 earlier messages were summarised by the model: 131,072 → 41,210 tokens.");
  });

  it('tracks "awaiting your input" while a permission prompt is open', () => {
    let s = play([ev.started(), { type: 'awaitingInput', open: true }]);
    assert.equal(s.awaitingInput, true);
    s = reduce(s, { type: 'awaitingInput', open: false });
    assert.equal(s.awaitingInput, false);
  });

  it('remembers the last user message for Retry and shows host errors as retryable items', () => {
    const s = play([user('first'), user('second'), { type: 'error', message: 'Not connected to a backend.', code: 'DISCONNECTED', retryable: true }]);
    assert.equal(s.lastUserText, 'second');
    assert.deepEqual(s.items[2], { kind: 'error', id: s.items[2].id, message: 'Not connected to a backend.', code: 'DISCONNECTED', retryable: true });
  });

  it('remembers the selection the last message was sent with, for Retry; a later message without one forgets it; a state saved before it restores', () => {
    const context = { file: 'hello.txt', selection: { startLine: 1, startCharacter: 0, endLine: 1, endCharacter: 6 }, selectedText: 'second' };
    let s = play([{ type: 'userMessage', text: 'what is this?', attachment: 'hello.txt:2', context }]);
    assert.deepEqual(s.lastUserContext, context);
    assert.deepEqual(restoreState(JSON.parse(JSON.stringify(s))).lastUserContext, context);
    s = reduce(s, { type: 'userMessage', text: 'and now?' });
    assert.equal(s.lastUserContext, null);
    const { lastUserContext: _dropped, ...older } = play([user('from before')]);
    assert.equal(restoreState(older).lastUserContext, null);
    assert.equal(restoreState(older).lastUserText, 'from before');
  });

  it('ends the run on runError, shows the error, and ignores later events of that run', () => {
    const s = play([
      ev.started(), ev.text('partial'), ev.toolStarted('c', 'OpenFile', {}),
      ev.error('MODEL_RATE_LIMITED', 'The model endpoint kept answering 429.', true),
      ev.text(' late'), ev.toolEnded('c', 'succeeded', 1),
    ]);
    assert.equal(s.run, null);
    assert.equal(card(s, 'c').status, 'cancelled');
    const err = s.items[s.items.length - 1];
    assert.equal(err.kind === 'error' && err.code, 'MODEL_RATE_LIMITED');
    assert.ok(!JSON.stringify(s).includes('late'));
  });

  it('marks Stop as requested until the run ends', () => {
    let s = play([ev.started(), { type: 'stopRequested' }]);
    assert.equal(s.run?.stopRequested, true);
    s = reduce(s, ev.finished('cancelled'));
    assert.equal(s.run, null);
  });

  it('New Chat clears the transcript, keeps the connection status, and ignores the old run', () => {
    const status: ChatAction = { type: 'status', status: { connection: 'connected', model: 'offline-demo', offline: true } };
    let s = play([status, user('hi'), ev.started(), ev.text('hello')]);
    s = reduce(s, { type: 'reset' });
    assert.deepEqual(s.items, []);
    assert.equal(s.connection.offline, true);
    s = reduce(s, ev.text(' more'));
    assert.deepEqual(s.items, []);
  });

  it('closes a run the host no longer knows about when the view is restored (sync)', () => {
    const saved = JSON.parse(JSON.stringify(play([user('hi'), ev.started(), ev.toolStarted('c', 'OpenFile', {}), ev.toolUpdated('c', 'running')])));
    const s = play([{ type: 'restore', saved }, { type: 'sync', activeRunId: null }]);
    assert.equal(s.run, null);
    assert.equal(card(s, 'c').status, 'cancelled');
    const last = s.items[s.items.length - 1];
    assert.equal(last.kind === 'notice' && last.text, 'The run was interrupted.');
  });

  it('ignores unknown actions and events of runs it does not know', () => {
    const s = play([user('hi'), ev.started()]);
    assert.equal(reduce(s, { type: 'somethingNew' } as unknown as ChatAction), s);
    assert.equal(reduce(s, ev.text('x', 'other-run')), s);
    assert.equal(reduce(s, ev.toolEnded('nope', 'succeeded', 1)), s);
    assert.equal(reduce(s, ev.toolUpdated('nope', 'running')), s);
  });
});

describe('chat state: restore and size bounds', () => {
  it('survives a JSON round trip through getState/setState unchanged', () => {
    const s = play([
      { type: 'status', status: { connection: 'connected', model: 'gpt-4.1-mini' } },
      user('open and screenshot'),
      ev.started(),
      ev.text('Sure.'),
      ev.expanded('IDE', ['OpenFile']),
      ev.toolStarted('c1', 'OpenFile', { path: 'a.ts' }),
      ev.toolEnded('c1', 'succeeded', 9, [{ type: 'binary', mimeType: 'image/png', bytes: PNG_1X1 }]),
      ev.toolStarted('c2', 'DeleteFile', { path: 'b.ts' }),
      ev.toolEnded('c2', 'denied', 1500, [], 'denied'),
      { type: 'toggleCard', id: 'i5', open: true },
      ev.finished('completed'),
      { type: 'error', message: 'x', code: 'INTERNAL', retryable: false },
    ]);
    const restored = restoreState(JSON.parse(JSON.stringify(s)));
    assert.deepEqual(restored, { ...s, connection: { ...s.connection, connection: 'connecting' } });
  });

  it('restores a saved "connected" as connecting until the host says (after a reload the backend is still starting); the host\'s status then decides', () => {
    const s = play([{ type: 'status', status: { connection: 'connected', model: 'gpt-4.1-mini', offline: true } }, user('hello')]);
    const restored = restoreState(JSON.parse(JSON.stringify(s)));
    assert.deepEqual(restored.connection, { connection: 'connecting', model: 'gpt-4.1-mini', offline: true });
    const told = reduce(restored, { type: 'status', status: { connection: 'connected', model: 'gpt-4.1-mini' } });
    assert.equal(told.connection.connection, 'connected');
    const disconnected = play([{ type: 'status', status: { connection: 'disconnected', detail: 'gone' } }]);
    assert.deepEqual(restoreState(JSON.parse(JSON.stringify(disconnected))).connection, { connection: 'disconnected', detail: 'gone' });
  });

  it('starts fresh from missing or corrupt saved state', () => {
    assert.deepEqual(restoreState(undefined), initialState());
    assert.deepEqual(restoreState({ version: 1, items: [{ kind: 'tool' }] }), initialState());
    assert.deepEqual(restoreState('garbage'), initialState());
  });

  it(`keeps only the last ${MAX_ITEMS} items`, () => {
    const actions = Array.from({ length: MAX_ITEMS + 50 }, (_, i) => user(`message ${i}`));
    const s = play(actions);
    assert.equal(s.items.length, MAX_ITEMS);
    const texts = s.items.map((i) => (i.kind === 'user' ? i.text : ''));
    assert.equal(texts[0], 'message 50');
    assert.equal(texts[MAX_ITEMS - 1], `message ${MAX_ITEMS + 49}`);
  });

  it('drops the bytes of the oldest images beyond the cap and keeps the newest', () => {
    const big = new Uint8Array(1_000_000); // ≈1.33 M base64 characters each
    const actions: ChatAction[] = [ev.started()];
    for (let i = 0; i < 4; i++) {
      actions.push(ev.toolStarted(`c${i}`, 'Screenshot', {}), ev.toolEnded(`c${i}`, 'succeeded', 1, [{ type: 'binary', mimeType: 'image/png', bytes: big }]));
    }
    const s = play(actions);
    const kept = cards(s).map((c) => c.result[0].kind === 'image' && c.result[0].data !== null);
    assert.deepEqual(kept, [false, false, true, true]);
    const total = cards(s).reduce((n, c) => n + (c.result[0].kind === 'image' ? (c.result[0].data?.length ?? 0) : 0), 0);
    assert.ok(total <= MAX_KEPT_IMAGE_CHARS);
    // The state a window reload restores is bounded the same way.
    const restored = restoreState(JSON.parse(JSON.stringify({ ...s, items: [...s.items, ...s.items.map((it: ChatItem) => ({ ...it, id: `${it.id}b` }))] })));
    assert.ok(restored.items.filter((i) => i.kind === 'tool' && i.result[0].kind === 'image' && i.result[0].data !== null).length <= 2);
  });

  it('does not store undefined fields (so JSON keeps the state identical)', () => {
    const s = play([ev.started(), ev.toolStarted('c', 'OpenFile', {}), ev.toolUpdated('c', 'progress', 'x'), ev.toolUpdated('c', 'awaiting-permission')]);
    assert.ok(!('details' in card(s, 'c')));
    assert.equal(RUN, s.run?.runId);
  });
});

describe('chat state: attached selection', () => {
  const attachment = { label: 'hello.txt:1', context: { file: 'hello.txt', selectedText: 'Hello' } };

  it('keeps the attachment until removed, across New Chat, a thread switch and a restore', () => {
    let s = reduce(initialState(), { type: 'attachSelection', attachment });
    assert.deepEqual(s.attachment, attachment);
    s = reduce(s, { type: 'newChatRequested' });
    assert.deepEqual(s.attachment, attachment);
    s = reduce(s, { type: 'showThread', threadId: '3b241101-e2bb-4255-8caf-4136c566a962' });
    assert.deepEqual(s.attachment, attachment);
    s = reduce(initialState(), { type: 'restore', saved: JSON.parse(JSON.stringify(s)) });
    assert.deepEqual(s.attachment, attachment);
    s = reduce(s, { type: 'removeAttachment' });
    assert.equal(s.attachment, null);
  });
});

describe('chat state: a model\'s error after the model was switched', () => {
  it('keeps its text but is marked stale (no actions) once the status names another model; other errors stay', () => {
    const s = play([
      { type: 'status', status: { connection: 'connected', model: 'llama3.1' } },
      { type: 'error', message: 'No answer from llama3.1', code: 'MODEL_TIMEOUT', retryable: true },
      { type: 'error', message: 'Not connected', code: 'DISCONNECTED', retryable: true },
    ]);
    const before = s.items.filter((i) => i.kind === 'error');
    assert.deepEqual(before.map((e) => e.kind === 'error' && errorActions(e).map((a) => a.label)), [['Retry', 'Select Model', 'Use the offline demo', 'Show Log'], ['Connect', 'Retry']]);
    const same = reduce(s, { type: 'status', status: { connection: 'connected', model: 'llama3.1' } });
    assert.ok(same.items.every((i) => i.kind !== 'error' || !i.stale), 'the same model again changes nothing');
    const switched = reduce(s, { type: 'status', status: { connection: 'connected', model: 'offline-demo', offline: true } });
    const after = switched.items.filter((i) => i.kind === 'error');
    assert.deepEqual(after.map((e) => e.kind === 'error' && [e.message, e.stale === true, errorActions(e).length]), [['No answer from llama3.1', true, 0], ['Not connected', false, 2]]);
  });
});
