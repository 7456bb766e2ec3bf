import * as assert from 'node:assert/strict';
import { consent } from '../../../../src/core/consent/consentText';
import type { PermissionPrompt } from '../../../../src/core/consent/presenter';
import { chatApprovalOf, ShownPrompt } from '../../../../src/core/consent/shownPrompt';
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

describe('the prompt shown in the chat (ShownPrompt)', () => {
  it('holds the one prompt the gate shows, and tells the chat when it opens or closes; a newer one closes an older one still shown, as dismissed', async () => {
    const shown = new ShownPrompt();
    let changes = 0;
    shown.onDidChange(() => changes++);
    const a = prompt('a1');
    const b = prompt('b2');
    const first = shown.show(a, new AbortController().signal);
    assert.equal(shown.current?.promptId, 'a1');
    assert.equal(shown.answer('a1', a.digest, 'allowSession'), 'accepted');
    assert.deepEqual(await first, { answer: 'allowSession' });
    assert.equal(shown.isOpen, false);
    const stale = shown.show(a, new AbortController().signal);
    const second = shown.show(b, new AbortController().signal);
    assert.equal(await stale, undefined, 'the older prompt closed as dismissed');
    assert.equal(shown.current?.promptId, 'b2');
    assert.equal(shown.answer('a1', a.digest, 'allow'), 'not-open');
    assert.equal(shown.answer('b2', b.digest, 'deny'), 'accepted');
    assert.deepEqual(await second, { answer: 'deny' });
    assert.equal(changes, 6);
    shown.dispose();
  });

  it('keeps a Deny\'s reason, and only with a Deny', async () => {
    const shown = new ShownPrompt();
    const p = prompt('c3');
    const answered = shown.show(p, new AbortController().signal);
    assert.equal(shown.answer('c3', p.digest, 'deny', '  not that one  '), 'accepted');
    assert.deepEqual(await answered, { answer: 'deny', reason: '  not that one  ' });
    const q = prompt('d4');
    const allowed = shown.show(q, new AbortController().signal);
    shown.answer('d4', q.digest, 'allow', 'ignored');
    assert.deepEqual(await allowed, { answer: 'allow' });
  });

  it('closes a prompt whose call is cancelled (a late answer then is not-open), and on close', async () => {
    const shown = new ShownPrompt();
    const cancel = new AbortController();
    const p = prompt('e5');
    const answered = shown.show(p, cancel.signal);
    cancel.abort();
    assert.equal(await answered, undefined);
    assert.equal(shown.answer('e5', p.digest, 'allow'), 'not-open');
    const q = shown.show(prompt('f6'), new AbortController().signal);
    shown.close(undefined);
    assert.equal(await q, undefined);
    assert.equal(shown.isOpen, false);
    assert.equal(await shown.show(prompt('g7'), cancel.signal), undefined, 'an aborted call opens nothing');
  });

  it('a withdrawn prompt\'s abort does not close the prompt shown after it', async () => {
    const shown = new ShownPrompt();
    const first = new AbortController();
    void shown.show(prompt('h8'), first.signal);
    const second = shown.show(prompt('i9'), new AbortController().signal);
    first.abort();
    assert.equal(shown.current?.promptId, 'i9');
    shown.close({ answer: 'allow' });
    assert.deepEqual(await second, { answer: 'allow' });
  });

  it('gives the chat the prompt as the webview schema takes it', () => {
    assert.ok(ChatApproval.safeParse(chatApprovalOf(prompt('h8', { digest: 'f'.repeat(64) }))).success);
  });
});
