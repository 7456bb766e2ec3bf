import assert from 'node:assert/strict';
import { initialState, reduce, restoreState, transcriptOf, type ChatAction, type ChatState } from '../../../src/webview/state';
import { runIdsFrom } from '../../../src/webview/rewind';
import { ev, THREAD } from './fixtures';

const play = (actions: ChatAction[], from: ChatState = initialState()): ChatState => actions.reduce(reduce, from);
const user = (text: string): ChatAction => ({ type: 'userMessage', text });
const turn = (text: string, runId: string): ChatAction[] => [user(text), ev.started(runId), ev.text(`answer to ${text}`, runId), ev.finished('completed', runId)];
const shown = (s: ChatState) => s.items.map((i) => (i.kind === 'user' ? `user:${i.text}:${i.runId ?? '-'}` : i.kind === 'answer' ? `answer:${i.text}` : i.kind));

describe('chat state: Rewind to here', () => {
  const base = (): ChatState => play([{ type: 'showThread', threadId: THREAD, transcript: undefined }, ...turn('one', 'r1'), ...turn('two', 'r2'), ...turn('three', 'r3')]);

  it('each message learns the run it started; a compaction\'s run after an answer claims none', () => {
    const s = play([ev.started('compact-run'), ev.finished('completed', 'compact-run')], base());
    assert.deepEqual(shown(s).filter((x) => x.startsWith('user')), ['user:one:r1', 'user:two:r2', 'user:three:r3']);
    // Kept in the saved transcript, so a reload still offers it.
    assert.deepEqual(shown(restoreState(JSON.parse(transcriptOf(s)) as unknown)).filter((x) => x.startsWith('user')), ['user:one:r1', 'user:two:r2', 'user:three:r3']);
  });

  it('the runs a rewind drops are that message\'s and every later one\'s, in order', () => {
    assert.deepEqual(runIdsFrom(base(), 'r2'), ['r2', 'r3']);
    assert.deepEqual(runIdsFrom(base(), 'r1'), ['r1', 'r2', 'r3']);
    assert.deepEqual(runIdsFrom(base(), 'nope'), []);
  });

  it('rewound drops the message and everything after it, for the thread shown only', () => {
    const s = reduce(base(), { type: 'rewound', threadId: THREAD, runId: 'r2' });
    assert.deepEqual(shown(s), ['user:one:r1', 'answer:answer to one']);
    assert.equal(reduce(base(), { type: 'rewound', threadId: 'another-thread', runId: 'r2' }).items.length, base().items.length);
  });

  it('Retry does not re-send a message the rewind took away, nor its selection', () => {
    const context = { file: 'hello.txt', selection: { startLine: 1, startCharacter: 0, endLine: 1, endCharacter: 5 }, selectedText: 'Hello' };
    const before = play([{ type: 'userMessage', text: 'four', context } as ChatAction, ev.started('r4'), ev.finished('completed', 'r4')], base());
    assert.equal(before.lastUserText, 'four');
    const s = reduce(before, { type: 'rewound', threadId: THREAD, runId: 'r4' });
    assert.equal(s.lastUserText, null);
    assert.equal(s.lastUserContext, null);
    // Another thread's rewind leaves Retry as it was.
    assert.equal(reduce(before, { type: 'rewound', threadId: 'another-thread', runId: 'r4' }).lastUserText, 'four');
  });
});
