import assert from 'node:assert/strict';
import { initialState, reduce, restoreState, type ChatAction, type ChatState } from '../../../src/webview/state';
import { leftoverText } from '../../../src/webview/steers';
import { ev, hostEvent, RUN, THREAD } from './fixtures';

const play = (actions: ChatAction[], from: ChatState = initialState()): ChatState => actions.reduce(reduce, from);
const steerUpdated = (steerId: string, state: 'queued' | 'delivered' | 'withdrawn' | 'returned', runId = RUN) => hostEvent({ type: 'steerUpdated', threadId: THREAD, runId, steerId, state });

describe('chat state: messages typed during a run (steering)', () => {
  it('a queued message waits above the box, then joins the transcript where the backend delivered it', () => {
    let s = play([{ type: 'userMessage', text: 'fix the tests' }, ev.started(), ev.text('Looking.'), { type: 'steerQueued', steerId: 's1', text: 'only the unit tests' }, steerUpdated('s1', 'queued')]);
    assert.deepEqual(s.steers, [{ steerId: 's1', text: 'only the unit tests', state: 'pending' }]);
    assert.deepEqual(s.items.map((i) => i.kind), ['user', 'answer']);
    s = play([steerUpdated('s1', 'delivered'), ev.text('On it.')], s);
    assert.deepEqual(s.steers, []);
    assert.deepEqual(s.items.map((i) => (i.kind === 'user' ? `user:${i.text}` : i.kind)), ['user:fix the tests', 'answer', 'user:only the unit tests', 'answer']);
  });

  it('withdrawn ones go; returned ones stay, marked, and are what is sent once the run is over; saved state keeps them', () => {
    let s = play([ev.started(), { type: 'steerQueued', steerId: 'a', text: 'first' }, { type: 'steerQueued', steerId: 'b', text: 'second' }, { type: 'steerQueued', steerId: 'c', text: 'third' }]);
    s = play([{ type: 'steerWithdrawn', steerId: 'b' }, steerUpdated('a', 'returned'), steerUpdated('c', 'returned'), ev.finished()], s);
    assert.equal(s.run, null);
    assert.deepEqual(s.steers.map((x) => `${x.steerId}:${x.state}`), ['a:returned', 'c:returned']);
    assert.equal(leftoverText(s.steers, 100_000), 'first\n\nthird');
    assert.deepEqual(restoreState(JSON.parse(JSON.stringify(s))).steers, s.steers);
    s = reduce(s, { type: 'leftoverSteersSent' });
    assert.deepEqual(s.steers, []);
  });

  it('an update for another run, or a steer the view does not hold, changes nothing', () => {
    const s = play([ev.started(), { type: 'steerQueued', steerId: 's1', text: 'x' }]);
    assert.deepEqual(reduce(s, steerUpdated('s1', 'delivered', 'run-other')).steers, s.steers);
    assert.deepEqual(reduce(s, steerUpdated('nope', 'delivered')).items, s.items);
  });
});
