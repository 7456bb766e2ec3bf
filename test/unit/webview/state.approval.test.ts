import assert from 'node:assert/strict';
import { HostToWebview, WebviewToHost, type ChatApproval } from '../../../src/protocol/webview';
import { initialState, reduce, restoreState, transcriptOf, type ChatAction, type ChatState } from '../../../src/webview/state';

const play = (actions: ChatAction[], from: ChatState = initialState()): ChatState => actions.reduce(reduce, from);
const THREAD = '0b0b6b1e-2f0c-4c8e-9d1a-3a5b7c9d1e2f';
const PROMPT: ChatApproval = {
  promptId: 'p-1',
  digest: 'a'.repeat(64),
  requestId: 'r1',
  toolName: 'DeleteFile',
  groupName: 'IDE',
  message: 'Delete hello.txt (12 B)?',
  detail: 'Requested by the agent through the IDE tool DeleteFile.',
  choices: [{ answer: 'allowSession', label: 'Allow DeleteFile of hello.txt until this window closes' }],
};

describe('chat state: the permission prompt shown in the chat', () => {
  it('shows the prompt the host sends and clears it on null; it belongs to the window, so New Chat and another thread keep it', () => {
    const shown = play([{ type: 'approval', prompt: PROMPT }]);
    assert.deepEqual(shown.approval, PROMPT);
    assert.deepEqual(reduce(shown, { type: 'newChatRequested' }).approval, PROMPT);
    assert.deepEqual(reduce(shown, { type: 'showThread', threadId: THREAD, transcript: undefined }).approval, PROMPT);
    assert.equal(reduce(shown, { type: 'approval', prompt: null }).approval, null);
  });

  it('is never kept in a transcript, and a state saved before prompts in the chat restores with none', () => {
    const shown = play([{ type: 'showThread', threadId: THREAD, transcript: undefined }, { type: 'userMessage', text: 'hi' }, { type: 'approval', prompt: PROMPT }]);
    assert.equal((JSON.parse(transcriptOf(shown)) as ChatState).approval, null);
    const { approval: _gone, ...older } = shown;
    assert.equal(restoreState(older).approval, null);
  });

  it('the messages both ways parse only with the shapes the chat uses', () => {
    assert.ok(HostToWebview.safeParse({ type: 'approval', prompt: PROMPT }).success);
    assert.ok(HostToWebview.safeParse({ type: 'approval', prompt: null }).success);
    assert.equal(HostToWebview.safeParse({ type: 'approval', prompt: { ...PROMPT, choices: [{ answer: 'allowEverything', label: 'x' }] } }).success, false);
    const named = { type: 'approvalAnswer', promptId: 'p-1', digest: 'a'.repeat(64) };
    assert.ok(WebviewToHost.safeParse({ ...named, answer: 'deny', reason: 'keep it' }).success);
    assert.equal(WebviewToHost.safeParse({ ...named, answer: 'approve' }).success, false);
    assert.equal(WebviewToHost.safeParse({ ...named, answer: 'deny', reason: 'x'.repeat(1001) }).success, false);
    assert.equal(WebviewToHost.safeParse({ type: 'approvalAnswer', requestId: 'r1', answer: 'allow' }).success, false, 'an answer names the prompt and its digest, not a request id');
    assert.equal(WebviewToHost.safeParse({ ...named, digest: 'not a digest', answer: 'allow' }).success, false);
  });
});
