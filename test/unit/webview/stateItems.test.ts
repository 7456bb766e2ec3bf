import assert from 'node:assert/strict';
import { initialState, reduce, type ChatAction, type ChatState } from '../../../src/webview/state';
import { unchangedPrefix } from '../../../src/webview/stateItems';
import { ev } from './fixtures';

const play = (actions: ChatAction[], from: ChatState = initialState()): ChatState => actions.reduce(reduce, from);

describe('chat state: unchanged items keep their identity (the view re-renders only what follows them)', () => {
  it('unchangedPrefix counts the leading items that are the same objects', () => {
    const a = { kind: 'notice', id: 'i1', text: 'a' } as const;
    const b = { kind: 'notice', id: 'i2', text: 'b' } as const;
    const c = { kind: 'notice', id: 'i3', text: 'c' } as const;
    assert.equal(unchangedPrefix([a, b, c], [a, b, c]), 3);
    assert.equal(unchangedPrefix([a, b, c], [a, { ...b }, c]), 1, 'an equal copy is a change');
    assert.equal(unchangedPrefix([a, b], [a, b, c]), 2);
    assert.equal(unchangedPrefix([a, b, c], [a]), 1);
    assert.equal(unchangedPrefix([a, b, c], [b, c]), 0);
    assert.equal(unchangedPrefix([], [a]), 0);
  });

  it('a streamed delta changes only the answer it extends', () => {
    let s = play([{ type: 'userMessage', text: 'look' }, ev.started(), ev.toolStarted('c1', 'ReadFile', { path: 'a.ts' }), ev.toolEnded('c1', 'succeeded', 3), ev.text('Hello')]);
    for (const delta of [' there', ', and', ' more.']) {
      const next = reduce(s, ev.text(delta));
      assert.equal(next.items.length, s.items.length);
      assert.equal(unchangedPrefix(s.items, next.items), s.items.length - 1);
      s = next;
    }
    const last = s.items[s.items.length - 1];
    assert.equal(last.kind === 'answer' && last.text, 'Hello there, and more.');
  });

  it('a card after the answer leaves everything before the answer unchanged', () => {
    const s = play([{ type: 'userMessage', text: 'look' }, ev.started(), ev.text('Reading')]);
    const next = reduce(s, ev.toolStarted('c2', 'ReadFile', { path: 'b.ts' }));
    // The answer stops streaming (a new object) and the card follows it.
    assert.equal(unchangedPrefix(s.items, next.items), s.items.length - 1);
    assert.equal(next.items.length, s.items.length + 1);
  });
});
