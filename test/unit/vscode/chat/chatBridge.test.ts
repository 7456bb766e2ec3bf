import assert from 'node:assert/strict';
import type { RunEvent } from '../../../../src/protocol/types';
import { HostToWebview, MAX_INLINE_IMAGE_BYTES, MAX_POSTED_STRING } from '../../../../src/protocol/webview';
import { toChatRunEvent } from '../../../../src/vscode/chat/chatBridge';
import { PNG_1X1 } from '../../webview/fixtures';

const toBase64 = (b: Uint8Array): string => Buffer.from(b).toString('base64');
const ref = { threadId: 't', runId: 'r' };

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
    assert.match(text, /… \[showing the first 20,000 of 20,100 characters; the original is 20,100 bytes, 1 line\]/);
  });
});
