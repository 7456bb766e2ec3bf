import assert from 'node:assert/strict';
import type { CallRecord } from '../../../../src/core/callRecord';
import { HostToWebview, MAX_POSTED_STRING, type HostToWebview as HostMessage } from '../../../../src/protocol/webview';
import { toChatCallRecord } from '../../../../src/vscode/chat/chatBridge';
import { PendingHostMessages } from '../../../../src/vscode/chat/pendingHostMessages';

const toBase64 = (b: Uint8Array): string => Buffer.from(b).toString('base64');
const base: CallRecord = { recordId: 'rec-1', requestId: 'r1', callId: 'c1', toolName: 'ReadFile', toolKey: 'ReadFile', groupName: 'IDE', arguments: {}, background: true, status: 'pending' };
const message = (change: Partial<CallRecord>): HostMessage => ({ type: 'callRecord', record: toChatCallRecord({ ...base, ...change }, toBase64) });

describe('chat messages: call records', () => {
  it('a record crosses postMessage as JSON the view accepts, with long arguments clipped and bytes as base64', () => {
    const m = message({ arguments: { path: 'x'.repeat(MAX_POSTED_STRING + 10) }, status: 'succeeded', content: [{ type: 'binary', mimeType: 'image/png', bytes: new Uint8Array([1, 2, 3]) }] });
    const parsed = HostToWebview.parse(JSON.parse(JSON.stringify(m)));
    assert.equal(parsed.type, 'callRecord');
    if (parsed.type !== 'callRecord') return;
    assert.ok(String(parsed.record.arguments.path).length < MAX_POSTED_STRING + 100);
    assert.deepEqual(parsed.record.content, [{ type: 'binary', mimeType: 'image/png', byteLength: 3, data: 'AQID' }]);
  });

  it('while the view is hidden, a newer record of a call replaces the queued one in its place', () => {
    const q = new PendingHostMessages();
    q.push(message({ status: 'pending' }));
    q.push({ type: 'userMessage', text: 'hi' });
    q.push(message({ status: 'awaiting-permission' }));
    q.push(message({ recordId: 'rec-2', requestId: 'r2', status: 'running' }));
    q.push(message({ status: 'denied' }));
    const out = q.take();
    assert.deepEqual(out.map((m) => (m.type === 'callRecord' ? `${m.record.requestId}:${m.record.status}` : m.type)), ['r1:denied', 'userMessage', 'r2:running']);
  });

  it('a queued record is replaced only by its own call\'s: another call that reuses the request id (a new session) keeps its own', () => {
    const q = new PendingHostMessages();
    q.push(message({ status: 'denied' }));
    q.push(message({ recordId: 'rec-new-session', status: 'pending' }));
    assert.deepEqual(q.take().map((m) => (m.type === 'callRecord' ? `${m.record.recordId}:${m.record.status}` : m.type)), ['rec-1:denied', 'rec-new-session:pending']);
  });
});
