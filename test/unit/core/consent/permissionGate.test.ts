import * as assert from 'node:assert/strict';
import type { PermissionAnswer, PermissionPrompt, PromptPresenter } from '../../../../src/core/consent/presenter';
import { consent } from '../../../../src/core/consent/consentText';
import { PermissionGate, type PermissionCheck } from '../../../../src/core/consent/permissionGate';
import { delay } from '../../../support/dispatch-harness';
import { MemoryStore } from './permission-fakes';

/** A presenter whose prompts the test answers one by one. */
class ScriptedPrompter implements PromptPresenter {
  readonly shown: { prompt: PermissionPrompt; signal: AbortSignal; answer: (a: PermissionAnswer | undefined) => void }[] = [];
  open = 0;
  maxOpen = 0;
  private waiters: (() => void)[] = [];

  confirm(prompt: PermissionPrompt, signal: AbortSignal): Promise<PermissionAnswer | undefined> {
    this.open++;
    this.maxOpen = Math.max(this.maxOpen, this.open);
    return new Promise((resolve) => {
      const done = (a: PermissionAnswer | undefined) => {
        this.open = Math.max(0, this.open - 1);
        resolve(a);
      };
      signal.addEventListener('abort', () => done(undefined), { once: true });
      this.shown.push({ prompt, signal, answer: done });
      this.waiters.splice(0).forEach((w) => w());
    });
  }

  async nth(n: number): Promise<(typeof this.shown)[number]> {
    while (this.shown.length <= n) await new Promise<void>((r) => this.waiters.push(r));
    return this.shown[n];
  }
}

const EVERY_DELETE = 'Allow every DeleteFile call until this window closes';

function request(toolName: string, extra: Partial<PermissionCheck> = {}): PermissionCheck {
  return {
    requestId: `r-${Math.random()}`,
    toolKey: toolName,
    toolName,
    groupName: 'IDE',
    message: `Run ${toolName}?`,
    rememberable: true,
    signal: new AbortController().signal,
    ...extra,
  };
}

