import * as assert from 'node:assert/strict';
import { PermissionGate, type PermissionCheck, type ToolPolicy } from '../../../../src/core/consent/permissionGate';
import { AnsweringPrompter } from './permission-fakes';

function check(toolName: string, extra: Partial<PermissionCheck> = {}): PermissionCheck {
  return { requestId: `r-${Math.random()}`, toolKey: toolName, toolName, groupName: 'IDE', message: `${toolName}?`, rememberable: true, signal: new AbortController().signal, ...extra };
}

describe('tool policies (Tool Groups view) in the permission gate', () => {
  const policies = new Map<string, ToolPolicy>();
  const setUp = (answer: 'allow' | 'deny' = 'allow') => {
    const presenter = new AnsweringPrompter(answer);
    const gate = new PermissionGate({ presenter });
    gate.setToolPolicies({ get: (name) => policies.get(name) });
    return { gate, presenter };
  };
  beforeEach(() => policies.clear());

  it('Deny refuses without a prompt, even where the prompt is forced', async () => {
    const { gate, presenter } = setUp('allow');
    policies.set('DeleteFile', 'deny');
    assert.deepEqual(await gate.check(check('DeleteFile')), { kind: 'denied', via: 'policy' });
    assert.deepEqual(await gate.check(check('DeleteFile', { rememberable: false })), { kind: 'denied', via: 'policy' });
    assert.equal(presenter.shown.length, 0);
  });

  it('Allow answers the prompts a remembered grant could answer, but never a forced one (protected path, command, background request)', async () => {
    const { gate, presenter } = setUp('deny');
    policies.set('DeleteFile', 'allow');
    assert.deepEqual(await gate.check(check('DeleteFile')), { kind: 'allowed', via: 'policy' });
    assert.equal(presenter.shown.length, 0);
    assert.deepEqual(await gate.check(check('DeleteFile', { rememberable: false })), { kind: 'denied', via: 'user' });
    assert.equal(presenter.shown.length, 1, 'the forced prompt was answered by the policy');
  });

  it('Ask (or no policy) asks as before; a policy applies to its own tool only', async () => {
    const { gate, presenter } = setUp('allow');
    policies.set('ApplyEdit', 'deny');
    policies.set('SaveDocument', 'ask');
    assert.deepEqual(await gate.check(check('DeleteFile')), { kind: 'allowed', via: 'prompt' });
    assert.deepEqual(await gate.check(check('SaveDocument')), { kind: 'allowed', via: 'prompt' });
    assert.equal(presenter.shown.length, 2);
  });
});
