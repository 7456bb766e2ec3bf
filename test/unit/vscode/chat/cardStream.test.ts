import assert from 'node:assert/strict';
import type { ChatRunEvent, HostToWebview } from '../../../../src/protocol/webview';
import { CardStream } from '../../../../src/vscode/chat/cardStream';
import type { ChatAction } from '../../../../src/webview/state';
import { ev, record } from '../../webview/fixtures';

const eventOf = (a: ChatAction): ChatRunEvent => {
  assert.equal(a.type, 'runEvent');
  return (a as Extract<HostToWebview, { type: 'runEvent' }>).event;
};
const recordsOf = (posted: HostToWebview[]) => posted.flatMap((m) => (m.type === 'callRecord' ? [m.record] : []));

describe('the host\'s card stream: a client call\'s card is its record alone', () => {
  it('a call announced and ended without success that never reached the editor becomes one notSent record; later events for it stay out', () => {
    const stream = new CardStream();
    stream.runEvent(eventOf(ev.started()));
    assert.deepEqual(stream.runEvent(eventOf(ev.toolStarted('c1', 'ReadFile', { path: 'a.txt' }, { executor: 'client', group: 'IDE' }))), []);
    const posted = stream.runEvent(eventOf(ev.toolEnded('c1', 'timedOut', 7, [], 'the run ended first')));
    const [r] = recordsOf(posted);
    assert.deepEqual([posted.length, r.notSent, r.requestId, r.status, r.toolName, r.groupName, r.durationMs, r.arguments], [1, true, undefined, 'failed', 'ReadFile', 'IDE', 7, { path: 'a.txt' }]);
    assert.deepEqual(stream.runEvent(eventOf(ev.toolEnded('c1', 'succeeded', 1))), [], 'a second end of the same call changes nothing');
    assert.deepEqual(stream.runEvent(eventOf(ev.toolUpdated('c1', 'running'))), []);
  });

  it('a backend tool\'s events pass through unchanged', () => {
    const stream = new CardStream();
    for (const a of [ev.toolStarted('s1', 'Grep', {}, { executor: 'server' }), ev.toolUpdated('s1', 'running'), ev.toolEnded('s1', 'failed', 0, [], 'no')]) {
      assert.deepEqual(stream.runEvent(eventOf(a)), [a]);
    }
  });

  it('what it remembers is bounded: 10,000 announced calls that never come keep only the newest', () => {
    const stream = new CardStream();
    for (let i = 0; i < 10_000; i++) stream.runEvent(eventOf(ev.toolStarted(`c${i}`, 'ReadFile', {}, { executor: 'client' })));
    // The oldest was forgotten: its end is a backend tool's event to the view, which makes no card of an unknown call.
    assert.deepEqual(stream.runEvent(eventOf(ev.toolEnded('c0', 'failed', 0))).map((m) => m.type), ['runEvent']);
    assert.equal(recordsOf(stream.runEvent(eventOf(ev.toolEnded('c9999', 'failed', 0))))[0]?.notSent, true);
  });

  it('the end of a run forgets its announcements; a record keeps the announced name across its updates', () => {
    const stream = new CardStream();
    stream.runEvent(eventOf(ev.toolStarted('c1', 'GetSelection', {}, { executor: 'client' })));
    stream.runEvent(eventOf(ev.finished()));
    assert.deepEqual(stream.runEvent(eventOf(ev.toolEnded('c1', 'failed', 0))).map((m) => m.type), ['runEvent'], 'no record after the run ended');
    stream.runEvent(eventOf(ev.toolStarted('call-r1', 'GetSelection', {}, { executor: 'client' })));
    const first = record('r1', 'ReadFile');
    const later = record('r1', 'ReadFile', { status: 'succeeded' });
    assert.equal(recordsOf(stream.record((first as Extract<HostToWebview, { type: 'callRecord' }>).record))[0].announcedAs, 'GetSelection');
    assert.equal(recordsOf(stream.record((later as Extract<HostToWebview, { type: 'callRecord' }>).record))[0].announcedAs, 'GetSelection');
  });
});
