/**
 * An ACP agent's run in the chat's reducer: its own tool cards carry the agent's name (the card says
 * it instead of "Backend"), and the picker's `agents` message leaves the transcript alone.
 */
import assert from 'node:assert/strict';
import { HostToWebview, WebviewToHost } from '../../../src/protocol/webview';
import { toChatRunEvent } from '../../../src/vscode/chat/chatBridge';
import { initialState, reduce, type ChatAction, type ChatState, type ToolItem } from '../../../src/webview/state';
import { RUN, THREAD } from './fixtures';

const toBase64 = (b: Uint8Array): string => Buffer.from(b).toString('base64');
const agentEvent = (event: Parameters<typeof toChatRunEvent>[0], agent?: string): ChatAction =>
  HostToWebview.parse(JSON.parse(JSON.stringify({ type: 'runEvent', event: toChatRunEvent(event, toBase64, agent) })));

describe('chat state: ACP agents', () => {
  it('an agent\'s tool card carries the agent\'s name; a backend\'s card does not', () => {
    let s: ChatState = reduce(initialState(), agentEvent({ type: 'runStarted', threadId: THREAD, runId: RUN, model: 'Claude Code' }));
    s = reduce(s, agentEvent({ type: 'toolCallStarted', threadId: THREAD, runId: RUN, callId: 'c1', toolName: 'Read a.txt', arguments: { file_path: '/w/a.txt' }, executor: 'server', group: 'Claude Code' }, 'Claude Code'));
    s = reduce(s, agentEvent({ type: 'toolCallStarted', threadId: THREAD, runId: RUN, callId: 'c2', toolName: 'Search', arguments: {}, executor: 'server' }));
    const cards = s.items.filter((i): i is ToolItem => i.kind === 'tool');
    assert.equal(cards[0]?.agent, 'Claude Code');
    assert.equal(cards[0]?.executor, 'backend');
    assert.equal(cards[1]?.agent, undefined);
    assert.equal(s.run?.model, 'Claude Code');
  });

  it('the picker\'s list does not change the transcript; a pick is a message the host parses', () => {
    const s = initialState();
    const agents = HostToWebview.parse({ type: 'agents', agents: [{ name: 'Claude Code', detail: '/usr/bin/claude-code-acp' }], current: 'Claude Code' });
    assert.equal(reduce(s, agents), s);
    assert.equal(WebviewToHost.safeParse({ type: 'pickAgent', name: 'Claude Code' }).success, true);
    assert.equal(WebviewToHost.safeParse({ type: 'pickAgent', name: 'x'.repeat(65) }).success, false);
    assert.equal(HostToWebview.safeParse({ type: 'agents', agents: Array.from({ length: 65 }, () => ({ name: 'a' })), current: '' }).success, false);
  });

  it('the agent\'s name on a card is clipped to what the view accepts', () => {
    const event = toChatRunEvent({ type: 'toolCallStarted', threadId: THREAD, runId: RUN, callId: 'c', toolName: 't', arguments: {}, executor: 'server' }, toBase64, 'A'.repeat(100));
    assert.equal(event.type === 'toolCallStarted' ? event.agent?.length : 0, 64);
    assert.equal(HostToWebview.safeParse({ type: 'runEvent', event }).success, true);
  });
});
