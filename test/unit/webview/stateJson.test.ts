import * as assert from 'node:assert/strict';
import { initialState, reduce, restoreState, transcriptOf, type ChatState } from '../../../src/webview/state';
import { stateJson, transcriptJson } from '../../../src/webview/stateJson';
import type { ChatItem } from '../../../src/webview/stateSchema';

function thread(messages: number): ChatState {
  let s = initialState();
  for (let i = 0; i < messages; i++) s = reduce(s, { type: 'userMessage', text: `message ${i} ${'x'.repeat(i % 50)}` });
  return { ...s, threadId: '6f1c2a4e-0b7d-4c55-9a31-5e8d2f40b7c1' };
}

/** The transcript as the view wrote it before items were kept as text: the whole state stringified, a tenth of the items dropped at a time. */
function wholeTranscript(state: ChatState, maxChars: number): unknown {
  let items = state.items;
  for (;;) {
    const text = JSON.stringify({ ...state, items, threads: [], run: null, awaitingInput: false, approval: null });
    if (text.length <= maxChars || items.length === 0) return JSON.parse(text);
    items = items.slice(Math.max(1, Math.ceil(items.length / 10)));
  }
}

describe('the chat\'s state as JSON text, item by item (webview/stateJson)', () => {
  it('writes the state as JSON.stringify does, and restoreState reads that text back', () => {
    const s = thread(30);
    assert.deepEqual(JSON.parse(stateJson(s)), JSON.parse(JSON.stringify(s)));
    assert.deepEqual(restoreState(stateJson(s)).items, s.items);
    assert.deepEqual(restoreState(JSON.parse(JSON.stringify(s))).items, s.items, 'an older view\'s saved object still restores');
    assert.deepEqual(restoreState('{not json'), initialState());
  });

  it('keeps the transcript\'s bound: the oldest items go, a tenth at a time, as before', () => {
    const s = thread(300);
    for (const max of [1_000_000, 20_000, 5_000, 10]) assert.deepEqual(JSON.parse(transcriptJson(s, max)), wholeTranscript(s, max), `max ${max}`);
    assert.ok(transcriptOf(s, 5_000).length <= 5_000);
  });

  it('writes an unchanged item once: a save after a change reads only the item that changed', () => {
    const s = thread(3);
    let reads = 0;
    const counted = (item: ChatItem): ChatItem => new Proxy(item, { get: (target, key, receiver) => (reads++, Reflect.get(target, key, receiver)) });
    const items = s.items.map(counted);
    const first = { ...s, items };
    stateJson(first);
    transcriptJson(first, 1_000_000);
    const afterFirst = reads;
    assert.ok(afterFirst > 0);
    const changed = { ...first, items: [...items.slice(0, 2), counted({ ...s.items[2], id: 'i-new' } as ChatItem)] };
    stateJson(changed);
    transcriptJson(changed, 1_000_000);
    const perItem = afterFirst / 3;
    assert.ok(reads - afterFirst <= perItem + 2, `the second save read ${reads - afterFirst} properties; one item is ${perItem}`);
  });
});
