import * as assert from 'node:assert/strict';
import { PermissionGate, type PermissionCheck, type PermissionDecision } from '../../../../src/core/consent/permissionGate';
import { ErrorCode } from '../../../../src/protocol';
import { AnsweringPrompter, ManualTimers } from './permission-fakes';

const MINUTE = 60_000;

function ask(toolName = 'DeleteFile', extra: Partial<PermissionCheck> = {}): PermissionCheck {
  return { requestId: `r-${Math.random()}`, toolKey: toolName, toolName, groupName: 'IDE', message: `Run ${toolName}?`, rememberable: true, signal: new AbortController().signal, ...extra };
}

const isRateLimited = (d: PermissionDecision) => d.kind === 'refused' && d.code === ErrorCode.PromptRateLimited;

describe('permission gate: prompt barrage', () => {
  let timers: ManualTimers;
  let presenter: AnsweringPrompter;
  let disconnects: number;
  let gate: PermissionGate;
  beforeEach(() => {
    timers = new ManualTimers();
    presenter = new AnsweringPrompter('deny');
    disconnects = 0;
    gate = new PermissionGate({
      presenter, timers, closeGraceMs: 0,
      barrage: { maxPromptsPerMinute: 5, denialsBeforeEscape: 3, denialWindowMs: 5 * MINUTE, denyAllMs: 10 * MINUTE },
      onDisconnect: () => disconnects++,
    });
  });
  afterEach(() => gate.dispose());

  it('beyond K prompts a minute, calls are refused at once with PROMPT_RATE_LIMITED and nothing is shown; a minute later prompts come back', async () => {
    for (let i = 0; i < 5; i++) assert.equal((await gate.check(ask())).kind, 'denied');
    let waited = 0;
    const refused = await gate.check(ask('Other', { onWaiting: () => waited++ }));
    assert.ok(isRateLimited(refused), JSON.stringify(refused));
    assert.match((refused as { message: string }).message, /^Other: more than 5 permission prompts in a minute/);
    assert.equal(waited, 0, 'the call never waited for the user');
    assert.equal(presenter.shown.length, 5);
    timers.advance(MINUTE);
    presenter.answer = 'allow';
    assert.deepEqual(await gate.check(ask()), { kind: 'allowed', via: 'prompt' });
    assert.equal(presenter.shown.length, 6);
  });

  it('calls queued behind an open prompt are refused when their turn comes once the rate is used up', async () => {
    const decisions = await Promise.all(Array.from({ length: 12 }, () => gate.check(ask())));
    assert.equal(presenter.shown.length, 5);
    assert.equal(decisions.filter(isRateLimited).length, 7);
  });

  it('after 3 denials of one tool within the window its prompt offers Deny All and Disconnect; other tools and spread-out denials do not', async () => {
    await gate.check(ask());
    timers.advance(3 * MINUTE);
    await gate.check(ask());
    timers.advance(3 * MINUTE); // the first denial is now outside the 5-minute window
    await gate.check(ask());
    await gate.check(ask());
    assert.deepEqual(presenter.shown[3].choices.map((c) => c.answer), ['allowSession']);
    await gate.check(ask('Other'));
    assert.deepEqual(presenter.shown[4].choices.map((c) => c.answer), ['allowSession'], 'denials of DeleteFile do not count for Other');
    timers.advance(MINUTE);
    await gate.check(ask());
    assert.deepEqual(presenter.shown[5].choices.map((c) => [c.answer, c.label]), [
      ['allowSession', 'Allow every DeleteFile call until this window closes'],
      ['denyAll', 'Deny All from This Backend for 10 Minutes'],
      ['disconnect', 'Disconnect'],
    ]);
  });

  it('Deny All refuses every call needing permission, remembered ones included, until it expires', async () => {
    presenter.answer = 'allowSession';
    await gate.check(ask('Remembered'));
    presenter.answer = 'deny';
    for (let i = 0; i < 3; i++) await gate.check(ask());
    presenter.answer = 'denyAll';
    assert.deepEqual(await gate.check(ask()), { kind: 'denied', via: 'user' });
    assert.equal(gate.denyingAll, true);
    for (const tool of ['DeleteFile', 'Other', 'Remembered']) {
      const d = await gate.check(ask(tool));
      assert.ok(isRateLimited(d), `${tool}: ${JSON.stringify(d)}`);
      assert.match((d as { message: string }).message, /denies every permission request from this backend for 10 more minutes/);
    }
    assert.equal(presenter.shown.length, 5);
    timers.advance(10 * MINUTE - 1);
    assert.ok(isRateLimited(await gate.check(ask('Remembered'))));
    timers.advance(1);
    assert.equal(gate.denyingAll, false);
    assert.equal((await gate.check(ask('Remembered'))).kind, 'allowed', 'the grant answers again after expiry');
    presenter.answer = 'allow';
    assert.equal((await gate.check(ask('Other'))).kind, 'allowed');
    assert.equal(presenter.shown.length, 6);
  });

  it('Forget all lifts Deny All at once', async () => {
    for (let i = 0; i < 3; i++) await gate.check(ask());
    presenter.answer = 'denyAll';
    await gate.check(ask());
    assert.ok(isRateLimited(await gate.check(ask())));
    await gate.forget();
    presenter.answer = 'allow';
    assert.equal((await gate.check(ask())).kind, 'allowed');
  });

  it('Disconnect denies the call, then asks the client to disconnect (after this call is answered); after the user reconnects the way out is offered at once', async () => {
    for (let i = 0; i < 3; i++) await gate.check(ask());
    presenter.answer = 'disconnect';
    assert.deepEqual(await gate.check(ask()), { kind: 'denied', via: 'user' });
    assert.equal(disconnects, 0, 'not before the call is answered');
    timers.advance(0);
    assert.equal(disconnects, 1);
    assert.equal(gate.denyingAll, false);
    presenter.answer = 'deny';
    await gate.check(ask());
    assert.deepEqual(presenter.shown[4].choices.map((c) => c.answer), ['allowSession', 'denyAll', 'disconnect']);
  });

  it('Disconnect is not offered when nobody can disconnect', async () => {
    const alone = new PermissionGate({ presenter, timers, closeGraceMs: 0 });
    for (let i = 0; i < 4; i++) await alone.check(ask());
    assert.deepEqual(presenter.shown[3].choices.map((c) => c.answer), ['allowSession', 'denyAll']);
    alone.dispose();
  });
});
