import assert from 'node:assert/strict';
import { HostOutbox, MAX_QUEUED_IMAGE_CHARS, MAX_QUEUED_MESSAGES, PendingHostMessages } from '../../../../src/vscode/chat/pendingHostMessages';
import type { HostToWebview } from '../../../../src/protocol/webview';

const ref = { threadId: 't', runId: 'r' };

describe('messages queued until the view is ready', () => {
  const delta = (text: string, runId = 'r'): HostToWebview => ({ type: 'runEvent', event: { type: 'textDelta', threadId: 't', runId, text } });
  const image = (callId: string, chars: number): HostToWebview => ({
    type: 'runEvent',
    event: { type: 'toolCallEnded', ...ref, callId, outcome: 'succeeded', durationMs: 1, content: [{ type: 'binary', mimeType: 'image/png', byteLength: chars, data: 'A'.repeat(chars) }] },
  });

  it('merges consecutive text deltas of one run and keeps everything else in order', () => {
    const q = new PendingHostMessages();
    q.push({ type: 'userMessage', text: 'hi' });
    q.push(delta('Hel'));
    q.push(delta('lo'));
    q.push(delta('other run', 'r2'));
    q.push({ type: 'error', message: 'x', code: 'INTERNAL', retryable: false });
    q.push(delta('!'));
    assert.deepEqual(q.take(), [
      { type: 'userMessage', text: 'hi' }, delta('Hello'), delta('other run', 'r2'),
      { type: 'error', message: 'x', code: 'INTERNAL', retryable: false }, delta('!'),
    ]);
    assert.equal(q.length, 0);
  });

  it('drops what was queued before a reset', () => {
    const q = new PendingHostMessages();
    q.push({ type: 'userMessage', text: 'old' });
    q.push({ type: 'reset' });
    q.push({ type: 'userMessage', text: 'new' });
    assert.deepEqual(q.take(), [{ type: 'reset' }, { type: 'userMessage', text: 'new' }]);
  });

  it('drops what was queued before another thread is shown', () => {
    const q = new PendingHostMessages();
    const show: HostToWebview = { type: 'showThread', threadId: '0b0b6b1e-2f0c-4c8e-9d1a-3a5b7c9d1e2f', transcript: undefined };
    q.push({ type: 'userMessage', text: 'old thread' });
    q.push(show);
    q.push({ type: 'userMessage', text: 'new thread' });
    assert.deepEqual(q.take(), [show, { type: 'userMessage', text: 'new thread' }]);
  });

  it('keeps at most MAX_QUEUED_MESSAGES, dropping the oldest and counting them', () => {
    const q = new PendingHostMessages();
    for (let i = 0; i < MAX_QUEUED_MESSAGES + 3; i++) q.push({ type: 'userMessage', text: `m${i}` });
    assert.equal(q.length, MAX_QUEUED_MESSAGES);
    assert.equal(q.dropped, 3);
    assert.deepEqual(q.take()[0], { type: 'userMessage', text: 'm3' });
  });

  it('keeps image bytes only for the newest images within the budget', () => {
    const q = new PendingHostMessages();
    const chars = Math.floor(MAX_QUEUED_IMAGE_CHARS / 2.5);
    for (const id of ['a', 'b', 'c']) q.push(image(id, chars));
    const kept = q.take().map((m) => m.type === 'runEvent' && m.event.type === 'toolCallEnded' && m.event.content[0].type === 'binary' && m.event.content[0].data !== undefined);
    assert.deepEqual(kept, [false, true, true]);
  });
});

describe('what a view that says ready gets again (HostOutbox, by each message\'s declared replay)', () => {
  const status = (model: string): HostToWebview => ({ type: 'status', status: { connection: 'connected', model } });
  const threads = (n: number): HostToWebview => ({ type: 'threads', currentId: '00000000-0000-4000-8000-000000000000', threads: Array.from({ length: n }, (_, i) => ({ id: `00000000-0000-4000-8000-00000000000${i}`, title: `t${i}`, createdAt: 1, updatedAt: 1 })) });

  it('a `latest` message: only the newest is kept, and it comes again on every ready, delivered before or not', () => {
    const box = new HostOutbox([status('first')]);
    box.keep(status('second'), true);
    assert.deepEqual(box.replay(), [status('second')]);
    box.keep(status('third'), false);
    assert.deepEqual(box.replay(), [status('third')]);
    assert.deepEqual(box.replay(), [status('third')], 'and again on the next ready');
  });

  it('a `queued` message comes once: on the ready after it was posted to a view not listening, never after it was delivered', () => {
    const box = new HostOutbox();
    box.keep({ type: 'userMessage', text: 'seen' }, true);
    box.keep({ type: 'userMessage', text: 'missed' }, false);
    assert.deepEqual(box.replay(), [{ type: 'userMessage', text: 'missed' }]);
    assert.deepEqual(box.replay(), []);
  });

  it('the list of threads comes on every ready, a notice about dropped threads once', () => {
    const box = new HostOutbox();
    box.keep(threads(2), false);
    box.keep({ type: 'notice', text: 'Removed the oldest conversation' }, false);
    assert.deepEqual(box.replay(), [threads(2), { type: 'notice', text: 'Removed the oldest conversation' }]);
    assert.deepEqual(box.replay(), [threads(2)]);
  });

  it('`latest` messages come first, in their declared order, then the queue; `sync` is never kept', () => {
    const box = new HostOutbox();
    box.keep({ type: 'userMessage', text: 'hi' }, false);
    box.keep({ type: 'sync', activeRunId: null }, false);
    box.keep({ type: 'approval', prompt: null }, false);
    box.keep(status('m'), false);
    assert.deepEqual(box.replay().map((m) => m.type), ['status', 'approval', 'userMessage']);
  });
});
