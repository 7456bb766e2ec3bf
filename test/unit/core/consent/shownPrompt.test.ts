import * as assert from 'node:assert/strict';
import { consent } from '../../../../src/core/consent/consentText';
import type { PermissionPrompt } from '../../../../src/core/host';
import { chatApprovalOf, OpenPrompts } from '../../../../src/core/consent/shownPrompt';
import { ChatApproval } from '../../../../src/protocol/webview';

function prompt(id: string, change: Partial<PermissionPrompt> = {}): PermissionPrompt {
  return {
    promptId: id,
    digest: id.padEnd(64, '0').slice(0, 64).replace(/[^0-9a-f]/g, 'a'),
    requestId: 'r1',
    toolName: 'DeleteFile',
    groupName: 'IDE',
    message: consent`Delete a.txt (1 B)?`,
    detail: consent`Requested by the agent through the IDE tool DeleteFile.`,
    surface: 'chat',
    offerAllowSession: true,
    choices: [{ answer: 'allowSession', label: 'Allow DeleteFile of a.txt until this window closes' }],
    ...change,
  } as PermissionPrompt;
}

describe('prompts open in the chat (OpenPrompts)', () => {
  it('shows the oldest first, and tells the chat when one opens or closes', async () => {
    const open = new OpenPrompts();
    let changes = 0;
    open.onDidChange(() => changes++);
    const a = prompt('a1');
    const b = prompt('b2');
    const first = open.add(a, new AbortController().signal);
    void open.add(b, new AbortController().signal);
    assert.equal(open.first()?.promptId, 'a1');
    assert.equal(open.answer('a1', a.digest, 'allowSession'), 'accepted');
    assert.deepEqual(await first, { answer: 'allowSession' });
    assert.equal(open.first()?.promptId, 'b2');
    assert.equal(changes, 3);
    open.dispose();
  });

  it('keeps a Deny\'s reason, and only with a Deny', async () => {
    const open = new OpenPrompts();
    const p = prompt('c3');
    const answered = open.add(p, new AbortController().signal);
    assert.equal(open.answer('c3', p.digest, 'deny', '  not that one  '), 'accepted');
    assert.deepEqual(await answered, { answer: 'deny', reason: '  not that one  ' });
    const q = prompt('d4');
    const allowed = open.add(q, new AbortController().signal);
    open.answer('d4', q.digest, 'allow', 'ignored');
    assert.deepEqual(await allowed, { answer: 'allow' });
  });

  it('closes a prompt whose call is cancelled (a late answer then is not-open), and all of them on clear', async () => {
    const open = new OpenPrompts();
    const cancel = new AbortController();
    const p = prompt('e5');
    const answered = open.add(p, cancel.signal);
    cancel.abort();
    assert.equal(await answered, undefined);
    assert.equal(open.answer('e5', p.digest, 'allow'), 'not-open');
    const q = open.add(prompt('f6'), new AbortController().signal);
    open.clear();
    assert.equal(await q, undefined);
    assert.equal(open.size, 0);
    assert.equal(await open.add(prompt('g7'), cancel.signal), undefined, 'an aborted call opens nothing');
  });

  it('gives the chat the prompt as the webview schema takes it', () => {
    assert.ok(ChatApproval.safeParse(chatApprovalOf(prompt('h8', { digest: 'f'.repeat(64) }))).success);
  });
});
