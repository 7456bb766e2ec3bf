import assert from 'node:assert/strict';
import type { RunUsage } from '../../../src/protocol';
import { describeUsage, describeUsageInWords, formatTokens } from '../../../src/webview/format';
import { initialState, reduce, restoreState, type ChatAction, type ChatState, type UsageItem } from '../../../src/webview/state';
import { ev, hostEvent, RUN, THREAD } from './fixtures';

const play = (actions: ChatAction[], from: ChatState = initialState()): ChatState => actions.reduce(reduce, from);
const finishedWith = (usage: RunUsage, runId = RUN, reason: 'completed' | 'error' = 'completed') => hostEvent({ type: 'runFinished', threadId: THREAD, runId, reason, usage });
const usageLines = (s: ChatState): UsageItem[] => s.items.filter((i): i is UsageItem => i.kind === 'usage');

const FIRST: RunUsage = { inputTokens: 1234, outputTokens: 340, cachedInputTokens: 800, thread: { inputTokens: 1234, outputTokens: 340, cachedInputTokens: 800 } };
const SECOND: RunUsage = { inputTokens: 2000, outputTokens: 60, thread: { inputTokens: 3234, outputTokens: 400, cachedInputTokens: 800 } };

describe('chat state: token usage', () => {
  it('puts each run\'s usage under its answer and keeps the conversation\'s running totals', () => {
    let s = play([{ type: 'userMessage', text: 'hi' }, ev.started(), ev.text('Hello.'), finishedWith(FIRST)]);
    assert.deepEqual(s.items.map((i) => i.kind), ['user', 'answer', 'usage']);
    assert.deepEqual(usageLines(s)[0], { kind: 'usage', id: usageLines(s)[0].id, runId: RUN, inputTokens: 1234, outputTokens: 340, cachedInputTokens: 800, thread: FIRST.thread });
    assert.deepEqual(s.threadUsage, FIRST.thread);

    s = play([{ type: 'userMessage', text: 'again' }, ev.started('run-2'), ev.text('Again.', 'run-2'), finishedWith(SECOND, 'run-2')], s);
    assert.deepEqual(usageLines(s).map((u) => describeUsage(u)), ['1.2k in · 340 out · 800 cached', '2k in · 60 out']);
    assert.deepEqual(s.threadUsage, SECOND.thread);
    assert.equal(s.run, null);
  });

  it('shows no usage line when the backend reports none (the demo model), and a late runFinished adds none', () => {
    const s = play([ev.started(), ev.text('Demo answer.'), ev.finished(), finishedWith(FIRST)]);
    assert.deepEqual(s.items.map((i) => i.kind), ['answer']);
    assert.equal(s.threadUsage, null);
  });

  it('still shows the usage of a run that failed: runFinished follows the runError that closed it', () => {
    const s = play([ev.started(), ev.error('MODEL_ERROR', 'The model endpoint failed (HTTP 500).'), finishedWith(FIRST, RUN, 'error')]);
    assert.deepEqual(s.items.map((i) => i.kind), ['error', 'usage']);
    assert.deepEqual(s.threadUsage, FIRST.thread);
  });

  it('forgets the conversation\'s totals on New Chat, and they survive a restore of the saved state', () => {
    const s = play([ev.started(), ev.text('Hello.'), finishedWith(FIRST)]);
    assert.deepEqual(restoreState(JSON.parse(JSON.stringify(s))).threadUsage, FIRST.thread);
    const { threadUsage: _dropped, ...older } = s;
    assert.equal(restoreState(JSON.parse(JSON.stringify(older))).threadUsage, null, 'a state saved before usage existed still restores');
    const fresh = reduce(s, { type: 'newChatRequested' });
    assert.equal(fresh.threadUsage, null);
    assert.deepEqual(usageLines(fresh), []);
  });

  it('formats token counts compactly, and in words with exact numbers for screen readers', () => {
    assert.deepEqual([0, 340, 999, 1000, 1234, 9999, 12_345, 999_499, 1_234_567, 2_000_000].map(formatTokens),
      ['0', '340', '999', '1k', '1.2k', '10k', '12k', '999k', '1.2M', '2M']);
    assert.equal(describeUsage({ inputTokens: 1234, outputTokens: 340, cachedInputTokens: 0 }), '1.2k in · 340 out');
    assert.equal(describeUsageInWords({ inputTokens: 1234, outputTokens: 340, cachedInputTokens: 800 }), '1,234 input tokens (800 of them cached), 340 output tokens');
    assert.equal(describeUsageInWords({ inputTokens: 5, outputTokens: 1 }), '5 input tokens, 1 output token');
  });
});
