/**
 * Every `session/update` kind of ACP v1, sent by a scripted agent process over a real ACP stream,
 * as the chat's run events and the agent's status (src/agents/sessionUpdates.ts). Every event is
 * checked against the protocol's RunEvent schema by the harness.
 */
import assert from 'node:assert/strict';
import type { RunEvent } from '../../../src/protocol';
import { AGENT_NAME, startAcpHarness, type AcpHarness } from '../../support/agents/acp-harness';
import type { ScriptStep } from '../../support/agents/scripted-agent';

const chunk = (text: string): ScriptStep => ({ update: { sessionUpdate: 'agent_message_chunk', content: { type: 'text', text } } });
const of = <T extends RunEvent['type']>(events: RunEvent[], type: T) => events.filter((e): e is Extract<RunEvent, { type: T }> => e.type === type);

describe('agent session: session/update as the chat sees it', () => {
  let h: AcpHarness | undefined;
  afterEach(async () => {
    await h?.close();
    h = undefined;
  });

  it('message chunks are one answer, between runStarted (naming the agent) and runFinished', async () => {
    h = await startAcpHarness({ script: { turns: [[chunk('Hel'), chunk('lo, '), chunk('world.')]] } });
    await h.prompt('hi');
    const types = h.events.map((e) => e.type);
    assert.equal(types[0], 'runStarted');
    assert.equal(types.at(-1), 'runFinished');
    assert.equal(of(h.events, 'runStarted')[0]?.model, AGENT_NAME);
    assert.equal(of(h.events, 'textDelta').map((e) => e.text).join(''), 'Hello, world.');
    assert.equal(of(h.events, 'textDelta').length, 1, 'chunks of one turn arrive as one delta');
    assert.equal(of(h.events, 'runFinished')[0]?.reason, 'completed');
  });

  it('a tool call is a card of the agent: title, raw input, running, then its text, diff and terminal content', async () => {
    h = await startAcpHarness({ script: { turns: [[
      { update: { sessionUpdate: 'tool_call', toolCallId: 'call-1', title: 'Edit a.txt', kind: 'edit', status: 'pending', rawInput: { file_path: '/x/a.txt' } } },
      { sleep: 100 },
      { update: { sessionUpdate: 'tool_call_update', toolCallId: 'call-1', status: 'in_progress' } },
      { sleep: 100 },
      { update: { sessionUpdate: 'tool_call_update', toolCallId: 'call-1', status: 'completed', content: [
        { type: 'content', content: { type: 'text', text: 'Edited.' } },
        { type: 'diff', path: '/x/a.txt', oldText: 'one\ntwo\n', newText: 'one\nTWO\n' },
        { type: 'terminal', terminalId: 'unknown-terminal' },
      ] } },
    ]] }, flushMs: 0 });
    await h.prompt('edit');
    const started = of(h.events, 'toolCallStarted');
    assert.equal(started.length, 1);
    assert.deepEqual({ ...started[0], runId: undefined, threadId: undefined }, { type: 'toolCallStarted', runId: undefined, threadId: undefined, callId: 'call-1', toolName: 'Edit a.txt', arguments: { file_path: '/x/a.txt' }, executor: 'server', group: AGENT_NAME });
    assert.deepEqual(of(h.events, 'toolCallUpdated').map((e) => e.status), ['running']);
    const ended = of(h.events, 'toolCallEnded');
    assert.equal(ended.length, 1);
    assert.equal(ended[0]?.outcome, 'succeeded');
    const texts = ended[0]?.content.map((c) => (c.type === 'text' ? c.text : '')) ?? [];
    assert.equal(texts[0], 'Edited.');
    assert.match(texts[1] ?? '', /^Changes to \/x\/a\.txt\n[\s\S]*-two\n\+TWO/);
    assert.equal(texts[2], '(terminal unknown-terminal)');
  });

  it('a failed tool call ends its card failed with the agent\'s text as the reason', async () => {
    h = await startAcpHarness({ script: { turns: [[
      { update: { sessionUpdate: 'tool_call', toolCallId: 'c', title: 'Run tests', kind: 'execute', status: 'in_progress' } },
      { update: { sessionUpdate: 'tool_call_update', toolCallId: 'c', status: 'failed', content: [{ type: 'content', content: { type: 'text', text: 'exit 2' } }] } },
    ]] } });
    await h.prompt('x');
    const ended = of(h.events, 'toolCallEnded')[0];
    assert.equal(ended?.outcome, 'failed');
    assert.equal(ended?.errorMessage, 'exit 2');
  });

  it('thought chunks become one "Thinking" card before the answer that follows them', async () => {
    h = await startAcpHarness({ script: { turns: [[
      { update: { sessionUpdate: 'agent_thought_chunk', content: { type: 'text', text: 'Let me ' } } },
      { update: { sessionUpdate: 'agent_thought_chunk', content: { type: 'text', text: 'think.' } } },
      chunk('Answer.'),
    ]] } });
    await h.prompt('x');
    const order = h.events.filter((e) => e.type === 'toolCallStarted' || e.type === 'textDelta').map((e) => (e.type === 'textDelta' ? `text:${e.text}` : `card:${e.toolName}`));
    assert.deepEqual(order, ['card:Thinking', 'text:Answer.']);
    const thought = of(h.events, 'toolCallEnded')[0];
    assert.deepEqual(thought?.content, [{ type: 'text', text: 'Let me think.' }]);
  });

  it('the plan is one "Plan" card whose content follows the latest plan', async () => {
    const plan = (status: string) => ({ update: { sessionUpdate: 'plan', entries: [{ content: 'Read the code', priority: 'high', status }, { content: 'Fix it', priority: 'medium', status: 'pending' }] } });
    h = await startAcpHarness({ script: { turns: [[plan('in_progress'), { sleep: 80 }, plan('completed')]] } });
    await h.prompt('x');
    assert.equal(of(h.events, 'toolCallStarted').filter((e) => e.toolName === 'Plan').length, 1);
    const last = of(h.events, 'toolCallEnded').at(-1);
    assert.deepEqual(last?.content, [{ type: 'text', text: '[x] Read the code (high priority)\n[ ] Fix it' }]);
  });

  it('notices are cards; modes, commands, context usage and the title are status, not transcript', async () => {
    h = await startAcpHarness({ script: { turns: [[
      { update: { sessionUpdate: 'available_commands_update', availableCommands: [{ name: 'compact', description: 'Compact the context' }] } },
      { update: { sessionUpdate: 'current_mode_update', currentModeId: 'auto' } },
      { update: { sessionUpdate: 'usage_update', used: 1200, size: 200000, cost: { amount: 0.01, currency: 'USD' } } },
      { update: { sessionUpdate: 'session_info_update', title: 'Fixing tests' } },
      { update: { sessionUpdate: 'notice', severity: 'warning', title: 'Rate limited', description: 'Slowing down.' } },
    ]] } });
    await h.prompt('x');
    assert.deepEqual(h.statuses, [
      { modes: { current: 'ask', available: [{ id: 'ask', name: 'Ask' }, { id: 'auto', name: 'Auto' }] } },
      { commands: [{ name: 'compact', description: 'Compact the context' }] },
      { currentMode: 'auto' },
      { context: { used: 1200, size: 200000, cost: { amount: 0.01, currency: 'USD' } } },
      { title: 'Fixing tests' },
    ]);
    assert.deepEqual(of(h.events, 'toolCallStarted').map((e) => e.toolName), ['Notice: Rate limited']);
    assert.deepEqual(of(h.events, 'toolCallEnded')[0]?.content, [{ type: 'text', text: 'Slowing down.' }]);
  });

  it('the usage the agent reports ends each run, with the thread\'s running totals', async () => {
    h = await startAcpHarness({ script: { turns: [[chunk('a')], [chunk('b')]], usage: { inputTokens: 100, outputTokens: 20, totalTokens: 120, cachedReadTokens: 40 } } });
    await h.prompt('one');
    await h.prompt('two');
    const usage = of(h.events, 'runFinished').map((e) => e.usage);
    assert.deepEqual(usage, [
      { inputTokens: 100, outputTokens: 20, cachedInputTokens: 40, thread: { inputTokens: 100, outputTokens: 20, cachedInputTokens: 40 } },
      { inputTokens: 100, outputTokens: 20, cachedInputTokens: 40, thread: { inputTokens: 200, outputTokens: 40, cachedInputTokens: 80 } },
    ]);
  });

  it('stop reasons: max tokens ends the run as maxTurns, a refusal as an error', async () => {
    h = await startAcpHarness({ script: { turns: [[chunk('a')]], stopReason: 'max_tokens' } });
    await h.prompt('x');
    assert.equal(of(h.events, 'runFinished')[0]?.reason, 'maxTurns');
    await h.close();
    h = await startAcpHarness({ script: { turns: [[chunk('a')]], stopReason: 'refusal' } });
    await h.prompt('x');
    assert.equal(of(h.events, 'runError')[0]?.code, 'AGENT_ERROR');
    assert.equal(of(h.events, 'runFinished')[0]?.reason, 'error');
  });

  it('updates outside a turn (a late one) reach no transcript', async () => {
    h = await startAcpHarness({ script: { turns: [[{ update: { sessionUpdate: 'tool_call', toolCallId: 'late', title: 'Late', kind: 'other', status: 'pending' } }]] } });
    await h.prompt('x');
    const before = h.events.length;
    h.session.update({ sessionUpdate: 'agent_message_chunk', content: { type: 'text', text: 'after the end' } });
    await new Promise((r) => setTimeout(r, 100));
    assert.equal(h.events.length, before);
  });
});
