import { strict as assert } from 'node:assert';
import { CodedError, ErrorCode } from '../../../src/protocol';
import { TruncationRequests } from '../../../src/core/threadTruncation';
import { ManualTimers as FakeTimers } from './consent/permission-fakes';

describe('Rewind\'s truncateThread request in the extension', () => {
  it('resolves with the messages dropped on the matching threadTruncated; another thread or run does not settle it', async () => {
    const timers = new FakeTimers();
    const requests = new TruncationRequests(timers);
    let sent = 0;
    const pending = requests.request('t', 'r2', () => sent++);
    assert.equal(sent, 1);
    assert.equal(requests.truncated({ type: 'threadTruncated', threadId: 't', runId: 'other', messages: 1 }), false);
    assert.equal(requests.truncated({ type: 'threadTruncated', threadId: 'u', runId: 'r2', messages: 1 }), false);
    assert.equal(requests.truncated({ type: 'threadTruncated', threadId: 't', runId: 'r2', messages: 4 }), true);
    assert.equal(await pending, 4);
  });

  it('rejects with the code of an error naming the thread or the run; other errors pass on', async () => {
    const requests = new TruncationRequests(new FakeTimers());
    const busy = requests.request('t', 'r2', () => undefined);
    assert.equal(requests.error({ type: 'error', code: ErrorCode.UnknownRequest, message: 'x', relatedId: 'req-1' }), false);
    assert.equal(requests.error({ type: 'error', code: ErrorCode.RunBusy, message: 'busy', relatedId: 't' }), true);
    await assert.rejects(busy, (e: unknown) => e instanceof CodedError && e.code === ErrorCode.RunBusy);
    const missing = requests.request('t', 'r9', () => undefined);
    requests.error({ type: 'error', code: ErrorCode.NotFound, message: 'gone', relatedId: 'r9' });
    await assert.rejects(missing, (e: unknown) => e instanceof CodedError && e.code === ErrorCode.NotFound);
  });

  it('one at a time per thread; a dropped connection or no answer in time ends it', async () => {
    const timers = new FakeTimers();
    const requests = new TruncationRequests(timers, 1000);
    const first = requests.request('t', 'r1', () => undefined);
    await assert.rejects(requests.request('t', 'r1', () => undefined), (e: unknown) => e instanceof CodedError && e.code === ErrorCode.RunBusy);
    requests.failAll('dropped');
    await assert.rejects(first, (e: unknown) => e instanceof CodedError && e.code === ErrorCode.Disconnected);
    const late = requests.request('t', 'r1', () => undefined);
    timers.advance(1000);
    await assert.rejects(late, (e: unknown) => e instanceof CodedError && e.code === ErrorCode.Timeout);
  });

  it('a send that throws (not connected) leaves nothing pending', async () => {
    const requests = new TruncationRequests(new FakeTimers());
    await assert.rejects(requests.request('t', 'r1', () => { throw new CodedError(ErrorCode.Disconnected, 'not connected'); }), (e: unknown) => e instanceof CodedError && e.code === ErrorCode.Disconnected);
    const again = requests.request('t', 'r1', () => undefined);
    requests.truncated({ type: 'threadTruncated', threadId: 't', runId: 'r1', messages: 2 });
    assert.equal(await again, 2);
  });
});
