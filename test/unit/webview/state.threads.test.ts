import assert from 'node:assert/strict';
import { HostToWebview, WebviewToHost, type ChatThreadSummary } from '../../../src/protocol/webview';
import { formatThreadDate } from '../../../src/webview/format';
import { initialState, reduce, restoreState, transcriptOf, type ChatAction, type ChatState } from '../../../src/webview/state';
import { ev, PNG_1X1 } from './fixtures';

const play = (actions: ChatAction[], from: ChatState = initialState()): ChatState => actions.reduce(reduce, from);
const A = '0b0b6b1e-2f0c-4c8e-9d1a-3a5b7c9d1e2f';
const B = '1c1c6b1e-2f0c-4c8e-9d1a-3a5b7c9d1e2f';
const LIST: ChatThreadSummary[] = [
  { id: B, title: 'Second topic', createdAt: 2_000, updatedAt: 2_000 },
  { id: A, title: 'First topic', createdAt: 1_000, updatedAt: 1_000 },
];
const texts = (s: ChatState): string[] => s.items.map((i) => (i.kind === 'user' || i.kind === 'notice' ? i.text : i.kind));
const connected: ChatAction = { type: 'status', status: { connection: 'connected', model: 'demo' } };

describe('chat state: threads', () => {
  it("a message's attached selection stays on it in the saved transcript and after a reload (issue 29 item 7)", () => {
    const sent = play([connected, { type: 'showThread', threadId: A, transcript: undefined },
      { type: 'userMessage', text: 'what does this do?', attachment: 'src/a.ts:3-7' }]);
    const user = (s: ChatState) => s.items.find((i) => i.kind === 'user');
    assert.deepEqual(user(sent), { kind: 'user', id: user(sent)?.id, text: 'what does this do?', attachment: 'src/a.ts:3-7' });
    const back = reduce(initialState(), { type: 'showThread', threadId: A, transcript: JSON.parse(transcriptOf(sent)) as unknown });
    assert.equal(user(back)?.kind === 'user' && user(back)?.attachment, 'src/a.ts:3-7');
    assert.equal(user(restoreState(JSON.parse(JSON.stringify(sent))))?.kind === 'user' && user(restoreState(JSON.parse(JSON.stringify(sent))))?.attachment, 'src/a.ts:3-7');
    assert.equal(HostToWebview.safeParse({ type: 'userMessage', text: 'x', attachment: 'a'.repeat(301) }).success, false, 'a label is bounded');
  });

  it('showThread replaces the transcript with the saved one and keeps connection, list and counting ids', () => {
    const inA = play([connected, { type: 'threads', currentId: A, threads: LIST }, { type: 'showThread', threadId: A, transcript: undefined },
      { type: 'userMessage', text: 'hello from A' }]);
    const savedA = JSON.parse(transcriptOf(inA)) as unknown;
    const inB = play([{ type: 'showThread', threadId: B, transcript: undefined }, { type: 'userMessage', text: 'hello from B' }], inA);
    assert.equal(inB.threadId, B);
    assert.deepEqual(texts(inB), ['hello from B']);

    const back = reduce(inB, { type: 'showThread', threadId: A, transcript: savedA });
    assert.equal(back.threadId, A);
    assert.deepEqual(texts(back), ['hello from A']);
    assert.equal(back.lastUserText, 'hello from A');
    assert.deepEqual(back.connection, { connection: 'connected', model: 'demo' });
    assert.deepEqual(back.threads, LIST);
    assert.ok(back.nextId >= inB.nextId, 'item ids keep counting up across threads');
  });

  it('a view with no thread yet keeps what it shows for the first thread it is told of, unless that thread has a saved transcript', () => {
    const upgraded = play([{ type: 'userMessage', text: 'asked before the view knew its thread' }, { type: 'showThread', threadId: A }]);
    assert.equal(upgraded.threadId, A);
    assert.deepEqual(texts(upgraded), ['asked before the view knew its thread']);
    const saved = JSON.parse(transcriptOf(play([{ type: 'showThread', threadId: A }, { type: 'userMessage', text: 'saved' }]))) as unknown;
    assert.deepEqual(texts(play([{ type: 'userMessage', text: 'stale' }, { type: 'showThread', threadId: A, transcript: saved }])), ['saved']);
    const cleared = play([{ type: 'showThread', threadId: A }, { type: 'userMessage', text: 'old' }, { type: 'showThread', threadId: B }]);
    assert.deepEqual(cleared.items, [], 'a view that shows a thread never carries it over to another');
  });

  it('a corrupt or foreign saved transcript shows as an empty thread', () => {
    const s = play([{ type: 'userMessage', text: 'x' }, { type: 'showThread', threadId: A, transcript: { version: 9, items: 'no' } }]);
    assert.equal(s.threadId, A);
    assert.deepEqual(s.items, []);
  });

  it('New Chat in the view clears it and forgets the thread id until the host names the new one; a host reset keeps it', () => {
    const shown = play([{ type: 'threads', currentId: A, threads: LIST }, { type: 'showThread', threadId: A, transcript: undefined }, { type: 'userMessage', text: 'q' }]);
    const cleared = reduce(shown, { type: 'newChatRequested' });
    assert.equal(cleared.threadId, null);
    assert.deepEqual(cleared.items, []);
    assert.deepEqual(cleared.threads, LIST, 'the list stays');
    assert.equal(reduce(shown, { type: 'reset' }).threadId, A);
  });

  it('the threads message updates the list, and a notice about dropped threads joins the transcript', () => {
    const s = play([{ type: 'threads', currentId: A, threads: LIST }]);
    assert.deepEqual(s.threads, LIST);
    assert.deepEqual(s.items, []);
    const shorter = reduce(s, { type: 'threads', currentId: A, threads: LIST.slice(1) });
    assert.deepEqual(shorter.threads, LIST.slice(1));
    const withNotice = reduce(shorter, { type: 'notice', text: 'Removed the oldest conversation' });
    assert.deepEqual(texts(withNotice), ['Removed the oldest conversation']);
    assert.equal(reduce(s, { type: 'showHistory' }), s);
  });

  it('a saved state from before threads restores with no thread id and an empty list', () => {
    const old = { ...initialState(), items: [{ kind: 'user', id: 'i1', text: 'old' }] } as Record<string, unknown>;
    delete old.threadId;
    delete old.threads;
    const s = restoreState(old);
    assert.equal(s.threadId, null);
    assert.deepEqual(s.threads, []);
    assert.deepEqual(texts(s), ['old']);
  });

  it('transcriptOf leaves out the list, the run and image bytes, and the oldest items beyond its cap', () => {
    let s = play([{ type: 'threads', currentId: A, threads: LIST }, { type: 'showThread', threadId: A, transcript: undefined },
      { type: 'userMessage', text: 'show the logo' }, ev.started(),
      ev.toolStarted('c1', 'ReadFile', { path: 'logo.png' }),
      ev.toolEnded('c1', 'succeeded', 5, [{ type: 'binary', mimeType: 'image/png', bytes: PNG_1X1 }])]);
    assert.ok(s.run);
    const png = Buffer.from(PNG_1X1).toString('base64');
    assert.ok(JSON.stringify(s).includes(png), 'the view itself shows the image');
    const saved = JSON.parse(transcriptOf(s)) as ChatState;
    assert.deepEqual(saved.threads, []);
    assert.equal(saved.run, null);
    assert.ok(!JSON.stringify(saved).includes(png));
    assert.equal(restoreState(saved).items.length, s.items.length, 'what is saved restores');

    for (let i = 0; i < 50; i++) s = reduce(s, { type: 'userMessage', text: `message ${i} ${'x'.repeat(100)}` });
    const capped = transcriptOf(s, 2_000);
    assert.ok(capped.length <= 2_000);
    const kept = texts(restoreState(JSON.parse(capped)));
    assert.ok(kept.length > 0 && kept.length < 50);
    assert.ok(kept[kept.length - 1].startsWith('message 49 '), 'the newest items are the ones kept');
  });

  it('the webview protocol checks thread ids, titles and transcript sizes both ways', () => {
    assert.ok(HostToWebview.safeParse({ type: 'threads', currentId: A, threads: LIST }).success);
    assert.ok(!HostToWebview.safeParse({ type: 'threads', currentId: 'x', threads: LIST }).success);
    assert.ok(!HostToWebview.safeParse({ type: 'threads', currentId: A, threads: [{ ...LIST[0], title: '' }] }).success);
    assert.ok(HostToWebview.safeParse({ type: 'showThread', threadId: A, transcript: { any: 'json' } }).success);
    assert.ok(HostToWebview.safeParse({ type: 'showThread', threadId: A }).success, 'an empty thread has no transcript (postMessage drops undefined keys)');
    assert.ok(WebviewToHost.safeParse({ type: 'switchThread', threadId: A }).success);
    assert.ok(!WebviewToHost.safeParse({ type: 'deleteThread', threadId: '../index' }).success);
    assert.ok(!WebviewToHost.safeParse({ type: 'renameThread', threadId: A, title: '   ' }).success);
    assert.ok(!WebviewToHost.safeParse({ type: 'renameThread', threadId: A, title: 'x'.repeat(81) }).success);
    assert.ok(!WebviewToHost.safeParse({ type: 'saveTranscript', threadId: A, transcript: 'x'.repeat(4_000_001), savedAt: 1 }).success);
    assert.deepEqual(WebviewToHost.parse({ type: 'ready', threadId: A, savedAt: 5 }), { type: 'ready', threadId: A, savedAt: 5 });
    assert.ok(!WebviewToHost.safeParse({ type: 'saveTranscript', threadId: A, transcript: '{}' }).success, 'a transcript says when it was saved');
  });

  it('formatThreadDate: the time today, "Yesterday" and the time, else the date', () => {
    const now = new Date(2026, 10, 24, 15, 30).getTime();
    assert.equal(formatThreadDate(new Date(2026, 10, 24, 9, 5).getTime(), now), '09:05');
    assert.equal(formatThreadDate(new Date(2026, 10, 23, 22, 0).getTime(), now), 'Yesterday 22:00');
    assert.equal(formatThreadDate(new Date(2026, 10, 3, 8, 0).getTime(), now), 'Nov 3, 2026');
  });
});