describe('permission gate', () => {
  let presenter: ScriptedPrompter;
  let gate: PermissionGate;
  beforeEach(() => {
    presenter = new ScriptedPrompter();
    gate = new PermissionGate({ presenter, closeGraceMs: 20 });
  });
  afterEach(() => gate.dispose());

  it('allow lets this call through and asks again next time', async () => {
    const first = gate.check(request('DeleteFile'));
    (await presenter.nth(0)).answer('allow');
    assert.deepEqual(await first, { kind: 'allowed', via: 'prompt' });
    const second = gate.check(request('DeleteFile'));
    (await presenter.nth(1)).answer('deny');
    assert.deepEqual(await second, { kind: 'denied', via: 'user' });
  });

  it('shows the exact message and detail, and offers "allow for this session" only when rememberable', async () => {
    const p = gate.check(request('DeleteFile', { message: 'Delete src/old.ts (1.2 KB)?', detail: consent`Moved to the trash.` }));
    const shown = await presenter.nth(0);
    assert.equal(shown.prompt.message, 'Delete src/old.ts (1.2 KB)?');
    assert.equal(shown.prompt.detail, `Requested by the agent through the ${shown.prompt.groupName} tool DeleteFile.\n\nMoved to the trash.`);
    assert.equal(shown.prompt.offerAllowSession, true);
    shown.answer('allow');
    await p;
    const forced = gate.check(request('ReadFile', { rememberable: false }));
    const shown2 = await presenter.nth(1);
    assert.equal(shown2.prompt.offerAllowSession, false);
    shown2.answer('allow');
    await forced;
  });

  it('allowSession on a call that names no target is remembered for the tool, says so, is listed, and forgotten on request', async () => {
    const p = gate.check(request('DeleteFile'));
    const shown = await presenter.nth(0);
    assert.deepEqual(shown.prompt.choices, [{ answer: 'allowSession', label: EVERY_DELETE }]);
    shown.answer('allowSession');
    assert.deepEqual(await p, { kind: 'allowed', via: 'prompt', remembered: { label: EVERY_DELETE } });
    assert.deepEqual(await gate.check(request('DeleteFile')), { kind: 'allowed', via: 'remembered', grant: { label: EVERY_DELETE } });
    assert.equal(presenter.shown.length, 1, 'no second prompt');
    assert.deepEqual(gate.remembered().map((g) => [g.toolName, g.kind, g.scope, g.label]), [['DeleteFile', 'tool', 'session', EVERY_DELETE]]);

    const other = gate.check(request('OtherTool'));
    await presenter.nth(1);
    presenter.shown[1].answer('deny');
    assert.equal((await other).kind, 'denied', 'remembering one tool does not allow another');

    await gate.forget(gate.remembered()[0]);
    assert.deepEqual(gate.remembered(), []);
    const again = gate.check(request('DeleteFile'));
    (await presenter.nth(2)).answer('deny');
    assert.equal((await again).kind, 'denied');
  });

  it('a remembered choice never answers a forced prompt, and a forced prompt does not remember', async () => {
    const p = gate.check(request('DeleteFile'));
    (await presenter.nth(0)).answer('allowSession');
    await p;
    const forced = gate.check(request('DeleteFile', { rememberable: false }));
    const shown = await presenter.nth(1);
    shown.answer('allowSession');
    assert.equal((await forced).kind, 'allowed');
    await gate.forget();
    const forcedRead = gate.check(request('ReadFile', { rememberable: false }));
    (await presenter.nth(2)).answer('allowSession');
    await forcedRead;
    assert.deepEqual(gate.remembered(), [], 'allowSession on a forced prompt is allow-once');
  });

  it('workspace scope stores the choice in the persistent store', async () => {
    const store = new MemoryStore();
    const g = new PermissionGate({ presenter, store, rememberScope: 'workspace' });
    const p = g.check(request('DeleteFile'));
    (await presenter.nth(0)).answer('allowSession');
    await p;
    assert.deepEqual(store.tools, ['DeleteFile']);
    const label = 'Allow every DeleteFile call in this workspace from now on';
    assert.deepEqual(g.remembered().map((r) => [r.toolName, r.scope, r.label]), [['DeleteFile', 'workspace', label]]);
    // A new gate (a new window) on the same store remembers it.
    const later = new PermissionGate({ presenter, store, rememberScope: 'workspace' });
    assert.deepEqual(await later.check(request('DeleteFile')), { kind: 'allowed', via: 'remembered', grant: { label } });
    await later.forget();
    assert.deepEqual(store.tools, []);
    g.dispose();
    later.dispose();
  });

  it('dismissing the prompt is deny; a host error is deny', async () => {
    const p = gate.check(request('DeleteFile'));
    (await presenter.nth(0)).answer(undefined);
    assert.deepEqual(await p, { kind: 'denied', via: 'dismissed' });
    const failing = new PermissionGate({ presenter: { confirm: () => Promise.reject(new Error('dialog failed')) } });
    assert.deepEqual(await failing.check(request('DeleteFile')), { kind: 'denied', via: 'error' });
    failing.dispose();
  });

  it('an unanswered prompt times out as deny and is closed', async () => {
    const g = new PermissionGate({ presenter, promptTimeoutMs: 30, closeGraceMs: 10 });
    const decision = await g.check(request('DeleteFile'));
    assert.deepEqual(decision, { kind: 'denied', via: 'timeout' });
    assert.equal(presenter.shown[0].signal.aborted, true, 'the host was told to close the prompt');
    g.dispose();
  });

  it('serialises prompts: a second call waits until the first is answered', async () => {
    const a = gate.check(request('DeleteFile', { message: 'first' }));
    const b = gate.check(request('DeleteFile', { message: 'second' }));
    const first = await presenter.nth(0);
    await delay(20);
    assert.equal(presenter.shown.length, 1, 'the second prompt is not shown while the first is open');
    first.answer('allow');
    const second = await presenter.nth(1);
    assert.equal(second.prompt.message, 'second');
    second.answer('deny');
    assert.equal((await a).kind, 'allowed');
    assert.equal((await b).kind, 'denied');
    assert.equal(presenter.maxOpen, 1);
  });

  it('a queued call that gets remembered meanwhile is allowed without its own prompt', async () => {
    const a = gate.check(request('DeleteFile'));
    const b = gate.check(request('DeleteFile'));
    (await presenter.nth(0)).answer('allowSession');
    assert.deepEqual(await b, { kind: 'allowed', via: 'remembered', grant: { label: EVERY_DELETE } });
    assert.equal((await a).kind, 'allowed');
    assert.equal(presenter.shown.length, 1);
  });

  it('cancelling closes an open prompt and withdraws a queued one', async () => {
    const c1 = new AbortController();
    const c2 = new AbortController();
    const waiting: string[] = [];
    const a = gate.check(request('DeleteFile', { signal: c1.signal, onWaiting: () => waiting.push('a') }));
    const b = gate.check(request('DeleteFile', { signal: c2.signal, onWaiting: () => waiting.push('b') }));
    const open = await presenter.nth(0);
    c2.abort();
    assert.deepEqual(await b, { kind: 'cancelled' });
    c1.abort();
    assert.deepEqual(await a, { kind: 'cancelled' });
    assert.equal(open.signal.aborted, true, 'the open prompt was closed');
    await delay(30);
    assert.equal(presenter.shown.length, 1, 'the withdrawn call never prompted');
    assert.deepEqual(waiting, ['a', 'b'], 'both reported waiting for the user');
  });

  it('reports prompt activity for the status bar', async () => {
    const seen: string[] = [];
    gate.onDidChangeActivity((a) => seen.push(`${a.open}/${a.queued}`));
    const p = gate.check(request('DeleteFile'));
    (await presenter.nth(0)).answer('allow');
    await p;
    await delay(5);
    assert.ok(seen.includes('1/0'), seen.join(' '));
    assert.equal(seen[seen.length - 1], '0/0');
  });
});
