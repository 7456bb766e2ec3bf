import assert from 'node:assert/strict';
import { HostToWebview, WebviewToHost } from '../../../src/protocol/webview';

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

