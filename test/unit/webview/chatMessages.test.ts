import assert from 'node:assert/strict';
import type { RunEvent } from '../../../src/protocol/types';
import {
  HostToWebview, MAX_INLINE_IMAGE_BYTES, MAX_POSTED_STRING, MAX_QUEUED_IMAGE_CHARS, MAX_QUEUED_MESSAGES,
  PendingHostMessages, toChatRunEvent, WebviewToHost,
} from '../../../src/vscode/chatMessages';
import { contentSecurityPolicy, chatHtml } from '../../../src/webview/html';
import { PNG_1X1 } from './fixtures';

const toBase64 = (b: Uint8Array): string => Buffer.from(b).toString('base64');
const ref = { threadId: 't', runId: 'r' };

describe('chat messages: webview → host', () => {
  it('accepts every message the view sends', () => {
    for (const m of [
      { type: 'ready' }, { type: 'send', text: 'hello' }, { type: 'stop' }, { type: 'newChat' },
      { type: 'retry', text: 'hello' }, { type: 'copy', text: 'const a = 1;' },
    ]) {
      assert.equal(WebviewToHost.safeParse(m).success, true, JSON.stringify(m));
    }
  });

  it('rejects unknown types, missing or blank text, oversized text and non-objects', () => {
    for (const m of [
      { type: 'openExternal', url: 'command:x' }, { type: 'send' }, { type: 'send', text: '   ' },
      { type: 'send', text: 'x'.repeat(100_001) }, { type: 'retry', text: 42 }, 'ready', null, [],
    ]) {
      assert.equal(WebviewToHost.safeParse(m).success, false, JSON.stringify(m)?.slice(0, 80));
    }
  });
});

describe('chat messages: host → webview', () => {
  it('turns binary bytes into base64 for small raster images only', () => {
    const ended: RunEvent = {
      type: 'toolCallEnded', ...ref, callId: 'c', outcome: 'succeeded', durationMs: 3,
      content: [
        { type: 'binary', mimeType: 'image/png', bytes: PNG_1X1 },
        { type: 'binary', mimeType: 'image/png', bytes: new Uint8Array(MAX_INLINE_IMAGE_BYTES + 1) },
        { type: 'binary', mimeType: 'application/zip', bytes: new Uint8Array(7), filename: 'a.zip' },
      ],
    };
    const chat = toChatRunEvent(ended, toBase64);
    assert.equal(chat.type, 'toolCallEnded');
    if (chat.type !== 'toolCallEnded') return;
    assert.deepEqual(chat.content, [
      { type: 'binary', mimeType: 'image/png', byteLength: PNG_1X1.byteLength, data: toBase64(PNG_1X1) },
      { type: 'binary', mimeType: 'image/png', byteLength: MAX_INLINE_IMAGE_BYTES + 1 },
      { type: 'binary', mimeType: 'application/zip', filename: 'a.zip', byteLength: 7 },
    ]);
    // What postMessage carries is plain JSON and passes the view's own validation.
    const roundTripped = JSON.parse(JSON.stringify({ type: 'runEvent', event: chat }));
    assert.equal(HostToWebview.safeParse(roundTripped).success, true);
  });

  it('clips long strings in arguments and results before posting', () => {
    const long = 'x'.repeat(MAX_POSTED_STRING + 100);
    const started = toChatRunEvent({ type: 'toolCallStarted', ...ref, callId: 'c', toolName: 'WriteFile', arguments: { content: long, nested: [{ s: long }] }, executor: 'client' }, toBase64);
    const text = JSON.stringify(started);
    assert.ok(text.length < 2 * MAX_POSTED_STRING + 500);
    assert.match(text, /… \(100 more characters\)/);
  });

  it('rejects run events with invalid base64, unknown types and malformed status', () => {
    const bad = [
      { type: 'runEvent', event: { type: 'toolCallEnded', ...ref, callId: 'c', outcome: 'succeeded', durationMs: 1, content: [{ type: 'binary', mimeType: 'image/png', byteLength: 1, data: 'not base64!' }] } },
      { type: 'runEvent', event: { type: 'clientToolInvokeRequest', requestId: 'x' } },
      { type: 'status', status: { connection: 'sort-of' } },
      { type: 'awaitingInput' },
      { type: 'executeCommand', command: 'workbench.action.terminal.new' },
    ];
    for (const m of bad) assert.equal(HostToWebview.safeParse(m).success, false, JSON.stringify(m));
  });
});

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

describe('chat view HTML', () => {
  it('ships a strict CSP: nothing by default, scripts by nonce, styles and fonts from the webview origin', () => {
    assert.equal(
      contentSecurityPolicy('https://x.vscode-cdn.net', 'abcdefghijklmnopqrstuvwx'),
      "default-src 'none'; img-src https://x.vscode-cdn.net data:; style-src https://x.vscode-cdn.net; script-src 'nonce-abcdefghijklmnopqrstuvwx'; font-src https://x.vscode-cdn.net",
    );
    const html = chatHtml({ cspSource: 'https://x.vscode-cdn.net', nonce: 'abcdefghijklmnopqrstuvwx', scriptUri: 'https://x/chat.js', styleUri: 'https://x/chat.css' });
    assert.match(html, /<script nonce="abcdefghijklmnopqrstuvwx" src="https:\/\/x\/chat.js"><\/script>/);
    assert.equal((html.match(/<script/g) ?? []).length, 1);
    assert.ok(!html.includes('style='));
  });

  it('refuses a nonce that is short or could break out of the attribute', () => {
    assert.throws(() => chatHtml({ cspSource: 'x', nonce: 'short', scriptUri: 'a', styleUri: 'b' }));
    assert.throws(() => chatHtml({ cspSource: 'x', nonce: 'abcdefghijklmnop" onload="x', scriptUri: 'a', styleUri: 'b' }));
  });
});
